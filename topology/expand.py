"""The explicit fabric graph: every switch, host, accelerator and NIC of a merged fabric graph.

`expand_fabric` undoes the merging of `topology.fabric`: a group of `count`
members becomes `count` nodes, and every edge between two groups becomes the
uniform wiring it stands for. Each host (one scale-up part of it) becomes

* a ``scaleup`` node: the NVLink / NeuronLink / PCIe domain, which a packet
  crosses at a cost of `hop_cost` switches;
* one ``accelerator`` node per accelerator of the part, joined to the scale-up node;
* one ``nic`` node per rail (the part's NICs of that rail, with its `rail_ports`
  ports to the rail's leaf in every plane), joined to the accelerators that send through it.

It is the reference the tests check the merged graph's figures against, and a
way to look at a small design node by node. It grows with the cluster, so the
checker itself never builds it.
"""

from __future__ import annotations

from typing import TypeAlias

import networkx as nx

from topology.fabric import FabricGraph, FabricNode

ExplicitNode: TypeAlias = tuple[FabricNode | str | int, ...]
"""(group, i) for a switch; ("scaleup" | "nic" | "accelerator", endpoint group, host, ...) for a host's parts."""
ExplicitGraph: TypeAlias = "nx.Graph[ExplicitNode]"

__all__ = ["expand_fabric", "expanded_size", "member_nodes"]


def member_nodes(graph: FabricGraph, group: FabricNode) -> list[tuple[FabricNode, int]]:
    """The explicit nodes a merged switch group stands for: (group, 0) ... (group, count - 1)."""
    return [(group, member) for member in range(graph.nodes[group]["count"])]


def _add_members(explicit: ExplicitGraph, graph: FabricGraph) -> None:
    for node, data in graph.nodes(data=True):
        if data["kind"] == "switch":
            for member in range(data["count"]):
                rail = data["rails"][member] if data["tier"] == "leaf" and len(data["rails"]) == data["count"] else None
                explicit.add_node((node, member), kind="switch", tier=data["tier"], group=node, rail=rail)
            continue
        for host in range(data["count"]):
            scale_up = ("scaleup", node, host)
            explicit.add_node(scale_up, kind="scaleup", hop_cost=data["hop_cost"], pool=data["pool"], group=node)
            for rail in data["rails"]:
                explicit.add_node(("nic", node, host, rail), kind="nic", rail=rail, pool=data["pool"], group=node)
            for accelerator, rails in enumerate(data["accelerator_rails"]):
                explicit.add_edge(("accelerator", node, host, accelerator), scale_up)
                explicit.nodes[("accelerator", node, host, accelerator)].update(kind="accelerator", pool=data["pool"], group=node)
                for rail in rails:
                    explicit.add_edge(("accelerator", node, host, accelerator), ("nic", node, host, rail))


def _add_wiring(explicit: ExplicitGraph, graph: FabricGraph) -> None:
    for u, v, data in graph.edges(data=True):
        if graph.nodes[u]["kind"] == "endpoint" or graph.nodes[v]["kind"] == "endpoint":
            endpoint, leaf = (u, v) if graph.nodes[u]["kind"] == "endpoint" else (v, u)
            ports = dict(graph.nodes[endpoint]["rail_ports"])
            for host in range(graph.nodes[endpoint]["count"]):
                for member, rail in enumerate(graph.nodes[leaf]["rails"][: graph.nodes[leaf]["count"]]):
                    explicit.add_edge(("nic", endpoint, host, rail), (leaf, member), links=ports[rail], gbps=data["gbps"])
            continue
        count_u, count_v = graph.nodes[u]["count"], graph.nodes[v]["count"]
        if data["wiring"] == "aligned":
            spine, core = (u, v) if count_u <= count_v else (v, u)
            spines, group = graph.nodes[spine]["count"], graph.nodes[core]["count"] // graph.nodes[spine]["count"]
            for j in range(spines):
                for c in range(group):
                    explicit.add_edge((spine, j), (core, j * group + c), links=data["links"] // (spines * group), gbps=data["gbps"])
            continue
        per_pair = data["links"] // (count_u * count_v)
        for i in range(count_u):
            for j in range(count_v):
                explicit.add_edge((u, i), (v, j), links=per_pair, gbps=data["gbps"])


def expand_fabric(graph: FabricGraph) -> ExplicitGraph:
    """The explicit graph a merged fabric graph stands for (see the module docstring).

    The merged graph is not modified. Switch members are named (group, i);
    hosts' nodes are ("scaleup" | "nic" | "accelerator", endpoint group, host, ...).
    """
    explicit: ExplicitGraph = nx.Graph(**graph.graph)
    _add_members(explicit, graph)
    _add_wiring(explicit, graph)
    return explicit


def expanded_size(graph: FabricGraph) -> tuple[int, int]:
    """(nodes, edges) of `expand_fabric(graph)`, counted without building it."""
    nodes = edges = 0
    for _, data in graph.nodes(data=True):
        if data["kind"] == "switch":
            nodes += data["count"]
        else:
            nodes += data["count"] * (1 + data["accelerators"] + len(data["rails"]))
            edges += data["count"] * sum(1 + len(rails) for rails in data["accelerator_rails"])
    for u, v, data in graph.edges(data=True):
        count_u, count_v = graph.nodes[u]["count"], graph.nodes[v]["count"]
        if graph.nodes[u]["kind"] == "endpoint" or graph.nodes[v]["kind"] == "endpoint":
            leaf = v if graph.nodes[u]["kind"] == "endpoint" else u
            edges += (count_u * count_v) if graph.nodes[leaf]["count"] else 0
        elif data["wiring"] == "aligned":
            edges += max(count_u, count_v)
        else:
            edges += count_u * count_v
    return nodes, edges
