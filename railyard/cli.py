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

from blueprints.source import SourceError, SourceMap
from railyard import __version__
from railyard.commands import COMMANDS, command
from railyard.extras import MissingExtra

EXIT_OK, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2


@functools.cache
def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The argument parser, one sub-command per module in `railyard.commands`.

    With `chosen` (the command the arguments name), only that command's module is imported and given its
    arguments; the others are bare names, enough for argparse to accept or refuse the choice. Without it
    (`railyard --help`, no command, a misspelt one) every command is imported for its help. Built once a
    process per choice (it holds no state between `parse_args` calls), which the fuzz suites feel.
    """
    parser = argparse.ArgumentParser(prog="railyard", description="Design accelerator clusters and learn every mistake before apply.")
    parser.add_argument("--version", action="version", version=f"railyard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        if chosen is not None and name != chosen:
            sub.add_parser(name)
            continue
        module = command(name)
        command_parser = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(command_parser)
        command_parser.set_defaults(run=module.run)
    return parser


def chosen_command(argv: list[str]) -> str | None:
    """The command the arguments name (the first one, since the top level takes only --help and --version)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def main(argv: list[str] | None = None) -> int:
    """Run one command and return its exit status."""
    if argv is None:
        argv = sys.argv[1:]
    args = build_parser(chosen_command(argv)).parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:
        # `railyard catalog | head`: the reader left; that is not an error of ours.
        sys.stderr.close()
        return EXIT_OK
    except SourceError as exc:
        if exc.finding is not None:  # a YAML syntax error: framed and hinted like every finding
            from railyard.render import finding_block

            print(finding_block(exc.finding, SourceMap(lines={exc.file: exc.lines})), file=sys.stderr)
            return EXIT_UNREADABLE
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
