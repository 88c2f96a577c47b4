"""Blast radius: for every single switch, scale-up domain, rack, power feed, block and zone, the share of each pool it takes down.

* **Physical elements** (zones, blocks, feeds, racks) take down the hosts they
  dominate in the facility graph (`topology.facility.physical_outages`).
* **A switch** takes down the accelerators that can no longer reach the
  largest surviving part of their pool over the fabric. A switch whose group
  has another member takes nothing down: leaves and hosts of a group share all
  their neighbours, a pod's spines share their leaves, and the core group of
  spine j is also reached from spine j of every other pod. A single-member
  group can take hosts down: `switch_outages` finds them all in
  one depth-first search (Tarjan's articulation points, keeping for every
  switch the pool's accelerators in each piece its removal cuts off), so the
  cost is linear in the merged graph rather than one search per switch.

* **A scale-up domain that spans hosts** (an NVL72 rack, a Trn2 UltraServer)
  takes down its hosts: a job that uses the domain loses all of it when any of
  its NVLink / NeuronLink fabric does. A one-host domain is the host itself and
  is not counted.

A pool is checked against `placement.max_failure_share` for the failures its
`spread` says it must survive: switches, scale-up domains, feeds and racks
always; blocks too with ``spread: blocks``; blocks and zones with ``spread: zones``.
"""

from __future__ import annotations

from collections.abc import Iterator

from blueprints.findings import Finding, error
from blueprints.models.pools import Pool
from blueprints.records import record
from topology.fabric import FabricGraph, FabricNode, node_name, pool_endpoints
from topology.facility import FacilityNode, element_name

__all__ = [
    "KINDS",
    "Outage",
    "switch_outages",
    "worst_switch",
    "outages_by_pool",
    "worst_physical",
    "checked_kinds",
    "scale_up_outage",
    "blast_findings",
    "spread_findings",
]

KINDS = ("switch", "scale_up", "rack", "feed", "block", "zone")
_HINTS = {
    "switch": "dual-home the hosts (planes: 2) so that no single switch carries their only path",
    "scale_up": "give the pool more scale-up domains (nodes), so that one is a smaller share of it",
    "rack": "spread the pool over more racks (spread: racks), or fewer hosts per rack",
    "feed": "dual-cord the racks (feeds_per_rack: 2) or add power feeds to the block",
    "block": "spread the pool over more blocks (spread: blocks)",
    "zone": "spread the pool over more zones",
}
# The fix `railyard explain` gives: the hint of each element kind, from the table the findings use.
EXPLAIN = {
    "topology.blast-radius": {"fix": "; ".join(f"for a {kind}: {hint}" for kind, hint in _HINTS.items()) + "; or raise max_failure_share"},
}


@record
class Outage:
    """The worst element of one kind for one pool: its name, the accelerators it takes down and their share."""

    kind: str
    element: str | None
    accelerators: float
    share: float


def checked_kinds(spread: str) -> tuple[str, ...]:
    """The element kinds a pool's `max_failure_share` applies to, given its `spread`."""
    return {"blocks": ("switch", "scale_up", "feed", "rack", "block"), "zones": ("switch", "scale_up", "feed", "rack", "block", "zone")}.get(
        spread, ("switch", "scale_up", "feed", "rack")
    )


Piece = tuple[float, int, FabricNode]
"""(accelerators, nodes, the child it hangs from): a piece of the pool that a node's failure cuts off."""


def _depth_first(
    graph: FabricGraph, members: set[FabricNode], root: FabricNode, weight: dict[FabricNode, float]
) -> tuple[dict[FabricNode, int], float, int, dict[FabricNode, list[Piece]]]:
    """Iterative Tarjan DFS: discovery order, and per node the (weight, size, child) of each piece it separates."""
    discovered, low = {root: 0}, {root: 0}
    subtree_weight: dict[FabricNode, float] = {root: weight.get(root, 0)}
    subtree_size = {root: 1}
    separated: dict[FabricNode, list[Piece]] = {}
    stack: list[tuple[FabricNode, FabricNode | None, Iterator[FabricNode]]] = [(root, None, iter(graph.adj[root]))]
    while stack:
        node, parent, neighbours = stack[-1]
        for neighbour in neighbours:
            if neighbour not in members:
                continue
            if neighbour not in discovered:
                discovered[neighbour] = low[neighbour] = len(discovered)
                subtree_weight[neighbour], subtree_size[neighbour] = weight.get(neighbour, 0), 1
                stack.append((neighbour, node, iter(graph.adj[neighbour])))
                break
            if neighbour != parent:
                low[node] = min(low[node], discovered[neighbour])
        else:
            stack.pop()
            if parent is not None:
                low[parent] = min(low[parent], low[node])
                subtree_weight[parent] += subtree_weight[node]
                subtree_size[parent] += subtree_size[node]
                if low[node] >= discovered[parent]:
                    separated.setdefault(parent, []).append((subtree_weight[node], subtree_size[node], node))
    return discovered, subtree_weight[root], subtree_size[root], separated


def switch_outages(graph: FabricGraph, pool: str) -> dict[FabricNode, float] | None:
    """Accelerators of `pool` each single switch takes down, for the switches that take any; None if the pool is split already.

    After a switch fails, the survivors are the largest group of the pool's
    accelerators that can still reach each other; a piece that is one endpoint
    group with no other node left counts its hosts apart (they only met at the switch).
    """
    endpoints = pool_endpoints(graph, pool)
    if not endpoints:
        return {}
    members = {node for node, data in graph.nodes(data=True) if data["kind"] == "switch"} | set(endpoints)
    weight: dict[FabricNode, float] = {node: graph.nodes[node]["count"] * graph.nodes[node]["accelerators"] for node in endpoints}
    root = endpoints[0]
    discovered, total, size, separated = _depth_first(graph, members, root, weight)
    if any(node not in discovered for node in endpoints):
        return None

    def largest(piece_weight: float, piece_size: int, node: FabricNode) -> float:
        alone = piece_size == 1 and graph.nodes[node]["kind"] == "endpoint"
        return piece_weight / graph.nodes[node]["count"] if alone else piece_weight

    outages: dict[FabricNode, float] = {}
    for node in discovered:
        data = graph.nodes[node]
        if data["kind"] != "switch" or data["count"] != 1:
            continue
        pieces = separated.get(node, [])
        rest_weight = total - sum(piece[0] for piece in pieces)
        rest_size = size - 1 - sum(piece[1] for piece in pieces)
        survivors = max([largest(*piece) for piece in pieces] + [largest(rest_weight, rest_size, root) if rest_size else 0])
        if total - survivors > 1e-9:
            outages[node] = total - survivors
    return outages


def worst_switch(graph: FabricGraph, pool: str, total: float) -> Outage | None:
    """The pool's worst single switch on this fabric; None when the pool is split already."""
    outages = switch_outages(graph, pool)
    if outages is None:
        return None
    if not outages:
        return Outage("switch", None, 0, 0.0)
    node = min(outages, key=lambda item: (-outages[item], node_name(graph, item)))
    return Outage("switch", node_name(graph, node), outages[node], outages[node] / total)


def outages_by_pool(outages: dict[FacilityNode, dict[int, int]]) -> dict[int, list[tuple[FacilityNode, int]]]:
    """Per pool index, (element, hosts it takes down) of every physical element that takes any, by element name.

    One pass over the elements for all pools, so the cost grows with elements plus pools, not their product.
    """
    by_pool: dict[int, list[tuple[FacilityNode, int]]] = {}
    for element, per_pool in sorted(outages.items(), key=lambda item: element_name(item[0])):
        for pool_index, hosts in per_pool.items():
            if hosts:
                by_pool.setdefault(pool_index, []).append((element, hosts))
    return by_pool


def worst_physical(elements: list[tuple[FacilityNode, int]], accelerators_per_host: int, total: float) -> dict[str, Outage]:
    """The pool's worst rack, feed, block and zone among `elements` (its `outages_by_pool` entry; ties: first by name);
    element None when none takes any host."""
    worst: dict[str, Outage] = {kind: Outage(kind, None, 0, 0.0) for kind in ("rack", "feed", "block", "zone")}
    for element, hosts in elements:
        kind = element[0]
        if hosts * accelerators_per_host > worst[kind].accelerators:
            down = hosts * accelerators_per_host
            worst[kind] = Outage(kind, element_name(element), down, down / total if total else 0.0)
    return worst


def scale_up_outage(kind: str, hosts: int, accelerators_per_host: int, total: float) -> Outage | None:
    """One scale-up domain of `hosts` hosts, when it spans more than one; None for a one-host domain."""
    if hosts <= 1:
        return None
    down = hosts * accelerators_per_host
    return Outage("scale_up", f"one {kind} domain ({hosts} hosts)", down, down / total if total else 0.0)


def blast_findings(pool_index: int, pool: Pool, by_kind: dict[str, Outage]) -> list[Finding]:
    """`topology.blast-radius` when the worst checked element takes more of the pool than it tolerates."""
    tolerance = pool.placement.max_failure_share
    checked = [by_kind[kind] for kind in checked_kinds(pool.placement.spread) if kind in by_kind]
    if not checked:
        return []
    worst = max(checked, key=lambda outage: outage.share)
    if worst.share <= tolerance + 1e-9:
        return []
    return [
        error(
            "topology.blast-radius",
            ("pools", pool_index, "placement", "max_failure_share"),
            f"losing {worst.kind} {worst.element} takes down {worst.accelerators:g} accelerators, {worst.share:.1%} of pool '{pool.name}'; "
            f"max_failure_share is {tolerance:g} (spread: {pool.placement.spread})",
            _HINTS[worst.kind] + ", or raise max_failure_share",
            element=worst.element,
            kind=worst.kind,
            accelerators=worst.accelerators,
            share=round(worst.share, 4),
            tolerance=tolerance,
        )
    ]


def spread_findings(pool_index: int, pool: Pool, hosts_by_unit: dict[str, int]) -> list[Finding]:
    """`topology.spread` when a pool that must survive a zone, block or rack failure landed in one of them."""
    spread = pool.placement.spread
    if spread == "packed" or not hosts_by_unit or len(hosts_by_unit) > 1:
        return []
    unit, hosts = next(iter(hosts_by_unit.items()))
    level = spread[:-1]
    return [
        error(
            "topology.spread",
            ("pools", pool_index, "placement", "spread"),
            f"pool '{pool.name}' must survive a {level} failure (spread: {spread}), but all {hosts} placed host(s) landed in {level} {unit}",
            f"give the pool at least two hosts and free slots in a second {level}, or relax spread",
            unit=unit,
            hosts=hosts,
            level=level,
        )
    ]
