"""Capacity Blocks and capacity reservations, as the account has them.

One DescribeCapacityReservations call for every reservation the blueprint
names. Each is compared with what the blueprint says of it: it exists; it is
the kind the pool says (a Capacity Block is `ReservationType: capacity-block`);
its instance type, zone and instance count are the blueprint's; it is usable
(`active`), or will be (`scheduled` and its kin, a warning that names the
start), or never will be again (`expired`, `cancelled`, `failed`...); a
Capacity Block's window is the blueprint's; and enough of it is free for the
pool's nodes at creation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from blueprints.catalog import Catalog
from blueprints.findings import Finding, Path, error, warning
from blueprints.models import Blueprint
from blueprints.models.capacity import CapacityBlock, CapacityReservation
from blueprints.models.pools import Pool
from blueprints.rules import capacity, kubernetes_version, reservation_use
from blueprints.rules.context import Context
from railyard.online.account import Account, AccountError
from railyard.online.findings import account_finding

CODES = (
    "online.reservation-missing",
    "online.reservation-mismatch",
    "online.reservation-state",
    "online.reservation-not-started",
    "online.reservation-in-use",
)
USABLE = "active"
# States a reservation passes through on its way to `active` (EC2 CapacityReservationState).
COMING = frozenset({"scheduled", "pending", "payment-pending", "assessing", "delayed"})
MISSING = ("InvalidCapacityReservationId.NotFound", "InvalidCapacityReservationId.Malformed")
Reserved = CapacityReservation | CapacityBlock
RESERVATION_TYPE = {"capacity_block": "capacity-block", "capacity_reservation": "default"}


@dataclass(frozen=True)
class ReservationFact:
    """What the account says of one reservation the blueprint names (the `--online` table's row)."""

    pool: str
    reservation_id: str
    state: str
    kind: str
    instance_type: str
    zone: str
    total: int
    available: int
    start: datetime | None
    end: datetime | None

    def as_json(self) -> dict[str, Any]:
        """The `validate --online --json` `online.reservations` entry."""
        return {
            "pool": self.pool,
            "reservation_id": self.reservation_id,
            "state": self.state,
            "reservation_type": self.kind,
            "instance_type": self.instance_type,
            "availability_zone": self.zone,
            "total_instances": self.total,
            "available_instances": self.available,
            "start": None if self.start is None else self.start.isoformat(),
            "end": None if self.end is None else self.end.isoformat(),
        }


def check_reservations(blueprint: Blueprint, account: Account, now: datetime) -> tuple[list[ReservationFact], list[Finding]]:
    """Every reservation the pools name, looked up in the account: the facts found and the findings."""
    named = [
        (index, pool, pool.capacity) for index, pool in enumerate(blueprint.pools) if isinstance(pool.capacity, CapacityReservation | CapacityBlock)
    ]
    if not named:
        return [], []
    found: dict[str, dict[str, Any]] = {}
    findings: list[Finding] = []
    for reservation_id in sorted({source.reservation_id for _, _, source in named}):
        try:
            answer = account.call("ec2", "DescribeCapacityReservations", CapacityReservationIds=[reservation_id])
        except AccountError as exc:
            if exc.code not in MISSING:
                return [], [account_finding(exc, ("pools",), "the reservations were not checked")]
            continue
        for reservation in answer.get("CapacityReservations", []):
            found[reservation["CapacityReservationId"]] = reservation
    facts = []
    for index, pool, source in named:
        path: Path = ("pools", index, "capacity")
        reservation = found.get(source.reservation_id)
        if reservation is None:
            findings.append(_missing(pool.name, source, path, account.region))
            continue
        fact = _fact(pool.name, reservation, blueprint.cloud.zones_by_id)
        facts.append(fact)
        findings += _compare(pool, source, fact, path, now)
    return facts, findings


def _fact(pool: str, reservation: dict[str, Any], by_id: bool) -> ReservationFact:
    """The reservation in railyard's terms; its zone in the blueprint's form (name or id)."""
    return ReservationFact(
        pool,
        reservation["CapacityReservationId"],
        reservation.get("State", "unknown"),
        reservation.get("ReservationType", "default"),
        reservation.get("InstanceType", ""),
        reservation.get("AvailabilityZoneId" if by_id else "AvailabilityZone", ""),
        int(reservation.get("TotalInstanceCount", 0)),
        int(reservation.get("AvailableInstanceCount", 0)),
        _utc(reservation.get("StartDate")),
        _utc(reservation.get("EndDate")),
    )


def _utc(moment: datetime | None) -> datetime | None:
    """botocore parses EC2's UTC timestamps into the local zone; railyard reports them in UTC."""
    return None if moment is None else moment.astimezone(UTC)


def _missing(pool: str, source: Reserved, path: Path, region: str) -> Finding:
    return error(
        "online.reservation-missing",
        (*path, "reservation_id"),
        f"pool '{pool}': reservation {source.reservation_id} does not exist in {region} for this account (nor is it shared with it)",
        "check the id and the region; a reservation shared from another account must be shared with this one (AWS RAM)",
        reservation=source.reservation_id,
    )


def _compare(pool: Pool, source: Reserved, fact: ReservationFact, path: Path, now: datetime) -> Iterable[Finding]:
    """The blueprint's reservation against the account's."""
    said = f"pool '{pool.name}': reservation {fact.reservation_id}"
    expected_type = RESERVATION_TYPE[source.kind]
    if fact.kind != expected_type:
        what = "a Capacity Block" if fact.kind == "capacity-block" else "an on-demand capacity reservation"
        fix = "capacity_block" if fact.kind == "capacity-block" else "capacity_reservation"
        yield error("online.reservation-mismatch", (*path, "kind"), f"{said} is {what} in the account", f"set kind: {fix}", field="kind")
    for field_name, ours, theirs in (("instance_type", source.instance_type, fact.instance_type), ("zone", source.zone, fact.zone)):
        if ours is not None and ours != theirs:
            yield error(
                "online.reservation-mismatch",
                (*path, field_name),
                f"{said} is for {theirs} in the account, but the blueprint says {field_name} {ours}",
                f"set {field_name}: {theirs}",
                field=field_name,
            )
    if source.instance_count is not None and source.instance_count != fact.total:
        yield error(
            "online.reservation-mismatch",
            (*path, "instance_count"),
            f"{said} holds {fact.total} instances in the account, but the blueprint says instance_count {source.instance_count}",
            f"set instance_count: {fact.total}",
            field="instance_count",
        )
    if isinstance(source, CapacityBlock):
        for moment, declared, actual in (("start", source.start, fact.start), ("end", source.end, fact.end)):
            if actual is not None and declared is not None and declared != actual:
                yield error(
                    "online.reservation-mismatch",
                    (*path, moment),
                    f"{said} {'starts' if moment == 'start' else 'ends'} at {actual.isoformat()} in the account, "
                    f"but the blueprint says {moment} {declared.isoformat()}",
                    f"set {moment}: {actual.isoformat().replace('+00:00', 'Z')}",
                    field=moment,
                )
    yield from _usable(pool, said, fact, path, now)


def _usable(pool: Pool, said: str, fact: ReservationFact, path: Path, now: datetime) -> Iterable[Finding]:
    """Whether the pool's nodes can launch into the reservation now, later, or never."""
    if fact.state in COMING:
        when = f" until {fact.start.isoformat()}" if fact.start is not None and fact.start > now else ""
        yield warning(
            "online.reservation-not-started",
            (*path, "reservation_id"),
            f"{said} is {fact.state}: nodes can't launch into it{when}",
            "apply after it turns active, or keep the pool at 0 desired nodes until then",
            state=fact.state,
        )
    elif fact.state != USABLE:
        ended = f" (it ended {fact.end.isoformat()})" if fact.end is not None and fact.end <= now else ""
        yield error(
            "online.reservation-state",
            (*path, "reservation_id"),
            f"{said} is {fact.state}{ended}: no node can launch into it",
            "name a reservation that is active or scheduled, or change the pool's capacity kind",
            state=fact.state,
        )
    elif fact.available < pool.desired_nodes:
        yield warning(
            "online.reservation-in-use",
            (*path, "reservation_id"),
            f"{said} has {fact.available} of {fact.total} instances free, but the pool starts with {pool.desired_nodes} nodes",
            "free the instances using it, or start the pool smaller",
            available=fact.available,
            desired=pool.desired_nodes,
        )


# The offline rules that read a Capacity Block's zone, type, count or window.
_FILLED_RULES = (capacity.check, reservation_use.check, kubernetes_version.check)


def check_unstated(blueprint: Blueprint, catalog: Catalog, facts: list[ReservationFact]) -> list[Finding]:
    """The offline checks a Capacity Block's unstated fields skipped, run on the account's values for them.

    The blueprint is copied with each unstated zone, type, count and window
    filled from the account; the capacity, reservation-use and Kubernetes
    support rules run on both; what only the filled copy finds is reported,
    saying where the value came from.
    """
    by_id = {fact.reservation_id: fact for fact in facts}
    pools = list(blueprint.pools)
    filled_fields: dict[int, tuple[str, ...]] = {}
    for index, pool in enumerate(pools):
        source = pool.capacity
        fact = by_id.get(source.reservation_id) if isinstance(source, CapacityBlock) else None
        if not isinstance(source, CapacityBlock) or fact is None or not source.unstated:
            continue
        known = {"zone": fact.zone, "instance_type": fact.instance_type, "instance_count": fact.total, "start": fact.start, "end": fact.end}
        update = {name: known[name] for name in source.unstated if known[name] not in (None, "")}
        if update:
            pools[index] = pool.model_copy(update={"capacity": source.model_copy(update=update)})
            filled_fields[index] = tuple(update)
    if not filled_fields:
        return []
    filled = blueprint.model_copy(update={"pools": pools})

    def found(subject: Blueprint) -> list[Finding]:
        ctx = Context(subject, catalog)
        return [finding for rule in _FILLED_RULES for finding in rule(ctx) if finding.code != "capacity.block-unstated"]

    before = {(finding.code, finding.path, finding.message) for finding in found(blueprint)}
    added: list[Finding] = []
    for finding in found(filled):
        if (finding.code, finding.path, finding.message) in before:
            continue
        at = finding.path[1] if finding.path[:1] == ("pools",) and len(finding.path) > 1 else None  # ("pools", index, ...)
        read = filled_fields.get(at, ()) if isinstance(at, int) else ()
        note = f" (the account's {', '.join(read)} for the block, which the blueprint leaves out)" if read else " (with the account's values)"
        added.append(replace(finding, message=finding.message + note))
    return added
