"""`railyard report FILE [--stack ENV] [-o report.html]`: the design as one self-contained HTML page."""

from __future__ import annotations

import sys
from pathlib import Path

NAME = "report"
HELP = "Write the design as one self-contained HTML page: the fabric, blast radius, power, storage, placement, quotas and findings."


def add_arguments(parser) -> None:
    """FILE, --stack, --project-dir, -o."""
    parser.add_argument("file", nargs="?", help="the blueprint YAML (default: the stack's railyard:blueprint)")
    parser.add_argument("--stack", help="apply this stack's overrides from Pulumi.<stack>.yaml")
    parser.add_argument("--project-dir", default=".", help="where Pulumi.<stack>.yaml lives (default: .)")
    parser.add_argument("-o", "--output", default="report.html", help="the page to write (default: report.html)")


def run(args) -> int:
    """Write the page; exit 1 when the blueprint has an error (the page then shows the findings)."""
    from railyard.html_report import build_report  # matplotlib loads only for this command

    page, ok = build_report(args.file, args.stack, args.project_dir)
    Path(args.output).write_text(page, encoding="utf-8")
    print(f"wrote {args.output}" + ("" if ok else " (the blueprint has errors: the page lists them)"), file=sys.stderr)
    return 0 if ok else 1
