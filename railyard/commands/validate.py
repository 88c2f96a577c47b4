"""`railyard validate FILE [--stack ENV] [--json] [--at TIME] [--online [--profile NAME]] [--policy-config F]`: findings and figures.

Besides the blueprint's own findings it gives the policy pack's verdict on what the blueprint decides
(`railyard.preflight`), under the pack's defaults or `--policy-config`: a blueprint `validate` passes
does not then fail a mandatory policy at `preview --policies`. `--at` prices the plan as of that instant (whether
the Kubernetes version is in standard or extended support), so the same blueprint and `--at` give the same bytes.
"""

from __future__ import annotations

import json
import sys

from railyard.commands.arguments import add_blueprint_arguments, add_policy_config_argument, instant, read_policy_config
from railyard.pipeline import Pack, Validation, validate
from railyard.progress import reporting, stage, wanted
from railyard.render import findings_report, table

NAME = "validate"
HELP = "Validate a blueprint (schema, cross-field rules, topology) and print findings and figures."


def add_arguments(parser) -> None:
    """FILE, --stack, --project-dir, --json, --at, --online, --profile, --policy-config."""
    add_blueprint_arguments(parser)
    parser.add_argument(
        "--at",
        metavar="TIME",
        type=instant,
        default=None,
        help="price the plan as of this UTC time (ISO 8601, e.g. 2027-04-01T00:00:00Z; default: now): it decides whether the "
        "Kubernetes version bills standard or extended support",
    )
    parser.add_argument(
        "--online",
        action="store_true",
        help="also check the blueprint against the AWS account, read-only: reservations, offerings, quotas, names (docs/online.md)",
    )
    parser.add_argument("--profile", help="with --online: the AWS profile to use (default: the environment's credentials)")
    add_policy_config_argument(parser)


def run(args) -> int:
    """Validate and print; exit 1 when any finding is an error."""
    with reporting(sys.stderr, wanted(sys.stderr, args.json)):
        result = validate(args.file, args.stack, args.project_dir, pack=Pack(read_policy_config(args.policy_config)), at=args.at)
        if args.online:
            stage("asking the AWS account")
            result = _online(result, args.profile)
    if args.json:
        print(json.dumps(result.as_json(), indent=2, sort_keys=True))
        return 0 if result.ok else 1
    parts = [f"blueprint {result.file}" + (f" (stack {result.stack})" if result.stack else "")]
    if result.design is not None:
        for title, headers, rows in result.design.tables():
            parts.append(f"{title}\n{table(headers, rows)}")
    if result.quotas:
        title, headers, rows = result.quota_table()
        parts.append(f"{title}\n{table(headers, rows)}")
    if result.cost is not None:
        title, headers, rows = result.cost.table()
        parts.append(f"{title}\n{table(headers, rows)}\n" + "\n".join(result.cost.summary()))
    if result.online is not None:
        for title, headers, rows in result.online.tables():
            parts.append(f"{title}\n{table(headers, rows)}")
    parts.append(findings_report(result.findings, result.load.source_map))
    parts.append("ok: no errors" if result.ok else "FAILED: fix the errors above")
    print("\n\n".join(parts))
    return 0 if result.ok else 1


def _online(result: Validation, profile: str | None) -> Validation:
    """The validation with the account's findings added (boto3 is imported only when asked for)."""
    from railyard.online import validate_online

    return validate_online(result, profile)
