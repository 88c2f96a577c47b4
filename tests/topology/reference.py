"""Brute-force answers on the explicit graph, to check the merged graph's figures against.

Each function here works node by node on `expand_fabric(graph)` with plain
networkx calls and no symmetry argument: all-pairs shortest paths for hops,
one max-flow for the bisection, one component count per removed switch for
blast radius. They are slow on purpose and only run on small fabrics.
"""

from __future__ import annotations

import math

import networkx as nx


def pool_view(explicit: nx.Graph, pool: str) -> nx.Graph:
    """Switches plus the pool's own host nodes (other pools don't forward our traffic)."""
    return explicit.subgraph(node for node, data in explicit.nodes(data=True) if data["kind"] == "switch" or data.get("pool") == pool)


def _host(node) -> tuple:
    """A host's identity: (pool, position, host index); the parts of one host share it."""
    group = node[1]
    return group[1], group[2], node[2]


def _cost(explicit: nx.Graph, node) -> float:
    data = explicit.nodes[node]
    return 1 if data["kind"] == "switch" else (data["hop_cost"] if data["kind"] == "scaleup" else 0)


def all_pairs_hops(explicit: nx.Graph, pool: str) -> tuple[int, int]:
    """(worst same-rail, worst cross-rail) switch count over every pair of NICs on distinct hosts."""
    view = pool_view(explicit, pool)
    nics = [node for node, kind in view.nodes(data="kind") if kind == "nic"]

    def weight(u, v, _):
        return (_cost(view, u) + _cost(view, v)) / 2

    same = cross = 0
    for source in nics:
        lengths = nx.single_source_dijkstra_path_length(view, source, weight=weight)
        for target in nics:
            if _host(target) == _host(source):
                continue
            hops = lengths.get(target, math.inf)
            if view.nodes[source]["rail"] == view.nodes[target]["rail"]:
                same = max(same, hops)
            else:
                cross = max(cross, hops)
    rails = {view.nodes[node]["rail"] for node in nics}
    return int(same), int(cross if len(rails) > 1 else same)


def bisection_flow(explicit: nx.Graph, pool: str, first_half: dict) -> float:
    """Max-flow (Gbps) from the first hosts of each endpoint group (`first_half[group]` of them) to the others."""
    view = pool_view(explicit, pool)
    network = nx.DiGraph()
    for u, v, data in view.edges(data=True):
        capacity = {"capacity": data["links"] * data["gbps"]} if "links" in data else {}
        network.add_edge(u, v, **capacity)
        network.add_edge(v, u, **capacity)
    for node, kind in view.nodes(data="kind"):
        if kind == "scaleup":
            group, host = node[1], node[2]
            if host < first_half[group]:
                network.add_edge("source", node)
            else:
                network.add_edge(node, "sink")
    return nx.maximum_flow_value(network, "source", "sink")


def accelerators_down(explicit: nx.Graph, pool: str, removed) -> int:
    """Accelerators of `pool` outside the largest group that still reach each other once `removed` fails."""
    view = pool_view(explicit, pool)
    kept = view.subgraph(node for node in view if node != removed)
    total = sum(1 for _, kind in view.nodes(data="kind") if kind == "accelerator")
    largest = max(
        (sum(1 for node in component if kept.nodes[node]["kind"] == "accelerator") for component in nx.connected_components(kept)), default=0
    )
    return total - largest
