"""The fabric graph: one networkx Graph per fabric, with interchangeable members merged by symmetry.

A fabric of 131,072 accelerators has hundreds of thousands of cables, but
almost all of its switches and hosts come in groups whose members are wired
identically. This graph keeps one node per such group, with its member
`count`, and one edge per pair of groups, with the total `links` between them:

==============================  =====================================================  =============
node                            stands for                                             count
==============================  =====================================================  =============
("endpoint", pool, pos, part)   hosts of one pool at one leaf position (one scale-up   hosts
                                part of each: the accelerators that share NVLink /
                                NeuronLink and the NICs they send through)
("leaf", plane, pos, rail)      that position's leaves of one rail block (one leaf     rails in block
                                per rail; a ToR or fat-tree edge switch has one)
("spine", plane, "all")         the spines of a two-tier fabric                         spines
("spine", plane, "rail", r)     the spines of rail r of a two-tier rail-only fabric     spines
("spine", plane, "pod", k)      the spines of pod k of a three-tier fabric              spines per pod
("core", plane)                 the cores of a three-tier fabric (one group per spine   spines per pod
                                index)                                                  x group size
==============================  =====================================================  =============

Wiring is uniform between two groups: with ``wiring="complete"`` every member
of one has links / (count_u * count_v) links to every member of the other
(hosts to their rail leaves, leaves to their spines); with ``wiring="aligned"``
spine j of a pod goes to the j-th core group only (spine_up / group links to
each of its cores). Link capacity is `links` x the edge's `gbps`: host links run
at the fabric's `link_gbps`, a tier's uplinks at its own speed (`TierShape`).

`topology.expand.expand_fabric` rebuilds the explicit graph (every host,
accelerator, NIC and switch); the tests check every figure computed here
against it. The arguments that make the merged graph exact are in
docs/topology.md ("Why the merged graph gives the same answers").
"""

from __future__ import annotations

from typing import Any, TypeAlias

import networkx as nx

from topology.layout import RAIL_KINDS, FabricPlan, Position, joined_planes

__all__ = ["FabricGraph", "FabricNode", "build_fabric_graph", "is_switch", "pool_endpoints", "node_name", "fabric_order"]

FabricNode: TypeAlias = tuple[Any, ...]
"""A group of the merged graph, named as in the table above: its kind, then names (str) and indexes (int) in an order
that depends on the kind, which a tuple type can't follow (endpoint positions are node[2], their parts node[3])."""
FabricGraph: TypeAlias = "nx.Graph[FabricNode]"
"""A merged fabric graph; node and edge attributes as `build_fabric_graph` sets them."""


def _leaf_attributes(plan: FabricPlan, position: Position, plane: int, block: tuple[int, ...]) -> dict[str, Any]:
    return {
        "kind": "switch",
        "tier": "leaf",
        "count": len(block) if plan.fabric.kind in RAIL_KINDS else 1,
        "plane": plane,
        "position": position.index,
        "pod": position.pod,
        "block": position.block,
        "rack": position.rack,
        "rails": block,
        # Links that take leaf ports and count as host links but carry no job traffic: appliances' (fabric.appliances)
        # and the hosts' own in-band and storage ports (fabric.host_ports).
        "service_links": 0,
    }


def _add_positions(graph: FabricGraph, plan: FabricPlan) -> None:
    """Endpoints, their leaves, and the host-leaf links."""
    planes = plan.fabric.planes
    for position in plan.positions:
        for plane in range(planes):
            for block in plan.rail_blocks:
                graph.add_node(("leaf", plane, position.index, block[0]), **_leaf_attributes(plan, position, plane, block))
        hosts_of: dict[int, int] = {}
        for pool_index, hosts in position.hosts:
            hosts_of[pool_index] = hosts_of.get(pool_index, 0) + hosts
        for pool_index, hosts in hosts_of.items():
            shape = plan.shapes[pool_index]
            for index, part in enumerate(shape.parts):
                endpoint = ("endpoint", shape.pool, position.index, index)
                graph.add_node(
                    endpoint,
                    kind="endpoint",
                    count=hosts,
                    pool=shape.pool,
                    pool_index=pool_index,
                    position=position.index,
                    pod=position.pod,
                    block=position.block,
                    part=index,
                    accelerators=len(part.accelerators),
                    rails=part.rails,
                    accelerator_rails=part.accelerator_rails,
                    rail_ports=part.rail_ports,
                    scale_up=shape.scale_up,
                    hop_cost=shape.scale_up_switches,
                    standby=shape.standby,
                )
                ports = dict(part.rail_ports)
                for plane in range(planes):
                    for block in plan.rail_blocks:
                        if block[0] in ports:
                            leaf = ("leaf", plane, position.index, block[0])
                            graph.add_edge(endpoint, leaf, links=hosts * len(block) * ports[block[0]], wiring="complete", gbps=plan.fabric.link_gbps)


def _add_upper_tiers(graph: FabricGraph, plan: FabricPlan) -> None:
    """Spines (and cores), striped evenly over the leaves below them; a tier with fewer planes joins the planes below."""
    if plan.tiers == 1:
        return
    rail_only = plan.fabric.kind == "rail_only"
    spine_joins, core_joins = joined_planes(plan.fabric, "spine"), joined_planes(plan.fabric, "core")
    if plan.tiers == 3:
        for plane in range(plan.fabric.tier_planes("core")):
            graph.add_node(("core", plane), kind="switch", tier="core", count=plan.pod_spines * plan.core_group, plane=plane)
    # A copy (spines are added below), plane by plane: each plane's spines in the order of its leaves.
    leaves = sorted(((node, data) for node, data in graph.nodes(data=True) if data.get("tier") == "leaf"), key=lambda item: item[1]["plane"])
    for node, data in leaves:
        plane = data["plane"] // spine_joins
        spine: FabricNode
        if plan.tiers == 2:
            spine = ("spine", plane, "rail", data["rails"][0]) if rail_only else ("spine", plane, "all")
            count = plan.spines
        else:
            spine, count = ("spine", plane, "pod", data["pod"]), plan.pod_spines
        if spine not in graph:
            graph.add_node(
                spine,
                kind="switch",
                tier="spine",
                count=count,
                plane=plane,
                pod=spine[-1] if spine[2] == "pod" else None,  # the pod's and the rail's groups end with their number
                rails=(spine[-1],) if spine[2] == "rail" else None,
            )
            if plan.tiers == 3:
                gbps = plan.tier_shapes["spine"].up_gbps
                graph.add_edge(spine, ("core", plane // core_joins), links=plan.pod_spines * plan.spine_up, wiring="aligned", gbps=gbps)
        graph.add_edge(node, spine, links=data["count"] * plan.leaf_up, wiring="complete", gbps=plan.tier_shapes["leaf"].up_gbps)


def _allowed(plan: FabricPlan, tier: str) -> float:
    """The oversubscription a tier may have: its declared ratio, or the split of the uplinks it states."""
    if getattr(plan.fabric, tier).uplinks is None:
        ratio: float = getattr(plan.fabric.oversubscription, tier)
        return ratio
    shape = plan.tier_shapes[tier]
    return shape.down_ports / shape.up_ports if shape.up_ports else 1.0


def build_fabric_graph(plan: FabricPlan) -> FabricGraph:
    """Build the merged fabric graph of one planned fabric (see the module docstring for its shape)."""
    fabric = plan.fabric
    graph: FabricGraph = nx.Graph(
        name=fabric.name,
        index=plan.index,
        kind=fabric.kind,
        tiers=plan.tiers,
        planes=fabric.planes,
        tier_planes={tier: fabric.tier_planes(tier) for tier in ("leaf", "spine", "core")[: plan.tiers]},
        rails=plan.rails,
        link_gbps=fabric.link_gbps,
        radix=fabric.switch_radix,
        tier_shapes=plan.tier_shapes,
        leaf_down=plan.leaf_down,
        leaf_up=plan.leaf_up,
        spine_down=plan.spine_down,
        spine_up=plan.spine_up,
        core_group=plan.core_group,
        declared_oversubscription={tier: _allowed(plan, tier) for tier in ("leaf", "spine")},
    )
    _add_positions(graph, plan)
    _add_service_links(graph, plan)
    _add_upper_tiers(graph, plan)
    return graph


def _add_service_links(graph: FabricGraph, plan: FabricPlan) -> None:
    """Appliances' links, and every host's in-band and storage ports, on the leaves they plug into: counted as the
    leaves' down ports, never as a path for traffic."""
    links = [(position, plane, rail, count) for _, position, plane, rail, count in plan.appliance_links]
    for position in plan.positions:
        hosts = sum(count for _, count in position.hosts)
        links += [(position.index, plane, rail, hosts * ports) for (plane, rail), ports in plan.host_ports.items()]
    for position_index, plane, rail, count in links:
        block = next(block for block in plan.rail_blocks if rail in block)
        graph.nodes[("leaf", plane, position_index, block[0])]["service_links"] += count


def is_switch(graph: FabricGraph, node: FabricNode) -> bool:
    """True for leaf, spine and core groups."""
    kind: str = graph.nodes[node]["kind"]
    return kind == "switch"


def pool_endpoints(graph: FabricGraph, pool: str) -> list[FabricNode]:
    """The endpoint groups of one pool, in fabric order (position, then part)."""
    return sorted(
        (node for node, data in graph.nodes(data=True) if data["kind"] == "endpoint" and data["pool"] == pool), key=lambda node: (node[2], node[3])
    )


def fabric_order(graph: FabricGraph) -> list[FabricNode]:
    """Every endpoint group in fabric order."""
    # types-networkx: nodes(data=<key>) yields (node, value of key), not (node, attribute dict).
    endpoints = [node for node, kind in graph.nodes(data="kind") if kind == "endpoint"]  # type: ignore[comparison-overlap]
    return sorted(endpoints, key=lambda node: (node[2], node[1], node[3]))


def node_name(graph: FabricGraph, node: FabricNode, member: int = 0) -> str:
    """One member of a group as users read it: `rails: leaf p0/pos12 rail 3 (b01)`, `rails: spine p0/pod 3 #0`."""
    data, fabric = graph.nodes[node], graph.graph["name"]
    if data["kind"] == "endpoint":
        part = f" part {data['part']}" if node[3] else ""
        return f"{fabric}: {data['count']} {data['pool']} host(s){part} at position {data['position']} ({data['block']})"
    tier, plane = data["tier"], f"p{data['plane']}"
    if tier == "leaf":
        if data["rack"] is not None:
            return f"{fabric}: ToR {plane}/{data['block']}/rack-{data['rack']:04d}"
        rail = f" rail {data['rails'][member]}" if graph.graph["kind"] in RAIL_KINDS else ""
        return f"{fabric}: leaf {plane}/pos{data['position']}{rail} ({data['block']})"
    if tier == "spine":
        group = f"/{node[2]} {node[3]}" if len(node) > 3 else ""
        return f"{fabric}: spine {plane}{group} #{member}"
    return f"{fabric}: core {plane} #{member}"
