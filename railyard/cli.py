"""The railyard command line: `python -m railyard <command> ...`.

Exit status: 0 when there is no error-level finding, 1 when there is one,
2 when the input can't be read at all (missing file, YAML syntax error,
unknown stack) or a command needs an extra that isn't installed. Bad input
never produces a traceback: `SourceError` and `MissingExtra` are the only
exceptions the commands let out; the first is printed with its file and line,
the second with the pip command that installs the extra.
"""

from __future__ import annotations

import argparse
import functools
import sys

from blueprints.source import SourceError
from railyard import __version__
from railyard.commands import COMMANDS
from railyard.extras import MissingExtra

EXIT_OK, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2


@functools.cache
def build_parser() -> argparse.ArgumentParser:
    """The argument parser, one sub-command per module in `railyard.commands`; built once a process (it holds no state
    between `parse_args` calls), which a caller running many commands in one process, such as the fuzz suites, feels."""
    parser = argparse.ArgumentParser(prog="railyard", description="Design accelerator clusters and learn every mistake before apply.")
    parser.add_argument("--version", action="version", version=f"railyard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command_parser = sub.add_parser(command.NAME, help=command.HELP, description=command.HELP)
        command.add_arguments(command_parser)
        command_parser.set_defaults(run=command.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command and return its exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:
        # `railyard catalog | head`: the reader left; that is not an error of ours.
        sys.stderr.close()
        return EXIT_OK
    except SourceError as exc:
        where = exc.file
        if exc.line is not None:
            where += f":{exc.line}" + (f":{exc.column}" if exc.column is not None else "")
        print(f"{where}: {exc.message}", file=sys.stderr)
        return EXIT_UNREADABLE
    except MissingExtra as exc:
        print(f"railyard {args.command}: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE


if __name__ == "__main__":
    sys.exit(main())
