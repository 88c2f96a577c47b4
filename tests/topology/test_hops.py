"""Worst-case switch hops per pool equal the all-pairs answer on the explicit graph, and a bound the pool breaks is a finding."""

from __future__ import annotations

import pytest

from tests.topology import reference
from tests.topology.factory import check, codes, design, only
from tests.topology.fixtures import ALL_FABRICS, MEDIUM_FABRICS, rail_only, rail_three_tier, rail_two_tier
from topology.expand import expand_fabric
from topology.hops import worst_case_hops

SKETCH_HOPS = {  # (same rail, cross rail), read off each fixture's sketch
    "rail_two_tier": (3, 3),  # leaf > spine > leaf, on both
    "rail_three_tier": (5, 5),  # leaf > spine > core > spine > leaf between pods
    "fat_tree_k4": (5, 5),  # no rails: cross = same
    "rail_only": (3, 4),  # cross-rail crosses NVLink (1) first
    "tor_single_plane": (3, 3),
    "tor_dual_plane": (3, 3),
}


@pytest.mark.parametrize("name", sorted(ALL_FABRICS))
def test_hops_are_the_ones_in_the_sketch_and_the_explicit_all_pairs_answer(name):
    built = design(ALL_FABRICS[name]()).fabrics[0]
    pool = built.pools[0][1].name
    hops = worst_case_hops(built.graph, pool)
    assert (hops.same_rail, hops.cross_rail) == SKETCH_HOPS[name]
    assert (hops.same_rail, hops.cross_rail) == reference.all_pairs_hops(expand_fabric(built.graph), pool)


@pytest.mark.parametrize("name", sorted(MEDIUM_FABRICS))
def test_one_search_from_the_first_position_finds_the_worst_pair_on_medium_fabrics(name):
    built = design(MEDIUM_FABRICS[name]()).fabrics[0]
    explicit = expand_fabric(built.graph)
    for _, pool in built.pools:
        hops = worst_case_hops(built.graph, pool.name)
        assert (hops.same_rail, hops.cross_rail) == reference.all_pairs_hops(explicit, pool.name)


@pytest.mark.parametrize("scale_up, cross", [({"kind": "nvlink"}, 4), ({"kind": "neuronlink"}, 3), ({"kind": "pcie"}, 4)])
def test_rail_only_cross_rail_hops_add_the_scale_up_domains_switch(scale_up, cross):
    built = design(rail_only(scale_up=scale_up)).fabrics[0]
    assert worst_case_hops(built.graph, "train").cross_rail == cross
    assert reference.all_pairs_hops(expand_fabric(built.graph), "train")[1] == cross


def test_a_pool_on_one_leaf_position_crosses_one_switch_on_a_rail_and_nvlink_across():
    built = design(rail_two_tier(hosts=2)).fabrics[0]
    hops = worst_case_hops(built.graph, "train")
    assert (hops.same_rail, hops.cross_rail) == (1, 2) == reference.all_pairs_hops(expand_fabric(built.graph), "train")


def test_a_pool_of_one_host_has_no_pair_and_no_figure():
    assert worst_case_hops(design(rail_two_tier(hosts=1)).fabrics[0].graph, "train") is None


def test_a_pool_breaking_its_same_rail_bound_names_the_pair_and_the_route():
    report = check(rail_three_tier(max_switch_hops={"same_rail": 3, "cross_rail": 5}))
    finding = only(report, "topology.hops")
    assert finding.path == ("fabrics", 0, "max_switch_hops", "same_rail")
    pair = finding.certificate["pair"]
    assert finding.certificate["hops"] == 5 and finding.certificate["bound"] == 3
    assert (pair["from"]["position"], pair["to"]["position"], pair["from"]["rail"], pair["to"]["rail"]) == (0, 2, 0, 0)
    assert [switch.split(": ")[1].split(" ")[0] for switch in pair["switches"]] == ["leaf", "spine", "core", "spine", "leaf"]
    assert "needs 5 switch hops" in finding.message and "max_switch_hops.same_rail is 3" in finding.message


def test_cross_rail_bound_on_rail_only_fires_through_the_scale_up_domain():
    report = check(rail_only(max_switch_hops={"same_rail": 3, "cross_rail": 3}))
    finding = only(report, "topology.hops")
    assert finding.path == ("fabrics", 0, "max_switch_hops", "cross_rail")
    assert finding.certificate["hops"] == 4 and finding.certificate["pair"]["route"].startswith("scale-up")


def test_bounds_the_pool_meets_give_no_finding():
    assert "topology.hops" not in codes(check(rail_only(max_switch_hops={"same_rail": 3, "cross_rail": 4})))
    assert "topology.hops" not in codes(check(rail_two_tier(max_switch_hops={"same_rail": 3, "cross_rail": 3})))
