"""Bisection is the explicit graph's max-flow between a pool's halves.

Ports and oversubscription are read per switch and checked against the blueprint.
"""

from __future__ import annotations

import pytest

from tests.topology import reference
from tests.topology.factory import block, blueprint, check, codes, design, fabric, only, pool, zone
from tests.topology.fixtures import ALL_FABRICS, MEDIUM_FABRICS, rail_two_tier, tor_clos
from topology.bandwidth import _halves, bisection, oversubscription, switch_ports
from topology.expand import expand_fabric
from topology.fabric import pool_endpoints

SKETCH_BISECTION = {  # Gbps per accelerator of the first half
    "rail_two_tier": 50.0,  # p4d: 4 NICs x 100 Gb/s / 8 GPUs, non-blocking
    "rail_three_tier": 50.0,
    "fat_tree_k4": 100.0,  # one 100 Gb/s NIC per GPU
    "rail_only": 50.0,
    "tor_single_plane": 25.0,  # 3 hosts (12 GPUs) send 300 Gb/s: 200 up rack 0's ToR, 100 across rack 1's
    "tor_dual_plane": 50.0,
}


def assert_matches_explicit_flow(built, pool: str) -> None:
    cut = bisection(built.graph, pool)
    first = _halves(built.graph, pool_endpoints(built.graph, pool))
    assert cut.gbps == pytest.approx(reference.bisection_flow(expand_fabric(built.graph), pool, first))


@pytest.mark.parametrize("name", sorted(ALL_FABRICS))
def test_bisection_is_the_sketch_figure_and_the_explicit_max_flow(name):
    built = design(ALL_FABRICS[name]()).fabrics[0]
    pool = built.pools[0][1].name
    assert bisection(built.graph, pool).per_accelerator_gbps == pytest.approx(SKETCH_BISECTION[name])
    assert_matches_explicit_flow(built, pool)


@pytest.mark.parametrize("name", sorted(MEDIUM_FABRICS))
def test_bisection_on_the_contracted_graph_equals_the_explicit_max_flow_on_medium_fabrics(name):
    built = design(MEDIUM_FABRICS[name]()).fabrics[0]
    for _, pool_model in built.pools:
        assert_matches_explicit_flow(built, pool_model.name)


def oversubscribed(**fabric_fields):
    """12 p4d hosts with 4 rails (one NIC each), leaf 3:1 on radix 8: 6 hosts per position (4 leaves), 2 uplinks per leaf."""
    return blueprint(
        [zone("z", [block("b", racks=6, hosts_per_rack=2)])],
        [pool("p", "p4d.24xlarge", 12, ["b"], fabric="f", role="training")],
        [fabric("f", "rail_optimized_clos", 8, nics_per_accelerator=0.5, oversubscription={"leaf": 3.0}, **fabric_fields)],
    )


def test_an_oversubscribed_leaf_halves_the_bisection_and_the_finding_shows_the_cut():
    report = check(oversubscribed(min_bisection_gbps_per_accelerator=50))
    finding = only(report, "topology.bisection")
    assert finding.path == ("fabrics", 0, "min_bisection_gbps_per_accelerator")
    # the first half is position 0 (6 hosts, 48 GPUs); its 4 leaves have 2 x 100 Gb/s up each: 800 / 48 = 16.7
    assert finding.certificate["gbps_per_accelerator"] == 16.7
    assert finding.certificate["cut_gbps"] == {"leaf-spine": 800.0}
    assert finding.certificate["hosts"] == [6, 6]
    assert "the fabric asks 50" in finding.message and "{'leaf-spine': 800.0}" in finding.message


def test_a_bisection_the_fabric_meets_gives_no_finding():
    assert "topology.bisection" not in codes(check(rail_two_tier(min_bisection_gbps_per_accelerator=50)))


def test_leaf_oversubscription_is_down_over_up_ports_of_the_worst_leaf():
    graph = design(oversubscribed()).fabrics[0].graph
    ratio, node = oversubscription(graph)["leaf"]
    assert ratio == 3.0 and node[0] == "leaf"
    assert oversubscription(design(rail_two_tier()).fabrics[0].graph) == {"leaf": (1.0, ("leaf", 0, 0, 0)), "spine": None}


def dense_tor():
    """A ToR Clos rack with 8 single-NIC hosts on a radix-8 ToR declared 3:1 (6 down, 2 up)."""
    return blueprint(
        [zone("z", [block("b", racks=2, hosts_per_rack=8)])],
        [pool("p", "g6e.12xlarge", 16, ["b"], fabric="tor")],
        [fabric("tor", "tor_clos", 8, nics_per_accelerator=0.25, oversubscription={"leaf": 3.0})],
    )


def test_a_rack_too_dense_for_its_tor_breaks_the_port_budget_and_the_oversubscription():
    report = check(dense_tor())
    ports = only(report, "topology.port-budget")
    assert ports.path == ("fabrics", 0, "switch_radix")
    assert (ports.certificate["ports"], ports.certificate["down"], ports.certificate["up"], ports.certificate["radix"]) == (10, 8, 2, 8)
    assert ports.certificate["switches_over"] == 2 and "ToR p0/b/rack-0000 needs 10 ports" in ports.message
    over = only(report, "topology.oversubscription")
    assert over.path == ("fabrics", 0, "oversubscription", "leaf")
    assert over.certificate["ratio"] == 4.0 and "4.00:1" in over.message and "allows 3:1" in over.message


def test_fixture_fabrics_stay_within_radix_and_declared_oversubscription():
    for make in ALL_FABRICS.values():
        assert not {"topology.port-budget", "topology.oversubscription"} & set(codes(check(make())))


def test_switch_ports_per_member_split_into_down_and_up():
    graph = design(tor_clos()).fabrics[0].graph
    ports = {item.node: (item.down, item.up) for item in switch_ports(graph)}
    assert ports[("leaf", 0, 0, 0)] == (2, 2) and ports[("spine", 0, "all")] == (6, 0)
