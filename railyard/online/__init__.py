"""`railyard validate --online`: the blueprint against the live account, read-only.

The offline result is computed first and never changes; the account's answers
only add findings (and a table of what the account holds). Four checks, each
a module: the reservations and Capacity Blocks the pools name
(`reservations`), the instance types offered in each zone (`offerings`), the
quota plan against the account's applied quotas (`quotas`), the custom AMIs
the pools name (`images`), the names
railyard would create that are already taken (`names`), and the VPC, subnets,
file systems and buckets the blueprint says exist (`existing`). Every call goes through
`account.Account`, which can only read.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from blueprints.catalog import load_catalog
from blueprints.findings import sort_findings
from blueprints.models import Blueprint
from railyard.online import existing, findings, images, names, offerings, quotas, reservations
from railyard.online.account import Account, AccountUnreachable, open_account
from railyard.online.findings import unreachable_finding
from railyard.online.report import OnlineReport
from topology.cluster.kubernetes_checks import plannable
from topology.cluster.node_groups import NodeGroupPlan, plan_node_groups

if TYPE_CHECKING:
    from railyard.pipeline import Validation

CODES = findings.CODES + reservations.CODES + offerings.CODES + quotas.CODES + names.CODES + existing.CODES + images.CODES
__all__ = ["CODES", "OnlineReport", "check_online", "validate_online"]


def check_online(validation: Validation, account: Account, now: datetime | None = None) -> OnlineReport:
    """Run every online check the blueprint allows; findings are placed at their YAML lines."""
    report = OnlineReport(account.region)
    blueprint = validation.blueprint
    if blueprint is None:
        return report
    now = now or datetime.now(UTC)
    try:
        report.checks.append("reservations")
        report.reservations, found = reservations.check_reservations(blueprint, account, now)
        found += reservations.check_unstated(blueprint, load_catalog(), report.reservations, validation.findings)
        node_groups = _node_groups(blueprint)
        if node_groups is not None:
            report.checks.append("offerings")
            found += offerings.check_offerings(blueprint, account, node_groups)
        if validation.quotas:
            report.checks.append("quotas")
            report.quotas, quota_findings = quotas.check_quotas(validation.quotas, account)
            found += quota_findings
        if any(pool.ami_id for pool in blueprint.pools):
            report.checks.append("images")
            found += images.check_images(blueprint, load_catalog(), account)
        report.checks.append("names")
        found += names.check_names(blueprint, account)
        if blueprint.cloud.existing_vpc is not None or any(getattr(tier, "existing", None) for tier in blueprint.storage):
            report.checks.append("existing")
            found += existing.check_existing(blueprint, account)
    except AccountUnreachable as exc:
        report.reached = False
        found = [unreachable_finding(exc, account.region)]
    report.findings = [validation.load.source_map.place(finding) for finding in found]
    return report


def validate_online(validation: Validation, profile: str | None = None, session: Any = None, now: datetime | None = None) -> Validation:
    """The offline validation with the account's findings added (nothing offline is changed or removed).

    The region is the blueprint's; the credentials are `session`'s, else a new boto3 session's (with `profile`).
    A blueprint that didn't load is returned as it is: there is nothing to ask the account about.
    """
    blueprint = validation.blueprint
    if blueprint is None:
        return validation
    try:
        account = open_account(blueprint.cloud.region, profile, session)
    except AccountUnreachable as exc:
        report = OnlineReport(blueprint.cloud.region, reached=False)
        report.findings = [validation.load.source_map.place(unreachable_finding(exc, report.region))]
    else:
        report = check_online(validation, account, now)
    return replace(validation, findings=sort_findings([*validation.findings, *report.findings]), online=report)


def _node_groups(blueprint: Blueprint) -> tuple[NodeGroupPlan, ...] | None:
    """The planned node groups (their zones), or None when the blueprint can't be planned offline."""
    catalog = load_catalog()
    return plan_node_groups(blueprint, catalog) if plannable(blueprint, catalog) else None
