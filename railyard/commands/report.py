"""`railyard report FILE [--stack ENV] [-o report.html]`: the design as one self-contained HTML page."""

from __future__ import annotations

import sys
from pathlib import Path

from railyard.collector import fewer_collections
from railyard.commands.arguments import add_file_arguments

NAME = "report"
HELP = "Write the design as one self-contained HTML page: the fabric, blast radius, power, storage, placement, quotas and findings."


def add_arguments(parser) -> None:
    """FILE, --stack, --project-dir, -o."""
    add_file_arguments(parser)
    parser.add_argument("-o", "--output", default="report.html", help="the page to write (default: report.html)")


def run(args) -> int:
    """Write the page; exit 1 when the blueprint has an error (the page then shows the findings)."""
    with fewer_collections():  # matplotlib and the Pulumi SDK load here, then a preview runs
        from railyard.html_report import build_report  # matplotlib loads only for this command

        page, ok = build_report(args.file, args.stack, args.project_dir)
    Path(args.output).write_text(page, encoding="utf-8")
    print(f"wrote {args.output}" + ("" if ok else " (the blueprint has errors: the page lists them)"), file=sys.stderr)
    return 0 if ok else 1
