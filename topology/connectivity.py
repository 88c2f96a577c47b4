"""Every pool's accelerators can reach each other, and every NIC lands on a leaf of its own rail.

A pool's accelerators talk over the fabric's switches and their own scale-up
domains, never through another pool's hosts, so connectivity is decided on the
pool's subgraph: its endpoint groups plus every switch. Merging identical
members keeps connectivity: every member of a group has links into every
group its group is joined to, and the members of a group meet at a common
neighbour group, so the explicit graph is connected exactly when the merged one is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import networkx as nx

from blueprints.findings import Finding, error
from blueprints.models.pools import Pool
from topology.fabric import FabricGraph, FabricNode, node_name, pool_endpoints

__all__ = ["pool_subgraph", "pool_components", "rail_misalignments", "connectivity_findings"]


def pool_subgraph(graph: FabricGraph, pool: str) -> FabricGraph:
    """A read-only view of the switches and `pool`'s endpoint groups."""
    return graph.subgraph(node for node, data in graph.nodes(data=True) if data["kind"] == "switch" or data.get("pool") == pool)


def pool_components(graph: FabricGraph, pool: str) -> list[list[FabricNode]]:
    """The pool's endpoint groups, grouped by connected component of its subgraph, in fabric order.

    One list means the pool is connected; the first endpoint of each list is a
    certificate that the others can't reach it.
    """
    view = pool_subgraph(graph, pool)
    endpoints = pool_endpoints(graph, pool)
    component_of: dict[FabricNode, int] = {}
    for index, component in enumerate(nx.connected_components(view)):
        for node in component:
            component_of[node] = index
    groups: dict[int, list[FabricNode]] = {}
    for endpoint in endpoints:
        groups.setdefault(component_of[endpoint], []).append(endpoint)
    return sorted(groups.values(), key=lambda group: (group[0][2], group[0][3]))


def rail_misalignments(graph: FabricGraph) -> list[dict[str, Any]]:
    """NIC ports that land on another rail's leaf, and rails of a host that reach no leaf at its position.

    Applies to rail fabrics (`rail_optimized_clos`, `rail_only`): each endpoint
    group's NICs of rail r must connect only to leaves of rail r, and to one in
    every plane. Returns one certificate dict per violation (endpoint, rail,
    leaf), in fabric order; empty when aligned.
    """
    if graph.graph["kind"] not in ("rail_optimized_clos", "rail_only"):
        return []
    found: list[dict[str, Any]] = []
    for node, data in sorted(graph.nodes(data=True), key=lambda item: str(item[0])):
        if data["kind"] != "endpoint":
            continue
        reached: dict[int, set[int]] = {}
        for leaf in graph[node]:
            leaf_data = graph.nodes[leaf]
            for rail in leaf_data["rails"]:
                if rail not in data["rails"]:
                    found.append(
                        {
                            "endpoint": node_name(graph, node),
                            "rail": rail,
                            "leaf": node_name(graph, leaf, leaf_data["rails"].index(rail)),
                            "problem": f"a leaf of rail {rail} is wired to hosts whose NICs are on rails {list(data['rails'])}",
                        }
                    )
                elif leaf_data["position"] == data["position"]:
                    reached.setdefault(rail, set()).add(leaf_data["plane"])
        for rail in data["rails"]:
            if len(reached.get(rail, ())) < graph.graph["planes"]:
                found.append(
                    {
                        "endpoint": node_name(graph, node),
                        "rail": rail,
                        "leaf": None,
                        "problem": f"the rail-{rail} NICs reach no rail-{rail} leaf at their position in "
                        f"{graph.graph['planes'] - len(reached.get(rail, ()))} plane(s)",
                    }
                )
    return found


def _describe(graph: FabricGraph, group: list[FabricNode]) -> str:
    rails = sorted({rail for node in group for rail in graph.nodes[node]["rails"]})
    return f"{node_name(graph, group[0])} (rails {rails})"


def connectivity_findings(
    graph: FabricGraph, pools: Sequence[tuple[int, Pool]], part_of: Callable[[str], FabricGraph] | None = None
) -> list[Finding]:
    """`topology.disconnected` per split pool and `topology.rail-misaligned` per miswired NIC, with certificates.

    `part_of(pool)`, when given, is the pool's part of the graph (`PoolGraphs.graph_of`), which has the same components.
    """
    fabric, index = graph.graph["name"], graph.graph["index"]
    findings: list[Finding] = []
    for pool_index, pool in pools:
        components = pool_components(part_of(pool.name) if part_of else graph, pool.name)
        if len(components) < 2:
            continue
        findings.append(
            error(
                "topology.disconnected",
                ("pools", pool_index, "fabric"),
                f"pool '{pool.name}' falls apart into {len(components)} islands on fabric '{fabric}': {_describe(graph, components[0])} "
                f"cannot reach {_describe(graph, components[1])}; no switch and no scale-up domain joins them",
                "use a fabric kind whose spines join the rails (rail_optimized_clos), or a scale-up domain that spans the host's rails",
                fabric=fabric,
                components=[[node_name(graph, node) for node in group] for group in components],
            )
        )
    violations = rail_misalignments(graph)
    for violation in violations[:1]:
        findings.append(
            error(
                "topology.rail-misaligned",
                ("fabrics", index, "rails"),
                f"fabric '{fabric}': {violation['endpoint']}: {violation['problem']}" + (f" ({violation['leaf']})" if violation["leaf"] else ""),
                "wire the NIC of rail r only to rail-r leaves, one in every plane",
                fabric=fabric,
                violations=len(violations),
                **violation,
            )
        )
    return findings
