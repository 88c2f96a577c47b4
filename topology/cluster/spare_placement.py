"""Hot spares share the placement group of the pool they serve, so a promoted spare runs that pool's job in place.

A spare (`pools[].standby_for`) takes a failed host's place in the served
pool's job. Placed apart, in a cluster placement group of its own, it would run
that job from outside the pool's low-latency network segment; so, unless the
blueprint says `placement.share_with_served: false`, a spare's nodes in each
zone launch into the group railyard makes for the served pool in that zone:

* a cluster group or a partition group: always (EC2 takes instances of one
  type into either from several launch templates; a cluster group stays in one
  Availability Zone, which is why sharing is per zone);
* a rack-level spread group: while the served pool's nodes and its spares'
  together stay within EC2's 7 running instances per zone and group; past that
  the spare is placed on its own, and says so.

A spare on reserved capacity can't launch into a group its reservation wasn't
made in, so it keeps its own decision and `validate` refuses the pair
(`placement.standby-reserved`). The served pool's decisions are never changed,
so turning sharing on or off touches only the spare's resources. Where the
served pool has no group of railyard's (reserved capacity, or nothing to keep
close) the spare keeps its own decision; its zone, block and capacity are held
to the served pool's by `blueprints.rules.standby`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from blueprints.findings import Finding, Path, error, warning
from blueprints.models.capacity import RESERVED_KINDS, CapacityBlock, CapacityReservation, ReservationGroup
from blueprints.models.pools import Pool
from topology.cluster.placement_groups import MAX_SPREAD_INSTANCES_PER_ZONE, PlacementDecision

CODES = ("placement.standby-reserved", "placement.standby-spread-full")


def share_served_groups(pools: Sequence[Pool], decisions: Sequence[PlacementDecision]) -> tuple[PlacementDecision, ...]:
    """The decisions with each sharing spare's made to launch into its served pool's group in the same zone, where it
    can (see the module); every other decision, the served pools' among them, is returned as it was."""
    by_zone = {(decision.pool, decision.zone): decision for decision in decisions}
    spares = {pool.name: pool for pool in pools if pool.standby_for is not None and pool.placement.share_with_served}
    held = {decision.key: decision.nodes for decision in decisions}  # instances in each group so far
    shared: list[PlacementDecision] = []
    for decision in decisions:
        spare = spares.get(decision.pool)
        served = by_zone.get((spare.standby_for, decision.zone)) if spare is not None and spare.standby_for else None
        if spare is None or served is None or served.strategy is None or spare.capacity.kind in RESERVED_KINDS:
            shared.append(decision)
            continue
        total = held[served.key] + decision.nodes
        if served.strategy == "spread" and total > MAX_SPREAD_INSTANCES_PER_ZONE:
            shared.append(replace(decision, reason=_spread_full(served, held[served.key], decision) + decision.reason))
            continue
        held[served.key] = total
        shared.append(
            replace(
                decision,
                strategy=served.strategy,
                reason=_shared_reason(served, total),
                partition_count=served.partition_count,
                spread_level=served.spread_level,
                shares_group_of=served.key,
            )
        )
    return tuple(shared)


def _shared_reason(served: PlacementDecision, total: int) -> str:
    """Why a spare launches into the served pool's group, with what the group holds."""
    detail = {
        "cluster": "the same low-latency network segment as the hosts it stands in for",
        "partition": f"EC2 spreads its nodes over the group's {served.partition_count} partitions, as it does the pool's",
        "spread": f"each node on a rack of its own; the group holds {total} of EC2's {MAX_SPREAD_INSTANCES_PER_ZONE} instances per zone",
    }[served.strategy or ""]
    return f"hot spare of '{served.pool}': launches into its {served.strategy} placement group here ({detail})"


def _spread_full(served: PlacementDecision, held: int, spare: PlacementDecision) -> str:
    """The head of a spare's reason when the served pool's spread group has no room for it."""
    return (
        f"hot spare of '{served.pool}', whose rack-level spread group here already holds {held} of EC2's "
        f"{MAX_SPREAD_INSTANCES_PER_ZONE} instances per zone: the spare's {spare.nodes} don't fit, so it is placed apart: "
    )


def standby_findings(pools: Sequence[Pool], decisions: Iterable[PlacementDecision], pool_paths: Mapping[str, Path]) -> list[Finding]:
    """A finding per zone where a sharing spare does not launch into the group railyard makes for its served pool:
    an error when the spare is on reserved capacity (AWS would refuse the launch), a warning when a spread group is full."""
    listed = list(decisions)
    by_zone = {(decision.pool, decision.zone): decision for decision in listed}
    by_name = {pool.name: pool for pool in pools}
    found: list[Finding] = []
    for decision in listed:
        spare = by_name.get(decision.pool)
        if spare is None or spare.standby_for is None or not spare.placement.share_with_served:
            continue
        served = by_zone.get((spare.standby_for, decision.zone))
        if served is None or served.strategy is None or decision.shares_group_of == served.key:
            continue
        where = (*pool_paths.get(spare.name, ("pools",)), "capacity")
        fix = "or set placement.share_with_served: false to keep the spare apart"
        if spare.capacity.kind in RESERVED_KINDS:
            found.append(
                error(
                    "placement.standby-reserved",
                    where,
                    f"spare pool '{spare.name}' is on {_reservation(spare)}, so it can't join "
                    f"'{served.pool}''s {served.strategy} placement group in zone '{decision.zone}': reserved instances launch only into "
                    "the placement group their reservation was made in, and a launch naming another is a known cause of failed launches",
                    f"put the spare on on-demand or spot capacity, as '{served.pool}' is, {fix}",
                    group=served.key,
                )
            )
            continue
        found.append(
            warning(
                "placement.standby-spread-full",
                where[:-1] + ("nodes",),
                f"spare pool '{spare.name}' can't join '{served.pool}''s spread placement group in zone '{decision.zone}': "
                f"{served.nodes} of its nodes and the spare's {decision.nodes} pass EC2's {MAX_SPREAD_INSTANCES_PER_ZONE} running "
                "instances per zone in a spread group, so the spare gets a placement of its own",
                f"keep the two within {MAX_SPREAD_INSTANCES_PER_ZONE} nodes in the zone, {fix}",
                group=served.key,
            )
        )
    return found


def _reservation(pool: Pool) -> str:
    """The pool's reservation as messages name it: `Capacity Block cr-…`."""
    source = pool.capacity
    what = {"capacity_block": "Capacity Block", "reservation_group": "reservation group"}.get(source.kind, "capacity reservation")
    return f"{what} {source.reservation_id}" if isinstance(source, CapacityReservation | CapacityBlock | ReservationGroup) else what
