"""Each pool's part of a fabric: its endpoint groups and only the switches a path between them can use.

Every per-pool figure (connectivity, hops, bisection, switch blast radius)
looks at the pool's endpoint groups and the switches. A fabric shared by
hundreds of small pools has thousands of switch groups, and almost all of
them are dead ends for any one pool: a switch subtree that holds none of the
pool's leaves and hangs off the rest at one node can't lie on a simple path
between two of the pool's endpoints. So a pool's figures are computed on
`PoolGraphs.graph_of(pool)`: the pool's endpoints, the leaves they are wired
to, and the switches left after removing every such dead end. Why that gives
the same figures as the whole fabric:

* connectivity and shortest switch paths never enter a dead end;
* a flow decomposes into simple source-sink paths, none of which enters a
  dead end, so the max-flow is the same; and a dead end lies wholly on the
  side of the node it hangs from, so the minimum cut's edges are the same;
* removing one switch of a dead end cuts off none of the pool; removing the
  node a dead end hangs from separates pieces that hold no accelerators, and
  a piece holding the pool's hosts keeps a leaf, so it is never mistaken for
  a lone endpoint group.

One exception: a leaf group of several switches keeps one switch group above it, since two of its
members (two rails' leaves of one scalable unit) meet only there; the cross-rail route through the
spine needs it, though no two leaf groups are joined through it.

The dead ends are found once per fabric: the switch graph's 2-core (the
switches on a cycle or between two) stays, and every other switch points
towards it (or, in a component with no cycle, towards a root). A pool then
walks from its leaves up those pointers and prunes the chain above the
point where its walks meet. `tests/topology/test_pool_graphs.py` checks every
figure against the whole fabric.
"""

from __future__ import annotations

from collections import deque

import networkx as nx

from topology.fabric import FabricGraph, FabricNode

__all__ = ["PoolGraphs"]


class PoolGraphs:
    """The per-pool subgraphs of one merged fabric graph, from one shared index (the graph is not changed)."""

    def __init__(self, graph: FabricGraph):
        self.graph = graph
        self._order = {node: index for index, node in enumerate(graph)}
        self.endpoints: dict[str, list[FabricNode]] = {}
        switches: list[FabricNode] = []
        for node, data in graph.nodes(data=True):
            if data["kind"] == "endpoint":
                self.endpoints.setdefault(data["pool"], []).append(node)
            else:
                switches.append(node)
        for nodes in self.endpoints.values():
            nodes.sort(key=lambda node: (node[2], node[3]))
        self._switches: FabricGraph = nx.Graph(graph.subgraph(switches))  # a graph of its own: walked once per pool, views cost more
        self._core = set(nx.k_core(self._switches, 2)) if self._switches.number_of_edges() else set()
        self._parent, self._component = self._point_towards_core(switches)
        self._graphs: dict[str, FabricGraph] = {}

    def _point_towards_core(self, switches: list[FabricNode]) -> tuple[dict[FabricNode, FabricNode | None], dict[FabricNode, FabricNode]]:
        """Per switch: the next switch towards its component's core (None at the core or the root), and its component."""
        order = {node: index for index, node in enumerate(switches)}
        parent: dict[FabricNode, FabricNode | None] = {}
        component: dict[FabricNode, FabricNode] = {}
        for members in nx.connected_components(self._switches):
            roots = sorted(members & self._core, key=order.__getitem__) or [min(members, key=order.__getitem__)]
            label = roots[0]
            queue = deque(roots)
            for root in roots:
                parent[root], component[root] = None, label
            while queue:
                node = queue.popleft()
                for neighbour in self._switches.adj[node]:
                    if neighbour not in component:
                        parent[neighbour], component[neighbour] = node, label
                        queue.append(neighbour)
        return parent, component

    def nodes_of(self, pool: str) -> set[FabricNode]:
        """The pool's endpoint groups and the switches a path between two of them can use."""
        endpoints = self.endpoints.get(pool, [])
        leaves = {neighbour for endpoint in endpoints for neighbour in self.graph.adj[endpoint]}
        kept: set[FabricNode] = set()
        reached_components: set[FabricNode] = set()
        for leaf in leaves:
            node: FabricNode | None = leaf
            while node is not None and node not in kept:
                kept.add(node)
                if node in self._core:
                    reached_components.add(self._component[node])
                    break
                node = self._parent[node]
        kept |= {node for node in self._core if self._component[node] in reached_components}
        # A leaf group of several switches reaches its own other members only through the tier above (a packet from rail
        # 0's leaf to rail 1's leaf of one scalable unit crosses a spine), so one switch above each such group stays.
        above = {node for leaf in leaves if self.graph.nodes[leaf]["count"] > 1 and (node := self._above(leaf)) is not None}
        kept |= above
        self._prune(kept, leaves | above)
        return kept | set(endpoints)

    def _above(self, leaf: FabricNode) -> FabricNode | None:
        """The first switch group above `leaf` (in graph order), or None when nothing is above it."""
        upper = [node for node in self._switches.adj[leaf] if self.graph.nodes[node]["tier"] != "leaf"]
        return min(upper, key=self._order.__getitem__, default=None)

    def _prune(self, kept: set[FabricNode], leaves: set[FabricNode]) -> None:
        """Drop, repeatedly, kept switches other than the pool's leaves with at most one kept neighbour."""
        degree = {node: sum(1 for neighbour in self._switches.adj[node] if neighbour in kept) for node in kept}
        queue = deque(node for node, count in degree.items() if count <= 1 and node not in leaves)
        while queue:
            node = queue.popleft()
            if node not in kept:
                continue
            kept.discard(node)
            for neighbour in self._switches.adj[node]:
                if neighbour in kept:
                    degree[neighbour] -= 1
                    if degree[neighbour] <= 1 and neighbour not in leaves:
                        queue.append(neighbour)

    def graph_of(self, pool: str) -> FabricGraph:
        """The pool's part of the fabric as a graph of its own, with the fabric's attributes: what per-pool checks read.

        Made once per pool; callers must not modify it.
        """
        if pool not in self._graphs:
            nodes = sorted(self.nodes_of(pool), key=self._order.__getitem__)  # the fabric's node order, as a subgraph keeps it
            part: FabricGraph = nx.Graph(**self.graph.graph)
            part.add_nodes_from((node, self.graph.nodes[node]) for node in nodes)
            kept = set(nodes)
            part.add_edges_from((node, other, data) for node in nodes for other, data in self.graph.adj[node].items() if other in kept)
            self._graphs[pool] = part
        return self._graphs[pool]
