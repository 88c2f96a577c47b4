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

from dataclasses import field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from blueprints.catalog import load_catalog
from blueprints.findings import Finding, sort_findings
from blueprints.models import Blueprint
from blueprints.records import record
from railyard.online import existing, findings, images, names, offerings, quotas, reservations
from railyard.online.account import Account, AccountUnreachable, open_account
from railyard.online.findings import unreachable_finding
from railyard.online.quotas import QuotaFact
from railyard.online.reservations import ReservationFact
from topology.cluster.kubernetes_checks import plannable
from topology.cluster.node_groups import NodeGroupPlan, plan_node_groups

if TYPE_CHECKING:
    from railyard.pipeline import Validation

CODES = findings.CODES + reservations.CODES + offerings.CODES + quotas.CODES + names.CODES + existing.CODES + images.CODES
__all__ = ["CODES", "OnlineReport", "check_online", "validate_online"]


@record(frozen=False)
class OnlineReport:
    """What the account said: the region asked, the checks that ran, the reservations and quota values found."""

    region: str
    checks: list[str] = field(default_factory=list)
    reservations: list[ReservationFact] = field(default_factory=list)
    quotas: list[QuotaFact] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    reached: bool = True

    def as_json(self) -> dict[str, Any]:
        """The `validate --online --json` `online` document (its findings are in the top-level list)."""
        return {
            "region": self.region,
            "reached": self.reached,
            "checks": self.checks,
            "reservations": [fact.as_json() for fact in self.reservations],
            "quotas": [fact.as_json() for fact in self.quotas],
        }

    def tables(self) -> list[tuple[str, list[str], list[list[Any]]]]:
        """The human tables: the reservations as the account has them, and the account's quota values."""
        found = []
        if self.reservations:
            rows = [
                [
                    fact.pool,
                    fact.reservation_id,
                    fact.kind,
                    fact.state,
                    fact.instance_type,
                    fact.zone,
                    f"{fact.available}/{fact.total}",
                    "-" if fact.start is None else fact.start.isoformat(),
                    "-" if fact.end is None else fact.end.isoformat(),
                ]
                for fact in self.reservations
            ]
            headers = ["pool", "reservation", "type", "state", "instance type", "zone", "free/total", "start", "end"]
            found.append((f"reservations in the account ({self.region})", headers, rows))
        if self.quotas:
            rows = [
                [fact.code, fact.name, f"{fact.needed:,}", f"{fact.value:,}", "applied" if fact.applied else "AWS default", _status(fact)]
                for fact in self.quotas
            ]
            found.append((f"quotas in the account ({self.region})", ["code", "quota", "needed", "account", "value", "status"], rows))
        return found


def _status(fact: QuotaFact) -> str:
    return "ok" if fact.needed <= fact.value else "OVER"


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
