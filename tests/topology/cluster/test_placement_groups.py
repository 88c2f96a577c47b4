"""Placement decisions from the capacity source and the spread rules (no Pulumi)."""

from datetime import UTC, datetime

import pytest

from blueprints.models.capacity import CapacityBlock, CapacityReservation, OnDemand, Spot
from blueprints.models.pools import Placement, Pool
from topology.cluster.placement_groups import decide_placement, partition_count

BLOCK = CapacityBlock(
    kind="capacity_block",
    reservation_id="cr-0a1b2c3d4e5f60718",
    zone="us-east-1a",
    instance_type="p5.48xlarge",
    instance_count=64,
    start=datetime(2026, 12, 1, tzinfo=UTC),
    end=datetime(2026, 12, 15, tzinfo=UTC),
)
RESERVATION = CapacityReservation(
    kind="capacity_reservation", reservation_id="cr-0123456789abcdef0", zone="us-east-1a", instance_type="p5.48xlarge", instance_count=64
)


def pool(capacity=None, role="training", spread="packed", share=1.0, nodes=64):
    return Pool(
        name="train",
        instance_type="p5.48xlarge",
        role=role,
        nodes=nodes,
        capacity=capacity or OnDemand(kind="on_demand"),
        placement=Placement(domains=["use1a"], spread=spread, max_failure_share=share),
    )


@pytest.mark.parametrize(
    ("case", "the_pool", "efa", "nodes", "strategy", "reason_has"),
    [
        ("capacity block", pool(BLOCK), True, 64, None, "Capacity Block cr-0a1b2c3d4e5f60718"),
        ("capacity block beats rack spread", pool(BLOCK, spread="racks", share=0.1), True, 64, None, "known cause of failed launches"),
        ("reservation", pool(RESERVATION), True, 64, None, "capacity reservation cr-0123456789abcdef0"),
        ("efa training on demand", pool(), True, 64, "cluster", "EFA training pool on on-demand"),
        ("efa training on spot", pool(Spot(kind="spot")), True, 8, "cluster", "on spot capacity"),
        ("rack spread, few nodes", pool(spread="racks", nodes=6), True, 6, "spread", "its own rack"),
        ("rack spread, many nodes", pool(spread="racks", share=0.25, nodes=16), True, 16, "partition", "1/4 of the pool"),
        ("inference without rack spread", pool(role="inference", spread="zones"), False, 8, None, "places the instances freely"),
        ("training without efa", pool(), False, 8, None, "places the instances freely"),
    ],
    ids=lambda value: value if isinstance(value, str) and " " in value else None,
)
def test_decision_table(case, the_pool, efa, nodes, strategy, reason_has):
    decision = decide_placement(the_pool, "use1a", "us-east-1a", efa, nodes)
    assert decision.strategy == strategy
    assert reason_has in decision.reason
    assert decision.as_json()["strategy"] == (strategy or "none")


def test_partition_group_carries_its_count_and_spread_group_its_level():
    partition = decide_placement(pool(spread="racks", share=0.25, nodes=16), "use1a", "us-east-1a", True, 16)
    spread = decide_placement(pool(spread="racks", nodes=4), "use1a", "us-east-1a", True, 4)
    assert (partition.partition_count, partition.spread_level) == (4, None)
    assert (spread.partition_count, spread.spread_level) == (None, "rack")


@pytest.mark.parametrize(("share", "partitions"), [(1.0, 2), (0.5, 2), (0.34, 3), (0.25, 4), (0.2, 5), (0.1, 7), (0.01, 7)])
def test_partition_count_meets_the_share_within_ec2s_seven(share, partitions):
    assert partition_count(share) == partitions


def test_a_share_beyond_seven_partitions_says_so():
    decision = decide_placement(pool(spread="racks", share=0.1, nodes=64), "use1a", "us-east-1a", True, 64)
    assert decision.partition_count == 7
    assert "EC2 allows only 7 partitions" in decision.reason
