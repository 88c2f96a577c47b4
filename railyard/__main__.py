"""`python -m railyard ...` and the `railyard` command: see `railyard.cli`.

The command's imports (pydantic, networkx, railyard's models and checks) allocate objects that live
for the whole run, and Python's collector scanned them twice on the way in (two full collections,
about 0.13 s of a cold `validate` on this project's machine). They are imported with the collector
paused, then frozen out of its reach (`gc.freeze`); what the run itself allocates is collected as usual.

Pydantic plugins are off unless `PYDANTIC_DISABLE_PLUGINS` says otherwise: finding them scans the entry
points of every installed distribution (about 5 ms), and railyard's models have no use for one.
"""

import gc
import os
import sys


def run() -> int:
    """Import the CLI without collecting, then run it."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    gc.disable()
    try:
        from railyard.cli import build_parser, chosen_command, main

        build_parser(chosen_command(sys.argv[1:]))  # imports the command's module; cached for `main`
    finally:
        gc.enable()
    gc.freeze()
    return main()


if __name__ == "__main__":
    sys.exit(run())
