"""`python -m railyard ...` and the `railyard` command: see `railyard.cli`.

The commands' imports (pydantic, networkx, railyard's models and checks) allocate objects that live
for the whole run, and Python's collector scanned them twice on the way in (two full collections,
about 0.13 s of a cold `validate` on this project's machine). They are imported with the collector
paused, then frozen out of its reach (`gc.freeze`); what the run itself allocates is collected as usual.
"""

import gc
import sys


def run() -> int:
    """Import the CLI without collecting, then run it."""
    gc.disable()
    try:
        from railyard.cli import main
    finally:
        gc.enable()
    gc.freeze()
    return main()


if __name__ == "__main__":
    sys.exit(run())
