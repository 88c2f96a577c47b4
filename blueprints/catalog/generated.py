"""The one command-line shape of every generated data file: write it, or with --check say whether it is current.

Generated files (`regions.json`, `system_types.json`, the policy pack's facts)
are never edited by hand; each module renders its file's exact text and hands
it here, so `python -m <module>` writes it and `--check` (run by the suite)
fails when the committed file is stale.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def write_or_check(module: str, summary: str, output: Path, render: Callable[[], str], argv: list[str] | None = None) -> int:
    """Parse `--check`, then write `render()` to `output` (exit 0) or compare it with the file (exit 1 when stale)."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}", description=summary)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file differs from a fresh generation")
    args = parser.parse_args(argv)
    expected = render()
    if args.check:
        current = output.read_text(encoding="utf-8") if output.exists() else None
        if current != expected:
            print(f"{output} is stale; run: python -m {module}", file=sys.stderr)
            return 1
        return 0
    output.write_text(expected, encoding="utf-8")
    print(f"wrote {output}")
    return 0
