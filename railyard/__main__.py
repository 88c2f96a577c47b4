"""`python -m railyard ...` and the `railyard` command: see `railyard.cli`.

The command's imports (pydantic, networkx, railyard's models and checks) allocate objects that live
for the whole run, and Python's collector scanned them twice on the way in (two full collections,
about 0.13 s of a cold `validate` on this project's machine). They are imported with the collector
paused, then frozen out of its reach (`gc.freeze`). What the run allocates is collected at the pace of
`railyard.collector` for the whole process (the command is short-lived): a block that paces it
itself then restores that pace, not the default, so no collection of everything the run built falls
due on the way out (about 40 ms at the end of a `preview --policies`).

The process then ends without the interpreter's teardown (`os._exit` once stdout and stderr are
flushed), as mypy's command does: tearing down the Pulumi SDK's hundreds of modules and everything a
preview built took 1.2 s after every `preview --policies` on this project's machine, with nothing
left to do (every file the commands write is closed by then, every temporary directory removed).

Pydantic plugins are off unless `PYDANTIC_DISABLE_PLUGINS` says otherwise: finding them scans the entry
points of every installed distribution (about 5 ms), and railyard's models have no use for one.
"""

import contextlib
import gc
import os
import sys
from typing import NoReturn

from railyard.collector import ALLOCATIONS_BETWEEN_COLLECTIONS


def run() -> NoReturn:
    """Import the CLI without collecting, run it, and leave with its exit status."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    gc.disable()
    try:
        from railyard.cli import build_parser, chosen_command, main

        build_parser(chosen_command(sys.argv[1:]))  # imports the command's module; cached for `main`
    finally:
        gc.enable()
    gc.freeze()
    gc.set_threshold(ALLOCATIONS_BETWEEN_COLLECTIONS, *gc.get_threshold()[1:])
    try:
        status = main()
    except SystemExit as leaving:  # argparse's --help, --version and usage errors
        status = leaving.code if isinstance(leaving.code, int) else (0 if leaving.code is None else 2)
        if leaving.code is not None and not isinstance(leaving.code, int):
            print(leaving.code, file=sys.stderr)
    _leave(status)


def _leave(status: int) -> NoReturn:
    """Flush what the command printed and end the process, skipping the interpreter's teardown."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the reader left (`railyard catalog | head`), or the stream is closed
            stream.flush()
    os._exit(status)


if __name__ == "__main__":
    run()
