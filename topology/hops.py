"""Worst-case switch hops between two accelerators of a pool, on the same rail and across rails.

A pair is the NIC of rail r on one host of the pool and the NIC of rail s on
another; its hops are the switches a packet crosses between them: leaves,
spines and cores, plus `hop_cost` when it crosses a scale-up domain (an
NVSwitch or PCIe switch counts 1, NeuronLink's direct torus 0).

* same rail (r = s): over the fabric only;
* across rails (r != s): the fewest of the fabric route from the rail-r leaf to
  the rail-s leaf (up to a spine that joins both rails) and a hop through the
  scale-up domain at either end followed by the same-rail route. In a
  rail-only fabric the fabric route does not exist, so every cross-rail packet
  crosses the scale-up domain.

In fabrics without rails (fat tree, ToR Clos) every NIC is on the one rail, so
the cross-rail figure equals the same-rail one.

Why one source is enough: the switch distance between two leaf positions
depends only on the lowest tier they share (the same leaf, the same spine
group or pod, or only the cores), which makes it an ultrametric; then no pair
of positions is farther apart than the farthest position from any one of them.
So breadth-first searches from the leaves of the pool's first position give
the worst case over all pairs, in time linear in the merged graph. The tests
check this against every pair of the explicit graph.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import field
from typing import Any

from blueprints.records import record
from topology.fabric import FabricGraph, FabricNode, node_name, pool_endpoints

__all__ = ["Hops", "switch_distances", "worst_case_hops"]


ROUTES = {"fabric": ("fabric",), "scale_up": ("scale-up first", "scale-up last")}
"""The two cross-rail routes by name: through the fabric's upper tiers, and through the scale-up domain at an end."""


@record
class Hops:
    """The worst same-rail and cross-rail hop counts of a pool, each with the pair that reaches it.

    `cross_rail` is the best route's worst case; `routes` gives each named cross-rail route's worst case and pair
    on its own (None: the route doesn't exist, as the fabric route in a rail-only fabric, or the scale-up route when
    no scale-up domain holds accelerators of two rails).
    """

    same_rail: int
    cross_rail: int
    same_rail_pair: dict[str, Any]
    cross_rail_pair: dict[str, Any]
    routes: dict[str, tuple[int, dict[str, Any]] | None] = field(default_factory=dict)

    def bound(self, route: str) -> tuple[int, dict[str, Any]] | None:
        """The cross-rail worst case and pair a bound on `route` ("best", "fabric", "scale_up") is held to."""
        return (self.cross_rail, self.cross_rail_pair) if route == "best" else self.routes.get(route)


def switch_distances(graph: FabricGraph, source: FabricNode) -> tuple[dict[FabricNode, int], dict[FabricNode, FabricNode | None]]:
    """Breadth-first (distance, parent) maps from switch group `source`, through switch groups only."""
    distance: dict[FabricNode, int] = {source: 0}
    parent: dict[FabricNode, FabricNode | None] = {source: None}
    queue = deque([source])
    nodes = graph.nodes
    while queue:
        node = queue.popleft()
        for neighbour in graph.adj[node]:
            if neighbour not in distance and nodes[neighbour]["kind"] == "switch":
                distance[neighbour] = distance[node] + 1
                parent[neighbour] = node
                queue.append(neighbour)
    return distance, parent


class _Pool:
    """What the hop computation needs about one pool: its positions, parts, leaves and the searches from its first position."""

    def __init__(self, graph: FabricGraph, endpoints: list[FabricNode]):
        self.graph = graph
        self.hosts_at: dict[int, int] = {node[2]: graph.nodes[node]["count"] for node in endpoints}
        self.origin: int = endpoints[0][2]
        self.parts: list[set[int]] = [set(graph.nodes[node]["rails"]) for node in endpoints if node[2] == self.origin]
        self.cost: int = graph.nodes[endpoints[0]]["hop_cost"]
        self.scale_up: str = graph.nodes[endpoints[0]]["scale_up"]
        self.rails: list[int] = sorted(set().union(*self.parts))
        self.leaf_at: dict[tuple[int, int], FabricNode] = {}
        for endpoint in endpoints:
            for leaf in graph[endpoint]:
                data = graph.nodes[leaf]
                if data["plane"] == 0:
                    for rail in data["rails"]:
                        self.leaf_at[(data["position"], rail)] = leaf
        self.search = {leaf: switch_distances(graph, leaf) for leaf in {self.leaf_at[(self.origin, rail)] for rail in self.rails}}

    def fabric(self, rail: int, other: int, position: int) -> float:
        """Switches on the fabric route from the origin's rail-`rail` NIC to the rail-`other` NIC at `position`."""
        start, end = self.leaf_at[(self.origin, rail)], self.leaf_at.get((position, other))
        if start == end:
            upper = any(self.graph.nodes[node]["kind"] == "switch" for node in self.graph[start])
            return 1 if rail == other else (3 if upper else math.inf)
        distance = self.search[start][0].get(end) if end is not None else None  # no leaf there: unreachable
        return math.inf if distance is None else distance + 1

    def shares_part(self, rail: int, other: int) -> bool:
        """True when one scale-up domain of the host holds accelerators of both rails."""
        return any(rail in part and other in part for part in self.parts)

    def hops(self, rail: int, other: int, position: int, kinds: tuple[str, ...] | None = None) -> tuple[float, str]:
        """(switches, route kind) of the best route for one pair, among `kinds` (default: every route)."""
        if rail == other:
            return self.fabric(rail, rail, position), "fabric"
        options = [(self.fabric(rail, other, position), "fabric")]
        if self.shares_part(rail, other):
            options.append((self.cost + self.fabric(other, other, position), "scale-up first"))
            options.append((self.fabric(rail, rail, position) + self.cost, "scale-up last"))
        allowed = [option for option in options if kinds is None or option[1] in kinds]
        return min(allowed, key=lambda option: option[0]) if allowed else (math.inf, kinds[0] if kinds else "fabric")

    def route(self, rail: int, other: int, position: int) -> list[str]:
        """The switch groups of the fabric route between two leaves, as names."""
        start, end = self.leaf_at[(self.origin, rail)], self.leaf_at[(position, other)]
        if start == end and rail == other:
            nodes = [start]
        elif start == end:
            upper = next(node for node in self.graph[start] if self.graph.nodes[node]["kind"] == "switch")
            nodes = [start, upper, end]
        else:
            parents, nodes = self.search[start][1], [end]
            while nodes[-1] != start:
                parent = parents[nodes[-1]]
                assert parent is not None, "only the search's source has no parent, and the walk stops there"
                nodes.append(parent)
            nodes.reverse()
        names = [node_name(self.graph, node) for node in nodes]
        names[0] = node_name(self.graph, start, self.graph.nodes[start]["rails"].index(rail))
        names[-1] = node_name(self.graph, end, self.graph.nodes[end]["rails"].index(other))
        return names

    def certificate(self, rail: int, other: int, position: int, hops: float, kind: str) -> dict[str, Any]:
        """The pair reaching a worst case, with its route."""
        route_rails = (rail, other) if kind == "fabric" else ((other, other) if kind == "scale-up first" else (rail, rail))
        switches = self.route(route_rails[0], route_rails[1], position)
        if kind == "scale-up first":
            switches.insert(0, f"{self.scale_up} of the first host")
        elif kind == "scale-up last":
            switches.append(f"{self.scale_up} of the second host")
        return {
            "from": {"position": self.origin, "block": self.graph.nodes[self.leaf_at[(self.origin, rail)]]["block"], "rail": rail},
            "to": {"position": position, "block": self.graph.nodes[self.leaf_at[(position, other)]]["block"], "rail": other},
            "hops": int(hops),
            "route": kind,
            "switches": switches,
        }


def _worst(pool: _Pool, pairs: list[tuple[int, int]], kinds: tuple[str, ...] | None = None) -> tuple[float, dict[str, Any] | None]:
    targets = [position for position in sorted(pool.hosts_at) if position != pool.origin or pool.hosts_at[position] >= 2]
    worst, best_pair = -1.0, None
    for rail, other in pairs:
        for position in targets:
            hops, kind = pool.hops(rail, other, position, kinds)
            if hops > worst:
                worst, best_pair = hops, (rail, other, position, hops, kind)
    if best_pair is None or math.isinf(worst):
        return worst, None
    return worst, pool.certificate(*best_pair)


def worst_case_hops(graph: FabricGraph, pool: str) -> Hops | None:
    """The pool's worst same-rail and cross-rail hops with their certificates.

    None when the pool has fewer than two hosts on the fabric (no pair) or is
    disconnected (the connectivity check reports that).
    """
    endpoints = pool_endpoints(graph, pool)
    if not endpoints or sum({node[2]: graph.nodes[node]["count"] for node in endpoints}.values()) < 2:
        return None
    state = _Pool(graph, endpoints)
    blocks: dict[FabricNode, list[int]] = {}
    for rail in state.rails:
        blocks.setdefault(state.leaf_at[(state.origin, rail)], []).append(rail)
    firsts = [rails[0] for rails in blocks.values()]
    same, same_pair = _worst(state, [(rail, rail) for rail in firsts])
    cross_pairs = [(rail, other) for rail in firsts for other in firsts if other != rail]
    cross_pairs += [(rails[0], rails[1]) for rails in blocks.values() if len(rails) > 1]
    cross, cross_pair = _worst(state, cross_pairs) if cross_pairs else (same, same_pair)
    if same_pair is None or cross_pair is None:
        return None
    routes: dict[str, tuple[int, dict[str, Any]] | None] = {}
    for name, kinds in ROUTES.items():
        hops, pair = _worst(state, cross_pairs, kinds) if cross_pairs else (same, same_pair)
        routes[name] = (int(hops), pair) if pair is not None else None
    return Hops(int(same), int(cross), same_pair, cross_pair, routes)
