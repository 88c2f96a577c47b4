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
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from blueprints.catalog import Catalog
from blueprints.catalog.local_zones import load_local_zones
from blueprints.findings import Finding, Path, error, warning
from blueprints.models import Blueprint
from blueprints.models.capacity import CapacityBlock, CapacityReservation, ReservationGroup
from blueprints.models.pools import Pool
from blueprints.records import record
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


@record
class Stated:
    """What the blueprint says of one reservation it names (a group's member: what the group says of all of them)."""

    kind: str  # capacity_reservation or capacity_block
    reservation_id: str
    zone: str | None
    instance_type: str | None
    instance_count: int | None
    start: datetime | None = None
    end: datetime | None = None

    @staticmethod
    def of(source: CapacityReservation | CapacityBlock) -> Stated:
        """A reservation or Capacity Block as the blueprint writes it."""
        window = (source.start, source.end) if isinstance(source, CapacityBlock) else (None, None)
        return Stated(source.kind, source.reservation_id or "", source.zone, source.instance_type, source.instance_count, *window)


RESERVATION_TYPE = {"capacity_block": "capacity-block", "capacity_reservation": "default"}


@record
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


def _named(blueprint: Blueprint) -> list[tuple[int, Pool, Stated, Path]]:
    """(pool index, pool, reservation, path of its id) for every reservation the pools name.

    A reservation group's members are each held to what the group says of
    them (kind, type, zone); their count is the group's together (`check_unstated`).
    A group named only by its ARN is not read.
    """
    named: list[tuple[int, Pool, Stated, Path]] = []
    for index, pool in enumerate(blueprint.pools):
        source = pool.capacity
        path: Path = ("pools", index, "capacity")
        if isinstance(source, CapacityBlock) and source.reservation_id is None:
            continue  # an offering not bought yet: the account holds no reservation to read (capacity.offering-unpurchased)
        if isinstance(source, CapacityReservation | CapacityBlock):
            named.append((index, pool, Stated.of(source), (*path, "reservation_id")))
        elif isinstance(source, ReservationGroup):
            for position, member in enumerate(source.reservation_ids):
                kind = "capacity_block" if source.capacity_blocks else "capacity_reservation"
                as_member = Stated(kind, member, source.zone, source.instance_type, None)
                named.append((index, pool, as_member, (*path, "reservation_ids", position)))
    return named


def check_reservations(blueprint: Blueprint, account: Account, now: datetime) -> tuple[list[ReservationFact], list[Finding]]:
    """Every reservation the pools name, looked up in the account: the facts found and the findings."""
    named = _named(blueprint)
    if not named:
        return [], []
    found: dict[str, dict[str, Any]] = {}
    findings: list[Finding] = []
    for reservation_id in sorted({source.reservation_id for _, _, source, _ in named}):
        try:
            answer = account.call("ec2", "DescribeCapacityReservations", CapacityReservationIds=[reservation_id])
        except AccountError as exc:
            if exc.code not in MISSING:
                return [], [account_finding(exc, ("pools",), "the reservations were not checked")]
            continue
        for reservation in answer.get("CapacityReservations", []):
            found[reservation["CapacityReservationId"]] = reservation
    facts = []
    for index, pool, source, id_path in named:
        path: Path = ("pools", index, "capacity")
        reservation = found.get(source.reservation_id)
        if reservation is None:
            findings.append(_missing(pool.name, source, id_path, account.region))
            continue
        fact = _fact(pool.name, reservation, blueprint.cloud.zones_by_id)
        facts.append(fact)
        findings += _compare(pool, source, fact, path, now, id_path)
    return facts, findings


def _local_name(zone: str | None) -> str | None:
    """A Local Zone written by id, by its name (as `_fact` reports it); any other zone as written."""
    return None if zone is None else load_local_zones().canonical(zone)


def _fact(pool: str, reservation: dict[str, Any], by_id: bool) -> ReservationFact:
    """The reservation in railyard's terms; its zone in the blueprint's form (name or id), a Local Zone by its name."""
    local = load_local_zones().find(reservation.get("AvailabilityZone", ""))
    zone = local.name if local is not None else reservation.get("AvailabilityZoneId" if by_id else "AvailabilityZone", "")
    return ReservationFact(
        pool,
        reservation["CapacityReservationId"],
        reservation.get("State", "unknown"),
        reservation.get("ReservationType", "default"),
        reservation.get("InstanceType", ""),
        zone,
        int(reservation.get("TotalInstanceCount", 0)),
        int(reservation.get("AvailableInstanceCount", 0)),
        _utc(reservation.get("StartDate")),
        _utc(reservation.get("EndDate")),
    )


def _utc(moment: datetime | None) -> datetime | None:
    """botocore parses EC2's UTC timestamps into the local zone; railyard reports them in UTC."""
    return None if moment is None else moment.astimezone(UTC)


def _missing(pool: str, source: Stated, id_path: Path, region: str) -> Finding:
    return error(
        "online.reservation-missing",
        id_path,
        f"pool '{pool}': reservation {source.reservation_id} does not exist in {region} for this account (nor is it shared with it)",
        "check the id and the region; a reservation shared from another account must be shared with this one (AWS RAM)",
        reservation=source.reservation_id,
    )


def _compare(pool: Pool, source: Stated, fact: ReservationFact, path: Path, now: datetime, id_path: Path) -> Iterable[Finding]:
    """The blueprint's reservation against the account's."""
    said = f"pool '{pool.name}': reservation {fact.reservation_id}"
    expected_type = RESERVATION_TYPE[source.kind]
    if fact.kind != expected_type:
        what = "a Capacity Block" if fact.kind == "capacity-block" else "an on-demand capacity reservation"
        fix = "capacity_block" if fact.kind == "capacity-block" else "capacity_reservation"
        yield error("online.reservation-mismatch", (*path, "kind"), f"{said} is {what} in the account", f"set kind: {fix}", field="kind")
    for field_name, ours, theirs in (("instance_type", source.instance_type, fact.instance_type), ("zone", _local_name(source.zone), fact.zone)):
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
    if source.kind == "capacity_block":
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
    yield from _usable(pool, said, fact, id_path, now)


def _usable(pool: Pool, said: str, fact: ReservationFact, id_path: Path, now: datetime) -> Iterable[Finding]:
    """Whether the pool's nodes can launch into the reservation now, later, or never."""
    if fact.state in COMING:
        when = f" until {fact.start.isoformat()}" if fact.start is not None and fact.start > now else ""
        yield warning(
            "online.reservation-not-started",
            id_path,
            f"{said} is {fact.state}: nodes can't launch into it{when}",
            "apply after it turns active, or keep the pool at 0 desired nodes until then",
            state=fact.state,
        )
    elif fact.state != USABLE:
        ended = f" (it ended {fact.end.isoformat()})" if fact.end is not None and fact.end <= now else ""
        yield error(
            "online.reservation-state",
            id_path,
            f"{said} is {fact.state}{ended}: no node can launch into it",
            "name a reservation that is active or scheduled, or change the pool's capacity kind",
            state=fact.state,
        )
    elif fact.available < pool.desired_nodes and "reservation_ids" not in id_path:  # a group's members share the pool
        yield warning(
            "online.reservation-in-use",
            id_path,
            f"{said} has {fact.available} of {fact.total} instances free, but the pool starts with {pool.desired_nodes} nodes",
            "free the instances using it, or start the pool smaller",
            available=fact.available,
            desired=pool.desired_nodes,
        )


# The offline rules that read a Capacity Block's zone, type, count or window.
_FILLED_RULES = (capacity.check, reservation_use.check, kubernetes_version.check)


def check_unstated(blueprint: Blueprint, catalog: Catalog, facts: list[ReservationFact], offline: Iterable[Finding]) -> list[Finding]:
    """The offline checks a Capacity Block's (or a reservation group's) unstated fields skipped, run on the account's values.

    The blueprint is copied with each unstated zone, type, count and window
    filled from the account (a group's count is its members' together); the capacity, reservation-use and Kubernetes
    support rules run on the copy; what the offline validation (`offline`, its findings) didn't already find is
    reported, saying where the value came from.
    """
    by_id = {fact.reservation_id: fact for fact in facts}
    pools = list(blueprint.pools)
    filled_fields: dict[int, tuple[str, ...]] = {}
    for index, pool in enumerate(pools):
        source = pool.capacity
        if isinstance(source, CapacityBlock) and source.reservation_id in by_id:
            fact = by_id[source.reservation_id]
            known = {"zone": fact.zone, "instance_type": fact.instance_type, "instance_count": fact.total, "start": fact.start, "end": fact.end}
            unstated = source.unstated
        elif isinstance(source, ReservationGroup) and source.reservation_ids and all(member in by_id for member in source.reservation_ids):
            members = [by_id[member] for member in source.reservation_ids]
            known = {"zone": members[0].zone, "instance_type": members[0].instance_type, "instance_count": sum(fact.total for fact in members)}
            unstated = tuple(name for name in known if getattr(source, name) is None)
        else:
            continue
        update = {name: known[name] for name in unstated if known[name] not in (None, "")}
        if update:
            pools[index] = pool.model_copy(update={"capacity": source.model_copy(update=update)})
            filled_fields[index] = tuple(update)
    if not filled_fields:
        return []
    ctx = Context(blueprint.model_copy(update={"pools": pools}), catalog)
    before = {(finding.code, finding.path, finding.message) for finding in offline}
    added: list[Finding] = []
    for finding in (finding for rule in _FILLED_RULES for finding in rule(ctx)):
        if finding.code == "capacity.block-unstated" or (finding.code, finding.path, finding.message) in before:
            continue
        at = finding.path[1] if finding.path[:1] == ("pools",) and len(finding.path) > 1 else None  # ("pools", index, ...)
        read = filled_fields.get(at, ()) if isinstance(at, int) else ()
        note = f" (the account's {', '.join(read)}, which the blueprint leaves out)" if read else " (with the account's values)"
        added.append(replace(finding, message=finding.message + note))
    return added
