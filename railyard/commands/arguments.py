"""Arguments every blueprint command takes the same way."""

from __future__ import annotations


def add_file_arguments(parser) -> None:
    """FILE, --stack and --project-dir: which blueprint, as every blueprint command reads it."""
    parser.add_argument("file", nargs="?", help="the blueprint YAML (default: the stack's railyard:blueprint)")
    parser.add_argument("--stack", help="apply this stack's overrides from Pulumi.<stack>.yaml")
    parser.add_argument("--project-dir", default=".", help="where Pulumi.<stack>.yaml lives (default: .)")


def add_blueprint_arguments(parser) -> None:
    """FILE, --stack, --project-dir and --json, as `validate` and `preview` both read them."""
    add_file_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
