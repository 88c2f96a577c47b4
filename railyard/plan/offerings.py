"""Capacity Block offerings as the plan reads them: from a folder of DescribeCapacityBlockOfferings answers.

Every `*.json` file of the folder that holds a `CapacityBlockOfferings` list is read, whatever its name
(the AWS CLI's `aws ec2 describe-capacity-block-offerings --output json` prints exactly that, and so
does `railyard plan --record`). An offering is kept once by its id, however many answers list it. One
that lacks a field the plan needs, or is priced in another currency than USD, is rejected with
`plan.offering-invalid` rather than guessed. Fees are kept as exact decimals (AWS sends `UpfrontFee` as
a string), so sums are exact to the cent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from blueprints.records import record
from railyard.online.evidence import read_evidence


@record
class Offering:
    """One Capacity Block offering: where, what, how many, when, and its upfront fee (USD)."""

    offering_id: str
    instance_type: str
    zone: str
    instance_count: int
    start: datetime
    end: datetime
    hours: int
    upfront_usd: Decimal
    ultraserver_type: str | None = None
    ultraserver_count: int | None = None
    source: str = ""

    def region(self, regions: Iterable[str]) -> str | None:
        """The region of the offering's zone among `regions` (a zone name is its region and a letter, or a Local Zone's suffix)."""
        matches = [region for region in regions if self.zone.startswith(region) and self.zone[len(region) :][:1] in "abcdefghij-"]
        return max(matches, key=len) if matches else None


@record
class Rejection:
    """Offerings ruled out, the code that ruled them out, and why in words."""

    offering_ids: tuple[str, ...]
    code: str
    message: str

    def as_json(self) -> dict[str, Any]:
        """The `--json` entry."""
        return {"offering_ids": list(self.offering_ids), "code": self.code, "message": self.message}


def _time(value: Any) -> datetime:
    """A timestamp as botocore parses it or the CLI prints it, in UTC."""
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"{value} has no time zone")
    return moment.astimezone(UTC)


def parse_offering(raw: Mapping[str, Any], source: str) -> Offering | Rejection:
    """One offering of an answer, or why it can't be used."""
    offering_id = str(raw.get("CapacityBlockOfferingId") or "?")
    try:
        currency = raw.get("CurrencyCode", "USD")
        if currency != "USD":
            return Rejection((offering_id,), "plan.offering-invalid", f"{offering_id} ({source}) is priced in {currency}; railyard plans in USD")
        offering = Offering(
            offering_id=str(raw["CapacityBlockOfferingId"]),
            instance_type=str(raw["InstanceType"]),
            zone=str(raw["AvailabilityZone"]),
            instance_count=int(raw["InstanceCount"]),
            start=_time(raw["StartDate"]),
            end=_time(raw["EndDate"]),
            hours=int(raw["CapacityBlockDurationHours"]),
            upfront_usd=Decimal(str(raw["UpfrontFee"])),
            ultraserver_type=raw.get("UltraserverType"),
            ultraserver_count=None if raw.get("UltraserverCount") is None else int(raw["UltraserverCount"]),
            source=source,
        )
    except KeyError as missing:
        return Rejection((offering_id,), "plan.offering-invalid", f"{offering_id} ({source}) has no {missing.args[0]}")
    except (TypeError, ValueError, InvalidOperation) as exc:
        return Rejection((offering_id,), "plan.offering-invalid", f"{offering_id} ({source}) has a value that isn't one: {exc}")
    if offering.instance_count < 1 or offering.end <= offering.start or not offering.upfront_usd.is_finite() or offering.upfront_usd <= 0:
        return Rejection((offering_id,), "plan.offering-invalid", f"{offering_id} ({source}) has no instances, no window or no fee")
    return offering


def offerings_of(documents: Mapping[str, Mapping[str, Any]]) -> tuple[list[Offering], list[Rejection]]:
    """Every offering the answers hold (each id once, from the first file by name), and those that can't be used."""
    found: dict[str, Offering] = {}
    rejected: dict[str, Rejection] = {}
    for name in sorted(documents):
        listed = documents[name].get("CapacityBlockOfferings")
        if not isinstance(listed, list):
            continue
        for raw in listed:
            parsed = parse_offering(raw, name) if isinstance(raw, Mapping) else Rejection(("?",), "plan.offering-invalid", f"{name}: {raw!r}")
            key = parsed.offering_id if isinstance(parsed, Offering) else parsed.offering_ids[0]
            if key in found or key in rejected:
                continue
            if isinstance(parsed, Offering):
                found[key] = parsed
            else:
                rejected[key] = parsed
    return sorted(found.values(), key=lambda offering: offering.offering_id), sorted(rejected.values(), key=lambda one: one.offering_ids)


def read_offerings(folder: str) -> tuple[list[Offering], list[Rejection], list[str]]:
    """The offerings of a folder of answers, those rejected, and the files that couldn't be read (with why)."""
    evidence = read_evidence(folder)
    offerings, rejected = offerings_of(evidence.documents)
    problems = [f"{problem.file}: {problem.reason}" for problem in evidence.problems.values()]
    return offerings, rejected, sorted(problems)
