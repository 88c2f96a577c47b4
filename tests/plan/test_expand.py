"""Needs into instance types, nodes and a block duration, from the catalog."""

from __future__ import annotations

from datetime import date

import pytest

from blueprints.catalog import load_catalog
from railyard.plan.expand import expand, legal_days
from tests.plan.offerings import needs


@pytest.mark.parametrize(("days", "legal"), [(1, 1), (14, 14), (15, 21), (21, 21), (22, 28), (176, 182), (182, 182)])
def test_a_duration_rounds_up_to_one_capacity_blocks_are_sold_in(days, legal):
    assert legal_days(days) == legal


def test_the_kinds_give_the_capacity_block_types_of_those_accelerators_with_their_nodes():
    expansion = expand(needs(512, ("h100", "h200")), load_catalog())
    assert [(need.instance_type, need.nodes) for need in expansion.types] == [
        ("p5.48xlarge", 64),
        ("p5e.48xlarge", 64),
        ("p5en.48xlarge", 64),
    ]
    # One H100 a node: 512 nodes, over the 256 instances an account may hold across Capacity Blocks.
    assert expansion.left_out == (
        ("p5.4xlarge", "plan.instance-limit", "512 nodes exceed the 256 instances an account may hold across Capacity Blocks"),
    )
    assert expansion.hours == 504 and expansion.notes == () and expansion.infeasible == ()


def test_bandwidth_and_memory_floors_leave_types_out_and_say_why():
    expansion = expand(
        needs(
            512,
            ("h100", "a100"),
            interconnect={"min_network_gbps_per_accelerator": 400},
            accelerators={"count": 512, "kinds": ["a100", "h100"], "min_memory_gib": 80},
        ),
        load_catalog(),
    )
    assert [need.instance_type for need in expansion.types] == ["p5.48xlarge"]
    assert expansion.left_out == (
        ("p4d.24xlarge", "plan.excluded", "40 GiB per A100 < min_memory_gib 80"),
        ("p4de.24xlarge", "plan.excluded", "50 Gbps per accelerator < min_network_gbps_per_accelerator 400"),
        ("p5.4xlarge", "plan.excluded", "100 Gbps per accelerator < min_network_gbps_per_accelerator 400"),
    )


def test_an_ultraserver_type_is_needed_in_whole_ultraservers_and_asked_for_by_ultraserver():
    expansion = expand(needs(512, ("b200",), interconnect={"scale_up_accelerators": 72}), load_catalog())
    (gb200,) = expansion.types
    # 512 GPUs / 4 per node = 128 nodes; an u-p6e-gb200x72 is 18 of them, so 8 UltraServers = 144 nodes.
    assert (gb200.instance_type, gb200.nodes, gb200.ultraservers) == ("p6e-gb200.36xlarge", 144, 8)
    assert gb200.queries() == (
        {"InstanceType": "p6e-gb200.36xlarge", "UltraserverType": "u-p6e-gb200x72", "UltraserverCount": 8},
        {"InstanceType": "p6e-gb200.36xlarge", "UltraserverType": "u-p6e-gb200x72", "UltraserverCount": 1},
    )


def test_more_than_64_nodes_are_asked_for_as_blocks_of_64_and_the_rest():
    (p5,) = expand(needs(1000, accelerators={"count": 1000, "instance_types": ["p5.48xlarge"]}), load_catalog()).types
    assert p5.nodes == 125
    assert p5.queries() == ({"InstanceType": "p5.48xlarge", "InstanceCount": 64}, {"InstanceType": "p5.48xlarge", "InstanceCount": 61})


def test_a_type_needing_more_instances_than_the_account_may_hold_in_blocks_is_left_out():
    at_limit = expand(needs(2048, accelerators={"count": 2048, "instance_types": ["p5.48xlarge"]}), load_catalog())
    assert [need.nodes for need in at_limit.types] == [256]
    over = expand(needs(2049, accelerators={"count": 2049, "instance_types": ["p5.48xlarge"]}), load_catalog())
    assert over.types == ()
    assert over.left_out == (("p5.48xlarge", "plan.instance-limit", "257 nodes exceed the 256 instances an account may hold across Capacity Blocks"),)
    assert over.infeasible[0][0] == "plan.infeasible" and "257 nodes exceed" in over.infeasible[0][1]


def test_a_duration_that_isnt_sold_is_rounded_with_a_note_and_a_short_window_is_infeasible():
    expansion = expand(
        needs(window={"earliest_start": date(2027, 1, 4), "latest_end": date(2027, 1, 23), "duration_days": 15}),
        load_catalog(),
    )
    assert expansion.hours == 21 * 24
    assert expansion.notes == ("plan.duration-rounded: 15 days is not a Capacity Block duration; searched 21 days",)
    assert expansion.infeasible == (("plan.infeasible", "the window holds 20 days, shorter than the 21-day block the job needs"),)
