"""What `validate --online` found in the account: the checks that ran, the reservations and quota values read.

Apart from the checks (`railyard.online`) so that `railyard.pipeline`'s `Validation`, which carries the report,
needs nothing of them: online -> pipeline -> online.report, every arrow one way.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from blueprints.findings import Finding
from blueprints.records import record
from railyard.online.quotas import QuotaFact
from railyard.online.reservations import ReservationFact


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
