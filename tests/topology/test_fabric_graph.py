"""The merged fabric graph is the quotient of the explicit one, wired as the sizing rules say, within every radix.

Every fixture fabric (see fixtures.py for the sketches) is expanded into its
explicit graph; the tests check that merging the explicit graph's members back
by group gives exactly the merged graph, that no explicit switch uses more
ports than its radix, that the sketch's switch counts hold, and that building
and checking never modify a graph.
"""

from __future__ import annotations

import networkx as nx
import pytest

from tests.topology.factory import check, design
from tests.topology.fixtures import ALL_FABRICS
from topology.checks import blast_report, fabric_report, power_report, storage_report
from topology.expand import expand_fabric

SKETCH_SWITCHES = {
    "rail_two_tier": {"leaf": 4, "spine": 2, "core": 0},
    "rail_three_tier": {"leaf": 8, "spine": 8, "core": 4},
    "fat_tree_k4": {"leaf": 8, "spine": 8, "core": 4},
    "rail_only": {"leaf": 4, "spine": 2, "core": 0},
    "tor_single_plane": {"leaf": 3, "spine": 1, "core": 0},
    "tor_dual_plane": {"leaf": 6, "spine": 2, "core": 0},
}


def group_of(explicit: nx.Graph, node):
    """The merged node an explicit node belongs to."""
    data = explicit.nodes[node]
    return data["group"]


@pytest.mark.parametrize("name", sorted(ALL_FABRICS))
def test_merging_the_explicit_graph_by_group_gives_back_the_merged_graph(name):
    graph = design(ALL_FABRICS[name]()).fabrics[0].graph
    explicit = expand_fabric(graph)
    blocks: dict = {}
    for node in explicit:
        blocks.setdefault(group_of(explicit, node), set()).add(node)
    quotient = nx.quotient_graph(explicit, list(blocks.values()))
    merged_edges = {frozenset((group_of(explicit, next(iter(u))), group_of(explicit, next(iter(v))))) for u, v in quotient.edges}
    assert merged_edges == {frozenset(edge) for edge in graph.edges}
    assert {group: len(members) for group, members in blocks.items() if graph.nodes[group]["kind"] == "switch"} == {
        node: data["count"] for node, data in graph.nodes(data=True) if data["kind"] == "switch"
    }


@pytest.mark.parametrize("name", sorted(ALL_FABRICS))
def test_switch_counts_are_the_ones_in_the_sketch(name):
    report = check(ALL_FABRICS[name]())
    assert report.figures["fabrics"][0]["switches"] == SKETCH_SWITCHES[name]


@pytest.mark.parametrize("name", sorted(ALL_FABRICS))
def test_no_explicit_switch_uses_more_ports_than_its_radix(name):
    graph = design(ALL_FABRICS[name]()).fabrics[0].graph
    explicit = expand_fabric(graph)
    radix = graph.graph["radix"]
    for node, kind in explicit.nodes(data="kind"):
        if kind == "switch":
            assert sum(edge["links"] for edge in explicit[node].values()) <= radix, node


@pytest.mark.parametrize("name", sorted(ALL_FABRICS))
def test_every_member_of_a_group_has_the_same_links_to_every_member_of_a_neighbour_group(name):
    graph = design(ALL_FABRICS[name]()).fabrics[0].graph
    explicit = expand_fabric(graph)
    for u, v, data in graph.edges(data=True):
        if graph.nodes[u]["kind"] != "switch" or graph.nodes[v]["kind"] != "switch" or data["wiring"] != "complete":
            continue
        links = {explicit[(u, i)][(v, j)]["links"] for i in range(graph.nodes[u]["count"]) for j in range(graph.nodes[v]["count"])}
        assert links == {data["links"] // (graph.nodes[u]["count"] * graph.nodes[v]["count"])}


@pytest.mark.parametrize("name", sorted(ALL_FABRICS))
def test_checking_a_design_never_modifies_its_graphs(name):
    built = design(ALL_FABRICS[name]())
    fabrics, facility = [nx.Graph(fabric.graph) for fabric in built.fabrics], nx.DiGraph(built.facility)
    for fabric in built.fabrics:
        fabric_report(fabric)
    power_report(built), blast_report(built), storage_report(built)
    assert all(nx.utils.graphs_equal(old, fabric.graph) for old, fabric in zip(fabrics, built.fabrics, strict=True))
    assert nx.utils.graphs_equal(facility, built.facility)
