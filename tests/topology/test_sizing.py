"""The closed formulas of `blueprints.fabric_math` hold on the graphs the checker builds.

Each test builds a fabric, counts in the merged graph (and, where it is small,
the explicit one), and compares with the formula: the k-ary fat tree's k^3/4
hosts and 5k^2/4 switches, the port split, the Clos capacities, the smallest
even striping, the NIC-to-rail mapping and the Clos diameter.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from blueprints import fabric_math
from tests.topology.factory import block, blueprint, check, codes, design, fabric, pool, rule_errors, zone
from tests.topology.fixtures import fat_tree, rail_three_tier, rail_two_tier
from topology.expand import expand_fabric, expanded_size
from topology.hops import worst_case_hops

CATALOG_COUNTS = {"p5en.48xlarge": 8, "p4d.24xlarge": 8, "trn2.48xlarge": 16}


def switch_count(graph) -> int:
    return sum(data["count"] for _, data in graph.nodes(data=True) if data["kind"] == "switch")


def used_ports(explicit, node) -> int:
    return sum(edge.get("links", 0) for edge in explicit[node].values())


@pytest.mark.parametrize("k", [4, 8, 48])
def test_k_ary_fat_tree_has_k_cubed_over_4_hosts_on_5_k_squared_over_4_switches(k):
    built = design(fat_tree(k)).fabrics[0]
    hosts = sum(data["count"] for _, data in built.graph.nodes(data=True) if data["kind"] == "endpoint")
    assert hosts == fabric_math.fat_tree_endpoints(k) == k**3 // 4
    assert switch_count(built.graph) == fabric_math.fat_tree_switches(k) == 5 * k**2 // 4
    assert built.plan.tiers == 3 and built.plan.pods == k


@pytest.mark.parametrize("k", [4, 8])
def test_every_switch_of_a_full_fat_tree_uses_all_k_ports_in_the_explicit_graph(k):
    explicit = expand_fabric(design(fat_tree(k)).fabrics[0].graph)
    switches = [node for node, kind in explicit.nodes(data="kind") if kind == "switch"]
    hosts = [node for node, kind in explicit.nodes(data="kind") if kind == "scaleup"]
    assert len(switches) == 5 * k**2 // 4 and len(hosts) == k**3 // 4
    assert {used_ports(explicit, node) for node in switches} == {k}


@pytest.mark.parametrize("oversubscription", [0.25, 0.5, 1.0, 2.0, 3.0, 7.0])  # below 1: more uplinks than host links
def test_leaf_ports_split_by_the_declared_oversubscription(oversubscription):
    model = blueprint(
        [zone("z", [block("b", racks=4, hosts_per_rack=8)])],
        [pool("p", "g6e.8xlarge", 32, ["b"], fabric="f")],
        [fabric("f", "rail_optimized_clos", 16, oversubscription={"leaf": oversubscription})],
    )
    explicit = expand_fabric(design(model).fabrics[0].graph)
    down, up = fabric_math.port_split(16, oversubscription)
    full_leaf = next(node for node, data in explicit.nodes(data=True) if data.get("tier") == "leaf")
    to_hosts = sum(edge["links"] for other, edge in explicit[full_leaf].items() if explicit.nodes[other]["kind"] == "nic")
    to_spines = sum(edge["links"] for other, edge in explicit[full_leaf].items() if explicit.nodes[other]["kind"] == "switch")
    assert (to_hosts, to_spines) == (down, up)


def one_nic_clos(hosts: int, tiers: int, **fields):
    """`hosts` single-NIC hosts in one block on a radix-8 rail-optimized Clos with one rail."""
    return blueprint(
        [zone("z", [block("b", racks=hosts, hosts_per_rack=1)])],
        [pool("p", "g6e.8xlarge", hosts, ["b"], fabric="f")],
        [fabric("f", "rail_optimized_clos", 8, tiers=tiers, **fields)],
    )


@pytest.mark.parametrize("tiers", [2, 3])
def test_clos_max_endpoints_is_exactly_what_fits_within_the_radix(tiers):
    room = fabric_math.clos_max_endpoints(fabric_math.uniform_tier_shapes(8, tiers), tiers)
    assert "topology.port-budget" not in codes(check(one_nic_clos(room, tiers)))
    assert "topology.port-budget" in codes(check(one_nic_clos(room + 1, tiers)))


@pytest.mark.parametrize(("tiers", "joined"), [(2, "spine"), (3, "spine"), (3, "core")])
def test_planes_joined_above_the_leaves_hold_one_planes_worth_of_hosts(tiers, joined):
    """Two planes (a port of each host on each) whose spines or cores are one shared layer: that layer's ports are
    shared by both planes, so the fabric holds the hosts of one unjoined plane, and one host more overflows its top
    tier (a spine tier joined under cores makes twice the pods, which the cores then can't all reach)."""
    planes = {"planes": 2, "ports_per_nic": 2, joined: {"planes": 1}}
    shapes = fabric_math.uniform_tier_shapes(8, tiers)
    room = fabric_math.clos_max_endpoints(shapes, tiers)
    assert room == fabric_math.fabric_max_endpoints("rail_optimized_clos", shapes, 8, tiers, 1, 1)
    hosts = room // 2  # each host puts a port on each plane
    fits, over = one_nic_clos(hosts, tiers, **planes), one_nic_clos(hosts + 1, tiers, **planes)
    assert "topology.port-budget" not in codes(check(fits)) and "fabric.too-small" not in rule_errors(fits)
    overflowing = [finding.certificate["tier"] for finding in check(over).findings if finding.code == "topology.port-budget"]
    assert overflowing == [("spine", "core")[tiers - 2]] and "fabric.too-small" in rule_errors(over)
    # Unjoined, the same hosts fit twice over: each plane has a top tier of its own.
    unjoined = one_nic_clos(2 * hosts, tiers, planes=2, ports_per_nic=2)
    assert "topology.port-budget" not in codes(check(unjoined)) and "fabric.too-small" not in rule_errors(unjoined)


def test_a_spine_that_joins_two_planes_is_striped_over_the_leaves_of_both():
    """8 leaves (4 a plane) of 4 uplinks under spines of 8 ports: per plane that is 2 spines; joined, 4 spines
    reach all 8 leaves with one link from each, and a leaf of each plane meets a leaf of the other at a spine."""
    joined = one_nic_clos(16, 2, planes=2, ports_per_nic=2, oversubscription={"leaf": 1.0}, spine={"planes": 1})
    built = design(joined).fabrics[0]
    explicit = expand_fabric(built.graph)
    leaves = [node for node, data in explicit.nodes(data=True) if data.get("tier") == "leaf"]
    spines = [node for node, data in explicit.nodes(data=True) if data.get("tier") == "spine"]
    assert (len(leaves), len(spines)) == (8, 4) == (len(leaves), fabric_math.spine_count(8, 4, 8))
    assert {explicit[leaf][spine]["links"] for leaf in leaves for spine in spines} == {1}
    assert {used_ports(explicit, spine) for spine in spines} == {8}
    separate = design(one_nic_clos(16, 2, planes=2, ports_per_nic=2, oversubscription={"leaf": 1.0})).fabrics[0]
    assert (separate.plan.spines, switch_count(separate.graph) - 8) == (2, 4)  # 2 spines in each of the 2 planes
    [figures] = check(joined).figures["fabrics"]
    assert [figures["tier_ports"][tier]["planes"] for tier in ("leaf", "spine")] == [2, 1]


def test_spine_count_is_the_smallest_even_striping_and_every_leaf_reaches_every_spine_equally():
    built = design(rail_two_tier()).fabrics[0]
    explicit = expand_fabric(built.graph)
    leaves = [node for node, data in explicit.nodes(data=True) if data.get("tier") == "leaf"]
    spines = [node for node, data in explicit.nodes(data=True) if data.get("tier") == "spine"]
    assert len(spines) == fabric_math.spine_count(len(leaves), 4, 8) == 2
    assert {explicit[leaf][spine]["links"] for leaf in leaves for spine in spines} == {2}
    assert all(len(leaves) * 4 / smaller > 8 for smaller in range(1, len(spines)) if 4 % smaller == 0)


def test_three_tier_pods_spines_and_core_groups_follow_the_striping_rules():
    built = design(rail_three_tier()).fabrics[0]
    plan, explicit = built.plan, expand_fabric(built.graph)
    assert (plan.pods, plan.pod_spines, plan.core_group) == (2, 4, 1)
    assert plan.pod_spines == fabric_math.pod_spine_count(4, 4, 4)
    assert plan.core_group == fabric_math.core_group_size(2, 4, 8)
    cores = [node for node, data in explicit.nodes(data=True) if data.get("tier") == "core"]
    # core j hears from spine j of each pod, with spine_up / group = 4 links each
    for core in cores:
        assert sorted((neighbour[0][3], neighbour[1], edge["links"]) for neighbour, edge in explicit[core].items()) == [
            (0, core[1], 4),
            (1, core[1], 4),
        ]


@pytest.mark.parametrize(
    "instance, nics_per_accelerator, rails", [("p5en.48xlarge", 2, 8), ("p5en.48xlarge", 2, 16), ("p4d.24xlarge", 0.5, 4), ("trn2.48xlarge", 1, 8)]
)
def test_each_accelerator_sends_through_the_nics_of_the_rails_the_formula_gives(instance, nics_per_accelerator, rails):
    model = blueprint(
        [zone("z", [block("b", racks=1, hosts_per_rack=2)])],
        [pool("p", instance, 2, ["b"], fabric="f")],
        [fabric("f", "rail_optimized_clos", 64, nics_per_accelerator=nics_per_accelerator, rails=rails)],
    )
    explicit = expand_fabric(design(model).fabrics[0].graph)
    accelerators = CATALOG_COUNTS[instance]
    nics = int(accelerators * nics_per_accelerator)
    expected = fabric_math.accelerator_rails(accelerators, nics, rails)
    for node, kind in explicit.nodes(data="kind"):
        if kind == "accelerator":
            found = {explicit.nodes[nic]["rail"] for nic in explicit[node] if explicit.nodes[nic]["kind"] == "nic"}
            assert found == set(expected[node[3]])
        if kind == "nic":
            leaf_rails = {explicit.nodes[leaf]["rail"] for leaf in explicit[node] if explicit.nodes[leaf]["kind"] == "switch"}
            assert leaf_rails == {explicit.nodes[node]["rail"]}


@pytest.mark.parametrize("make, tiers", [(rail_two_tier, 2), (rail_three_tier, 3), (fat_tree, 3)])
def test_clos_diameter_is_two_tiers_minus_one_switches(make, tiers):
    built = design(make()).fabrics[0]
    hops = worst_case_hops(built.graph, built.pools[0][1].name)
    assert hops.same_rail == fabric_math.clos_diameter_hops(tiers)


def test_the_expanded_size_formula_counts_the_explicit_graph():
    for make in (rail_two_tier, rail_three_tier, fat_tree):
        graph = design(make()).fabrics[0].graph
        explicit = expand_fabric(graph)
        assert expanded_size(graph) == (explicit.number_of_nodes(), explicit.number_of_edges())


def test_a_one_tier_rail_only_fabric_puts_every_host_on_one_leaf_per_rail():
    """rail_only with `tiers: 1`: 4 p4d hosts x 2 ports per rail fill a radix-8 rail switch; a fifth overflows it."""

    def rail_switches(hosts):
        model = blueprint(
            [zone("z", [block("b", racks=3, hosts_per_rack=2)])],
            [pool("p", "p4d.24xlarge", hosts, ["b"], fabric="f")],
            [fabric("f", "rail_only", 8, nics_per_accelerator=0.5, rails=2, tiers=1)],
        )
        return model, design(model).fabrics[0]

    model, built = rail_switches(4)
    assert (built.plan.tiers, len(built.plan.positions), switch_count(built.graph)) == (1, 1, 2)
    assert "topology.port-budget" not in codes(check(model))
    model, built = rail_switches(5)
    assert len(built.plan.positions) == 1 and "topology.port-budget" in codes(check(model))


def test_a_leaf_tier_with_more_uplinks_than_host_links_is_built_and_measured_as_declared():
    # 0.5:1 (twice the uplinks), as designs with faster or more spine links than host links have: the leaves
    # take half as many hosts, so there are twice as many, and none is over the declared ratio.
    def built(leaf: float):
        return blueprint(
            [zone("z", [block("b", racks=4, hosts_per_rack=8)])],
            [pool("p", "g6e.8xlarge", 32, ["b"], fabric="f")],
            [fabric("f", "rail_optimized_clos", 16, oversubscription={"leaf": leaf})],
        )

    half, even = check(built(0.5)), check(built(1.0))
    assert "topology.oversubscription" not in codes(half)
    [fabric_figures] = half.figures["fabrics"]
    assert fabric_figures["oversubscription"]["leaf"] <= 0.5
    assert fabric_figures["switches"]["leaf"] > even.figures["fabrics"][0]["switches"]["leaf"]


def test_an_oversubscription_below_an_eighth_is_a_schema_error():
    with pytest.raises(ValidationError, match="oversubscription.leaf"):
        blueprint(
            [zone("z", [block("b", racks=1, hosts_per_rack=8)])],
            [pool("p", "g6e.8xlarge", 8, ["b"], fabric="f")],
            [fabric("f", "rail_optimized_clos", 16, oversubscription={"leaf": 0.1})],
        )


def test_a_leaf_faster_than_its_hosts_breaks_its_down_ports_out_and_fills_exactly_its_radix():
    """8 ports of 200G, 2 up: 6 down ports break out into 12 host links of 100G; a full leaf uses 12 / 2 + 2 = 8 ports."""
    model = blueprint(
        [zone("z", [block("b", racks=6, hosts_per_rack=4)])],
        [pool("p", "g6e.8xlarge", 24, ["b"], fabric="f")],
        [fabric("f", "rail_optimized_clos", 8, link_gbps=100, leaf={"uplink_gbps": 200, "uplinks": 2}, tiers=2)],
    )
    built = design(model).fabrics[0]
    explicit = expand_fabric(built.graph)
    leaves = [node for node, data in explicit.nodes(data=True) if data.get("tier") == "leaf"]
    assert len(leaves) == 2  # 24 hosts at 12 a leaf
    for leaf in leaves:
        hosts = sum(edge["links"] for other, edge in explicit[leaf].items() if explicit.nodes[other]["kind"] == "nic")
        up = [edge for other, edge in explicit[leaf].items() if explicit.nodes[other]["kind"] == "switch"]
        assert (hosts, sum(edge["links"] for edge in up), {edge["gbps"] for edge in up}) == (12, 2, {200})
    report = check(model)
    assert "topology.port-budget" not in codes(report)
    # Bandwidth down (12 x 100G) over up (2 x 200G): 3, the split the stated uplinks give (6 ports down : 2 up).
    [figures] = report.figures["fabrics"]
    assert figures["oversubscription"]["leaf"] == 3.0 and "topology.oversubscription" not in codes(report)


def test_each_tier_keeps_its_own_radix():
    """Leaves of 8 ports under spines of 32: the spine layer is sized by the spines' radix, not the leaves'."""
    model = blueprint(
        [zone("z", [block("b", racks=16, hosts_per_rack=4)])],
        [pool("p", "g6e.8xlarge", 64, ["b"], fabric="f")],
        [fabric("f", "rail_optimized_clos", 8, spine={"radix": 32}, tiers=2)],
    )
    built = design(model).fabrics[0]
    # 64 hosts at 4 a leaf: 16 leaves of 4 uplinks; spines of 32 ports: the fewest even striping is 2 spines.
    assert (built.plan.spines, built.plan.tier_shapes["spine"].radix) == (2, 32)
    assert "topology.port-budget" not in codes(check(model))


@pytest.mark.parametrize(("oversubscription", "tiers"), [(1.0, 2), (3.0, 2), (1.0, 3), (3.0, 3)])
def test_provisioned_bisection_is_the_max_flow_of_the_same_fabric_full(oversubscription, tiers):
    """Every leaf full (hosts on all its down ports) and the halves on leaf boundaries: the closed form equals the max-flow.

    Radix 8: a leaf takes 4 hosts at 1:1 or 6 at 3:1; 8 leaves in 4 blocks (two pods of 2 blocks with three tiers).
    """
    per_leaf = 6 if oversubscription == 3.0 else 4
    model = blueprint(
        [zone("z", [block(f"b{index}", racks=2, hosts_per_rack=per_leaf) for index in range(4)])],
        [pool("p", "g6e.8xlarge", 8 * per_leaf, ["z"], spread="blocks", fabric="f")],
        [fabric("f", "rail_optimized_clos", 8, oversubscription={"leaf": oversubscription, "spine": 1.0}, tiers=tiers)],
    )
    [figures] = check(model).figures["fabrics"]
    assert figures["switches"]["leaf"] == 8
    assert figures["bisection_provisioned_tbps"] == figures["bisection_tbps"]
