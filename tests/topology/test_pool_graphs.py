"""A pool's part of the fabric gives exactly the figures the whole fabric gives, for fabrics shared by many pools.

`PoolGraphs.graph_of(pool)` drops the switches no path between the pool's
endpoints can use, so the per-pool checks cost what the pool costs. These
tests hold it to the whole-graph answer (connectivity, hops, bisection with
its cut, switch outages) on seeded random fabrics carved into several
interleaved pools, check the whole-graph answers on the same designs against
the explicit graph, and show on a sketch what is dropped.
"""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from tests.topology.factory import block, blueprint, design, fabric, pool, rule_errors, zone
from tests.topology.test_random_fabrics import HOSTS, assert_figures_match_the_explicit_graph, random_fabric_fields
from topology.bandwidth import bisection
from topology.blast import switch_outages
from topology.connectivity import pool_components
from topology.hops import worst_case_hops


def shared_fabric(rng: random.Random):
    """A rule-clean blueprint whose racks hold 3-6 small pools dealt over them (spread: racks), or None to draw again."""
    kind = rng.choice(["rail_optimized_clos", "rail_only", "fat_tree", "tor_clos"])
    instance, nic_choices = rng.choice(HOSTS)
    fields = random_fabric_fields(rng, kind)
    fields["nics_per_accelerator"] = rng.choice(nic_choices)
    blocks = [block(f"b{index}", racks=rng.randint(2, 5), hosts_per_rack=rng.randint(2, 4)) for index in range(rng.choice([1, 2, 3]))]
    slots = sum(item["racks"] * item["hosts_per_rack"] for item in blocks)
    pools, left = [], slots
    for index in range(rng.randint(3, 6)):
        if left < 1:
            break
        size = rng.randint(1, min(left, 5))
        pools.append(pool(f"p{index}", instance, size, ["z1"], spread=rng.choice(["racks", "racks", "packed", "blocks"]), fabric="f"))
        left -= size
    try:
        model = blueprint([zone("z1", blocks)], pools, [fabric("f", kind, rng.choice([4, 6, 8, 12, 16]), **fields)])
    except ValidationError:
        return None
    return None if rule_errors(model) else model


def shared_cases(count: int, seed: int = 20261124):
    rng, found = random.Random(seed), []
    while len(found) < count:
        model = shared_fabric(rng)
        if model is not None and len(design(model).fabrics) == 1:
            found.append(model)
    return found


CASES = shared_cases(60)


def _cut(cut):
    return (
        None
        if cut is None
        else (
            round(cut.gbps, 6),
            round(cut.per_accelerator_gbps, 6),
            cut.hosts,
            cut.accelerators,
            {key: round(value, 6) for key, value in cut.cut_gbps.items()},
        )
    )


def _hops(hops):
    return None if hops is None else (hops.same_rail, hops.cross_rail, hops.same_rail_pair, hops.cross_rail_pair)


@pytest.mark.parametrize("model", CASES, ids=lambda model: f"{model.fabrics[0].kind}-{len(model.pools)}-pools")
def test_every_figure_of_a_pool_part_equals_the_whole_fabric(model):
    built = design(model).fabrics[0]
    for _, pool_model in built.pools:
        name, part = pool_model.name, built.parts.graph_of(pool_model.name)
        assert pool_components(part, name) == pool_components(built.graph, name)
        if len(pool_components(built.graph, name)) == 1:
            assert _hops(worst_case_hops(part, name)) == _hops(worst_case_hops(built.graph, name))
            assert _cut(bisection(part, name)) == _cut(bisection(built.graph, name))
        assert switch_outages(part, name) == switch_outages(built.graph, name)


@pytest.mark.parametrize("model", CASES, ids=lambda model: f"{model.fabrics[0].kind}-{len(model.pools)}-pools")
def test_a_pool_that_takes_a_cut_already_found_gets_the_cut_of_its_own_max_flow(model):
    # The pools of a fabric in order, sharing one memo as `fabric_report` does: each answer equals the pool's own max-flow.
    built, shared = design(model).fabrics[0], {}
    for _, pool_model in built.pools:
        name, part = pool_model.name, built.parts.graph_of(pool_model.name)
        if len(pool_components(part, name)) == 1:
            assert _cut(bisection(part, name, shared)) == _cut(bisection(part, name)) == _cut(bisection(built.graph, name))


def test_pools_laid_over_the_fabric_the_same_way_share_one_max_flow():
    # One block of 4 racks of 3 p5en hosts on a rail-optimized Clos (one leaf group); pools a and b take one host in each
    # rack (spread: racks), c takes 2 hosts packed. a and b attach to the fabric alike (4 hosts, halves 2 and 2): one
    # max-flow for both, and c its own. Each pool's figures are still its own max-flow's, checked against the whole graph.
    pools = [pool(name, "p5en.48xlarge", 4, ["z1"], spread="racks", fabric="f") for name in "ab"]
    pools.append(pool("c", "p5en.48xlarge", 2, ["z1"], fabric="f"))
    model = blueprint([zone("z1", [block("b0", racks=4, hosts_per_rack=3)])], pools, [fabric("f", "rail_optimized_clos", 16, nics_per_accelerator=1)])
    built, shared = design(model).fabrics[0], {}
    found = {name: bisection(built.parts.graph_of(name), name, shared) for name in "abc"}
    assert len(shared) == 2
    assert all(_cut(found[name]) == _cut(bisection(built.graph, name)) for name in "abc")
    assert (found["a"].hosts, found["a"].accelerators, found["c"].hosts) == ((2, 2), (16, 16), (1, 1))


@pytest.mark.parametrize("model", CASES[:25], ids=lambda model: f"{model.fabrics[0].kind}-{len(model.pools)}-pools")
def test_shared_fabrics_figures_equal_the_explicit_graphs(model):
    # The whole-graph answers the parts are held to are themselves the brute-force answers on these designs.
    assert_figures_match_the_explicit_graph(design(model).fabrics[0])


def test_a_pool_inside_one_pod_keeps_its_pod_and_nothing_above_or_beside_it():
    #                 core
    #          ┌───────┴───────┐
    #    spine pod 0      spine pod 1
    #     ┌────┴────┐      ┌────┴────┐
    #   leaf 0   leaf 1  leaf 2   leaf 3      (radix 4: two hosts per leaf, two leaves per pod)
    #   near     near     far      far
    # No path between two of near's hosts leaves pod 0, so its part is pod 0's leaves and spine;
    # far's is pod 1's. Each keeps its own endpoints only.
    model = blueprint(
        [zone("z1", [block("b0", racks=8, hosts_per_rack=1)])],
        [pool("near", "p4d.24xlarge", 4, ["z1"], fabric="f"), pool("far", "p4d.24xlarge", 4, ["z1"], fabric="f")],
        [fabric("f", "rail_optimized_clos", 4, nics_per_accelerator=0.125, rails=1, tiers=3)],
    )
    built = design(model).fabrics[0]
    assert ("core", 0) in built.graph
    assert set(built.parts.graph_of("near")) == {
        ("endpoint", "near", 0, 0),
        ("endpoint", "near", 1, 0),
        ("leaf", 0, 0, 0),
        ("leaf", 0, 1, 0),
        ("spine", 0, "pod", 0),
    }
    assert set(built.parts.graph_of("far")) == {
        ("endpoint", "far", 2, 0),
        ("endpoint", "far", 3, 0),
        ("leaf", 0, 2, 0),
        ("leaf", 0, 3, 0),
        ("spine", 0, "pod", 1),
    }


def _switch(graph, node, tier):
    graph.add_node(node, kind="switch", tier=tier, count=1, plane=0)


def test_switches_on_a_cycle_are_kept_and_dead_ends_off_it_are_dropped():
    #   x2 ─ x1 ─ spine s0 ─┬─ leaf 0 ─ a        (the leaves and two spines form cycles: the 2-core)
    #             spine s1 ─┼─ leaf 1 ─ a
    #                       ├─ leaf 2 ─ b
    #                       └─ leaf 3 ─ b
    # Today's fabric kinds give a forest of switches; a design with cycles among them keeps the
    # whole cycle, and the figures still equal the whole graph's.
    import networkx as nx

    from topology.pool_graphs import PoolGraphs

    graph = nx.Graph(link_gbps=100, name="f", index=0, kind="fat_tree", planes=1)
    for spine in ("s0", "s1"):
        _switch(graph, ("spine", 0, spine), "spine")
    for position, owner in enumerate("aabb"):
        leaf = ("leaf", 0, position, 0)
        _switch(graph, leaf, "leaf")
        endpoint = ("endpoint", owner, position, 0)
        graph.add_node(
            endpoint,
            kind="endpoint",
            pool=owner,
            count=2,
            accelerators=8,
            rails=(0,),
            position=position,
            block="b0",
            part=0,
            hop_cost=0,
            scale_up=None,
        )
        graph.add_edge(endpoint, leaf, links=2, gbps=100)
        for spine in ("s0", "s1"):
            graph.add_edge(leaf, ("spine", 0, spine), links=1, gbps=100)
    _switch(graph, ("x", 1), "spine")
    _switch(graph, ("x", 2), "spine")
    graph.add_edge(("spine", 0, "s0"), ("x", 1), links=1, gbps=100)
    graph.add_edge(("x", 1), ("x", 2), links=1, gbps=100)
    parts = PoolGraphs(graph)
    kept = parts.nodes_of("a")
    assert {("spine", 0, "s0"), ("spine", 0, "s1"), ("leaf", 0, 2, 0), ("leaf", 0, 3, 0)} <= kept
    assert not kept & {("x", 1), ("x", 2), ("endpoint", "b", 2, 0)}
    for name in "ab":
        part = parts.graph_of(name)
        assert _cut(bisection(part, name)) == _cut(bisection(graph, name))
        assert switch_outages(part, name) == switch_outages(graph, name)
        assert pool_components(part, name) == pool_components(graph, name)
