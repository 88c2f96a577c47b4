"""Placement groups, decided per pool and zone from the capacity source and the spread rules.

The decision table, first match wins (aws-facts.md 2.3 and 4.3):

1. A Capacity Block or capacity reservation is the source: no placement group.
   EC2 places Capacity Block instances together in an UltraCluster itself, a
   reservation launches into its own capacity, and a placement group on such
   a launch is a known cause of failed launches.
2. The pool must survive a rack (`spread: racks`): a spread group (one rack
   per instance) when the zone holds at most 7 of its nodes, the EC2 limit;
   otherwise a partition group, with enough partitions that one rack failure
   takes no more than `max_failure_share` of the pool (at most 7, EC2's limit).
3. An EFA training pool on on-demand or spot capacity: a cluster group, which
   keeps its nodes on one low-latency network segment in one zone.
4. Anything else: no placement group; EC2 places instances freely.

A hot spare (`pools[].standby_for`) then launches into the group of the pool it
serves in the same zone instead of one of its own (`topology.cluster.spare_placement`).

Every decision carries its reason, which the preview prints and the program exports.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from blueprints.models.capacity import CapacityReservation, ReservationGroup
from blueprints.models.pools import Pool
from blueprints.records import record

Strategy = Literal["cluster", "partition", "spread"]

# EC2 limits (EC2 user guide, placement groups; aws-facts.md 2.3).
MAX_PARTITIONS = 7
MAX_SPREAD_INSTANCES_PER_ZONE = 7


@record
class PlacementDecision:
    """Where a pool's nodes in one zone are placed, and why."""

    pool: str
    zone: str
    availability_zone: str
    strategy: Strategy | None
    reason: str
    partition_count: int | None = None
    spread_level: Literal["rack"] | None = None
    nodes: int = 0
    # A hot spare's decision that launches into the group of the pool it serves: that decision's key (`topology.cluster.spare_placement`).
    shares_group_of: str | None = None

    @property
    def key(self) -> str:
        """`pool-zone`: the suffix of the placement group's resource name."""
        return f"{self.pool}-{self.zone}"

    @property
    def group_key(self) -> str:
        """The key of the decision whose placement group the nodes launch into: the served pool's for a sharing spare, else this one's."""
        return self.shares_group_of or self.key

    def as_json(self) -> dict[str, Any]:
        """The decision as the program exports it."""
        document: dict[str, Any] = {
            "pool": self.pool,
            "zone": self.zone,
            "availabilityZone": self.availability_zone,
            "strategy": self.strategy or "none",
            "reason": self.reason,
        }
        if self.partition_count is not None:
            document["partitionCount"] = self.partition_count
        if self.spread_level is not None:
            document["spreadLevel"] = self.spread_level
        if self.shares_group_of is not None:
            document["sharesGroupOf"] = self.shares_group_of
        return document


def decide_placement(pool: Pool, zone: str, availability_zone: str, efa: bool, nodes_in_zone: int) -> PlacementDecision:
    """Decide the placement group of `pool`'s nodes in `zone` (see the module's table).

    `efa` says whether the pool joins an EFA fabric; `nodes_in_zone` is the
    most nodes the pool may have in this zone.
    """

    def decide(
        strategy: Strategy | None, reason: str, partition_count: int | None = None, spread_level: Literal["rack"] | None = None
    ) -> PlacementDecision:
        return PlacementDecision(
            pool.name, zone, availability_zone, strategy, reason, partition_count=partition_count, spread_level=spread_level, nodes=nodes_in_zone
        )

    source = pool.capacity
    if source.kind == "capacity_block":
        return decide(
            None,
            f"capacity comes from Capacity Block {source.reservation_id}: EC2 already places its "
            "instances together in an UltraCluster, and a placement group on a Capacity Block launch "
            "is a known cause of failed launches",
        )
    if isinstance(source, CapacityReservation | ReservationGroup):  # the other RESERVED_KINDS; a Capacity Block returned above
        what = "reservation group" if isinstance(source, ReservationGroup) else "capacity reservation"
        if source.placement_group is not None:
            return decide(
                None,
                f"capacity comes from {what} {source.reservation_id}, created in cluster placement group "
                f"{source.placement_group}: instances launch into that group (the reservation's, not one railyard makes), "
                "or they don't match the reservation",
            )
        if isinstance(source, ReservationGroup) and source.capacity_blocks:
            return decide(
                None,
                f"capacity comes from the Capacity Blocks of reservation group {source.reservation_id}: EC2 already places "
                "their instances together, and a placement group on a Capacity Block launch is a known cause of failed launches",
            )
        return decide(
            None,
            f"capacity comes from {what} {source.reservation_id}: instances launch into "
            "the reservation's own capacity, and a placement group the reservation was not created in "
            "is a known cause of failed launches",
        )
    if pool.placement.spread == "racks":
        if nodes_in_zone <= MAX_SPREAD_INSTANCES_PER_ZONE:
            return decide(
                "spread",
                f"spread: racks with at most {nodes_in_zone} node(s) here: a rack-level spread group puts every node on its own rack",
                spread_level="rack",
            )
        share = pool.placement.max_failure_share
        partitions = partition_count(share)
        reason = (
            f"spread: racks with {nodes_in_zone} nodes here: {partitions} partitions on disjoint racks, so one "
            f"rack failure takes at most 1/{partitions} of the pool (max_failure_share {share:g})"
        )
        if partitions < math.ceil(1 / share - 1e-9):
            reason += f"; EC2 allows only {MAX_PARTITIONS} partitions, fewer than that share needs"
        return decide("partition", reason, partition_count=partitions)
    if efa and pool.role == "training":
        return decide(
            "cluster",
            f"EFA training pool on {source.kind.replace('_', '-')} capacity: a cluster group "
            f"keeps its {nodes_in_zone} node(s) on one low-latency network segment",
        )
    return decide(None, f"{pool.role} pool with no EFA fabric to keep close and no rack spread: EC2 places the instances freely")


def partition_count(max_failure_share: float) -> int:
    """Partitions needed so one partition is at most `max_failure_share` of the pool (2 to 7)."""
    return min(MAX_PARTITIONS, max(2, math.ceil(1 / max_failure_share - 1e-9)))
