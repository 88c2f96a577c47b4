"""`railyard validate FILE [--stack ENV] [--json]`: every finding and the design's figures."""

from __future__ import annotations

import json

from railyard.pipeline import validate
from railyard.render import findings_report, table

NAME = "validate"
HELP = "Validate a blueprint (schema, cross-field rules, topology) and print findings and figures."


def add_arguments(parser) -> None:
    """FILE, --stack, --project-dir, --json."""
    parser.add_argument("file", nargs="?", help="the blueprint YAML (default: the stack's railyard:blueprint)")
    parser.add_argument("--stack", help="apply this stack's overrides from Pulumi.<stack>.yaml")
    parser.add_argument("--project-dir", default=".", help="where Pulumi.<stack>.yaml lives (default: .)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")


def run(args) -> int:
    """Validate and print; exit 1 when any finding is an error."""
    result = validate(args.file, args.stack, args.project_dir)
    if args.json:
        print(json.dumps(result.as_json(), indent=2, sort_keys=True))
        return 0 if result.ok else 1
    parts = [f"blueprint {result.file}" + (f" (stack {result.stack})" if result.stack else "")]
    if result.design is not None:
        for title, headers, rows in result.design.tables():
            parts.append(f"{title}\n{table(headers, rows)}")
    parts.append(findings_report(result.findings, result.load.source_map))
    parts.append("ok: no errors" if result.ok else "FAILED: fix the errors above")
    print("\n\n".join(parts))
    return 0 if result.ok else 1
