"""Arguments every blueprint command takes the same way."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from blueprints.source import SourceError


def add_file_arguments(parser) -> None:
    """FILE, --stack and --project-dir: which blueprint, as every blueprint command reads it."""
    parser.add_argument("file", nargs="?", help="the blueprint YAML (default: the stack's railyard:blueprint)")
    parser.add_argument("--stack", help="apply this stack's overrides from Pulumi.<stack>.yaml")
    parser.add_argument("--project-dir", default=".", help="where Pulumi.<stack>.yaml lives (default: .)")


def add_blueprint_arguments(parser) -> None:
    """FILE, --stack, --project-dir and --json, as `validate` and `preview` both read them."""
    add_file_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")


def add_policy_config_argument(parser) -> None:
    """--policy-config, as `validate` and `preview` both read it."""
    parser.add_argument(
        "--policy-config", metavar="FILE", help="policy-pack config JSON (the `pulumi preview --policy-pack-config` format); default: the pack's own"
    )


def read_policy_config(path: str | None) -> dict[str, Any] | None:
    """The policy-pack config document at `path` (None: none given); `SourceError` when it can't be read or isn't an object."""
    if path is None:
        return None
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise SourceError(f"can't read the policy config: {exc.strerror}", path) from None
    except json.JSONDecodeError as exc:
        raise SourceError(f"the policy config is not JSON: {exc.msg}", path, exc.lineno, exc.colno) from None
    if not isinstance(document, dict):
        raise SourceError(
            f'a policy config is a JSON object of policy names, such as {{"all": "mandatory"}}, not a {type(document).__name__}', path, 1, 1
        )
    return document


def instant(text: str) -> datetime:
    """An ISO 8601 time for `--at` (validate, preview, diff); a time without a zone is UTC."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an ISO 8601 time such as 2026-12-01T00:00:00Z") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
