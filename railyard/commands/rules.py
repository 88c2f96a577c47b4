"""`railyard rules [--json]`: every finding code and policy id, by stage."""

from __future__ import annotations

import json
import sys

from railyard.extras import MissingExtra
from railyard.render import table

NAME = "rules"
HELP = "List every finding code (load, check, compile) and every policy of the pack, with the module that owns it."


def add_arguments(parser) -> None:
    """--json."""
    parser.add_argument("--json", action="store_true", help="print the list as JSON")


def run(args) -> int:
    """Print the list."""
    # Imported here: the catalog of checks loads every stage's registry, which `validate` and `preview` don't need.
    from railyard.checks import every_check, every_policy

    try:
        policies = every_policy()
    except MissingExtra as exc:  # the finding codes are still worth listing; say what's left out and how to get it
        policies = []
        print(f"railyard rules: the policy pack's rules are not listed: {exc}", file=sys.stderr)
    checks = [check.as_json() for check in every_check()] + policies
    if args.json:
        print(json.dumps(checks, indent=2, sort_keys=True))
        return 0
    # A policy has one enforcement level; a finding code's severity is set by each finding, so it shows "-".
    rows = [[entry["stage"], entry["code"], entry.get("enforcement", "-"), entry["owner"]] for entry in checks]
    print(table(["stage", "code", "enforcement", "owner"], rows))
    print(f"\n{len(checks)} checks")
    return 0
