"""A pool's accelerators all reach each other, and every NIC lands on a leaf of its own rail; when not, the finding shows the islands or the rail."""

from __future__ import annotations

import networkx as nx

from tests.topology.factory import block, blueprint, check, codes, design, fabric, only, pool, rule_errors, zone
from tests.topology.fixtures import ALL_FABRICS, rail_only, rail_two_tier
from topology.connectivity import connectivity_findings, pool_components, rail_misalignments

NO_SCALE_UP = {"kind": "pcie", "domain_size": 1}


def test_every_fixture_pool_is_one_island():
    for make in ALL_FABRICS.values():
        report = check(make())
        assert not {"topology.disconnected", "topology.rail-misaligned", "topology.planes"} & set(codes(report))
        assert all(entry["connected"] for fabric in report.figures["fabrics"] for entry in fabric["pools"])


def test_rail_only_without_a_scale_up_domain_splits_the_pool_by_rail():
    """Rail-only has no switch joining rails; with one accelerator per scale-up domain nothing else joins them."""
    model = rail_only(scale_up=NO_SCALE_UP)
    assert rule_errors(model) == []
    report = check(model)
    assert [finding.code for finding in report.findings if finding.severity != "info"] == ["topology.disconnected"]
    finding = only(report, "topology.disconnected")
    assert finding.path == ("pools", 0, "fabric")
    assert "falls apart into 2 islands" in finding.message
    assert "(rails [0])" in finding.message and "(rails [1])" in finding.message
    islands = finding.certificate["components"]
    # p4d GPUs share a NIC in pairs, so each host splits into 4 parts, 2 per rail: 2 positions x 2 parts per island
    assert len(islands) == 2 and all(len(island) == 4 for island in islands)


def test_the_same_hosts_on_a_rail_optimized_clos_stay_connected_through_the_spines():
    assert "topology.disconnected" not in codes(check(rail_two_tier(scale_up=NO_SCALE_UP)))


def test_a_pool_with_fewer_nics_than_the_fabrics_rails_is_rail_misaligned():
    """trn1n (16 NICs) sets 16 rails; a p5en's 8 NICs can only cover the even ones. No blueprint rule sees this.
    (trn1n, not trn2: the factory's region is us-east-1, which doesn't sell trn2.48xlarge, so validate would refuse it.)"""
    model = blueprint(
        [zone("z", [block("b", racks=2, hosts_per_rack=2)])],
        [pool("trainium", "trn1n.32xlarge", 2, ["b"], fabric="f"), pool("h200", "p5en.48xlarge", 2, ["b"], fabric="f")],
        [fabric("f", "rail_optimized_clos", 64)],
    )
    assert rule_errors(model) == []
    report = check(model)
    finding = only(report, "topology.rail-misaligned")
    assert finding.path == ("fabrics", 0, "rails")
    assert finding.certificate["rails_without_nic"] == list(range(1, 16, 2))
    assert "pool 'h200' (p5en.48xlarge, 8 NICs)" in finding.message and "rails [1, 3, 5, 7, 9, 11, 13, 15] have none" in finding.message
    assert [pool["name"] for pool in report.figures["fabrics"][0]["pools"]] == ["trainium"]  # the misaligned pool is left off


def test_a_nic_wired_to_another_rails_leaf_is_reported_with_the_rail_and_the_leaf():
    graph = nx.Graph(design(rail_only()).fabrics[0].graph)
    endpoint = ("endpoint", "train", 0, 0)
    graph.remove_edge(endpoint, ("leaf", 0, 0, 1))
    graph.add_edge(endpoint, ("leaf", 0, 1, 1), links=4, wiring="complete", gbps=100)  # rail-1 NICs now land on position 1's leaf
    assert rail_misalignments(design(rail_only()).fabrics[0].graph) == []
    graph.nodes[endpoint]["rails"] = (0,)  # and the hosts claim only rail 0
    problems = rail_misalignments(graph)
    assert {(problem["rail"], problem["leaf"]) for problem in problems} == {(1, "rails: leaf p0/pos1 rail 1 (b1)")}
    finding = next(item for item in connectivity_findings(graph, []) if item.code == "topology.rail-misaligned")
    assert finding.certificate["rail"] == 1 and "rails: leaf p0/pos1 rail 1" in finding.message


def test_rails_that_reach_no_leaf_at_their_position_are_misaligned():
    graph = nx.Graph(design(rail_only()).fabrics[0].graph)
    graph.remove_edge(("endpoint", "train", 1, 0), ("leaf", 0, 1, 1))
    problems = rail_misalignments(graph)
    assert [(problem["rail"], problem["leaf"]) for problem in problems] == [(1, None)]
    assert "reach no rail-1 leaf at their position in 1 plane(s)" in problems[0]["problem"]


def test_components_are_listed_in_fabric_order_with_the_pools_endpoints_only():
    graph = design(rail_only(scale_up=NO_SCALE_UP)).fabrics[0].graph
    islands = pool_components(graph, "train")
    assert [sorted({graph.nodes[node]["rails"] for node in island}) for island in islands] == [[(0,)], [(1,)]]
