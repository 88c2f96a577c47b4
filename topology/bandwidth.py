"""Ports, oversubscription and bisection bandwidth, read from the merged fabric graph.

* **Ports.** A member of a switch group uses (sum of its group's links) / count
  links; down links face the tier below (hosts for a leaf), up links the tier
  above. A port broken out carries `breakout` down links, so the ports it takes
  are down / breakout + up.
* **Oversubscription** of a switch is its down bandwidth over its up bandwidth
  (links x speed each way); a tier's figure is its worst switch. Links to
  standby hosts (`pools[].standby_for`) take ports but carry no job traffic,
  so they are left out of the down bandwidth here, as HPN's 1.067:1 leaves
  out its backup ports.
* **Bisection.** The pool's hosts, in fabric order, are cut into a first and a
  second half (the split that crosses the most upper-tier links of a Clos);
  the bisection bandwidth is the max-flow between the halves, and per
  accelerator it is that flow over the first half's accelerators. The flow runs
  on the merged graph, contracted further by putting each half's hosts behind
  a source and a sink; it equals the explicit graph's max-flow because the
  merged groups are symmetric (docs/topology.md gives the argument, the tests
  check it on small and medium fabrics). The minimum cut is the certificate.
"""

from __future__ import annotations

from typing import TypeAlias

import networkx as nx

from blueprints.records import record
from topology.fabric import FabricGraph, FabricNode, fabric_order, pool_endpoints

__all__ = [
    "SwitchPorts",
    "switch_ports",
    "oversubscription",
    "SwitchLoss",
    "switch_loss",
    "Bisection",
    "SharedCuts",
    "bisection",
    "provisioned_bisection_gbps",
]

FlowNode: TypeAlias = FabricNode | str
"""A node of the bisection's flow network: the fabric's switch groups, ("A" | "B", endpoint group), "source", "sink"."""
FlowGraph: TypeAlias = "nx.DiGraph[FlowNode]"

_BELOW = {"leaf": "endpoint", "spine": "leaf", "core": "spine"}


@record
class SwitchPorts:
    """Ports one member of a switch group uses: towards the tier below, towards the tier above."""

    node: FabricNode
    tier: str
    down: float
    up: float
    down_gbps: float = 0.0
    up_gbps: float = 0.0
    breakout: int = 1
    standby_gbps: float = 0.0  # of down_gbps, to standby hosts (spares): no job traffic

    @property
    def active_down_gbps(self) -> float:
        """The down bandwidth jobs can use: all but the links to standby hosts."""
        return self.down_gbps - self.standby_gbps

    @property
    def total(self) -> float:
        """Switch ports in use: down links share a port `breakout` at a time."""
        return self.down / self.breakout + self.up


def _tier_of(graph: FabricGraph, node: FabricNode) -> str:
    data = graph.nodes[node]
    tier: str = data["tier"] if data["kind"] == "switch" else "endpoint"
    return tier


def switch_ports(graph: FabricGraph) -> list[SwitchPorts]:
    """Ports per member of every switch group, in graph order."""
    found: list[SwitchPorts] = []
    for node, data in graph.nodes(data=True):
        if data["kind"] != "switch":
            continue
        down = up = down_gbps = up_gbps = standby_gbps = 0.0
        for neighbour, edge in graph[node].items():
            if _tier_of(graph, neighbour) == _BELOW[data["tier"]]:
                down += edge["links"]
                down_gbps += edge["links"] * edge["gbps"]
                if graph.nodes[neighbour].get("standby"):
                    standby_gbps += edge["links"] * edge["gbps"]
            else:
                up += edge["links"]
                up_gbps += edge["links"] * edge["gbps"]
        service = data.get("service_links", 0)  # appliances' and hosts' in-band and storage links: leaf ports at the host link speed
        down += service
        down_gbps += service * graph.graph["link_gbps"]
        count = data["count"]
        breakout = graph.graph["tier_shapes"][data["tier"]].breakout
        per_member = (down / count, up / count, down_gbps / count, up_gbps / count, breakout, standby_gbps / count)
        found.append(SwitchPorts(node, data["tier"], *per_member))
    return found


def oversubscription(graph: FabricGraph) -> dict[str, tuple[float, FabricNode] | None]:
    """Per tier with uplinks ("leaf", "spine"): (worst down/up ratio, the switch group), or None."""
    worst: dict[str, tuple[float, FabricNode] | None] = {"leaf": None, "spine": None}
    for ports in switch_ports(graph):
        if ports.tier in worst and ports.up > 0:
            ratio = ports.active_down_gbps / ports.up_gbps
            current = worst[ports.tier]
            if current is None or ratio > current[0] + 1e-12:
                worst[ports.tier] = (ratio, ports.node)
    return worst


@record
class SwitchLoss:
    """The bandwidth one switch of a tier carries, which its failure takes away: down, up, and its share of the tier's down."""

    node: FabricNode
    down_gbps: float
    up_gbps: float
    share: float


def switch_loss(graph: FabricGraph) -> dict[str, SwitchLoss]:
    """Per tier, the switch whose failure takes the most bandwidth: what it carries down and up, and its share of the tier's down.

    For a leaf the down bandwidth is host links (injection bandwidth the hosts lose), for a spine the leaves' uplinks.
    """
    total: dict[str, float] = {}
    worst: dict[str, SwitchPorts] = {}
    for ports in switch_ports(graph):
        total[ports.tier] = total.get(ports.tier, 0.0) + ports.down_gbps * graph.nodes[ports.node]["count"]
        current = worst.get(ports.tier)
        if current is None or (ports.down_gbps, ports.up_gbps) > (current.down_gbps, current.up_gbps):
            worst[ports.tier] = ports
    return {
        tier: SwitchLoss(ports.node, ports.down_gbps, ports.up_gbps, ports.down_gbps / total[tier] if total[tier] else 0.0)
        for tier, ports in worst.items()
    }


@record
class Bisection:
    """Max-flow between the halves, per accelerator of the first half, and the minimum cut by tier."""

    gbps: float
    per_accelerator_gbps: float
    hosts: tuple[int, int]
    accelerators: tuple[int, int]
    cut_gbps: dict[str, float]


def _halves(graph: FabricGraph, endpoints: list[FabricNode]) -> dict[FabricNode, int]:
    """For each endpoint group, the hosts that fall in the first half (fabric order, by position)."""
    hosts_at: dict[tuple[int, str], int] = {}
    for node in endpoints:
        hosts_at[(node[2], node[1])] = graph.nodes[node]["count"]
    first: dict[tuple[int, str], int] = {}
    half, seen = sum(hosts_at.values()) // 2, 0
    for key in sorted(hosts_at):
        first[key] = min(hosts_at[key], max(0, half - seen))
        seen += hosts_at[key]
    return {node: first[(node[2], node[1])] for node in endpoints}


def _flow_network(graph: FabricGraph, endpoints: list[FabricNode], first: dict[FabricNode, int]) -> FlowGraph:
    network: FlowGraph = nx.DiGraph()
    chosen = set(endpoints)
    for u, v, data in graph.edges(data=True):
        gbps = data["gbps"]
        ends = [node for node in (u, v) if graph.nodes[node]["kind"] == "endpoint"]
        if not ends:
            network.add_edge(u, v, capacity=data["links"] * gbps)
            network.add_edge(v, u, capacity=data["links"] * gbps)
            continue
        endpoint = ends[0]
        if endpoint not in chosen:
            continue
        leaf = v if endpoint == u else u
        count = graph.nodes[endpoint]["count"]
        for side, hosts in (("A", first[endpoint]), ("B", count - first[endpoint])):
            if hosts:
                capacity = data["links"] * gbps * hosts / count
                network.add_edge((side, endpoint), leaf, capacity=capacity)
                network.add_edge(leaf, (side, endpoint), capacity=capacity)
                if side == "A":
                    network.add_edge("source", ("A", endpoint))
                else:
                    network.add_edge(("B", endpoint), "sink")
    return network


def _cut_by_tier(graph: FabricGraph, network: FlowGraph, reachable: set[FlowNode]) -> dict[str, float]:
    def tier(node: FlowNode) -> str:
        assert not isinstance(node, str), "the source's and the sink's edges carry no capacity, so none of them is cut"
        name: str = "host" if node[0] in ("A", "B") else graph.nodes[node]["tier"]
        return name

    cut: dict[str, float] = {}
    for u in reachable:
        for v, data in network[u].items():
            if v not in reachable and "capacity" in data:
                key = "-".join(sorted((tier(u), tier(v)), key=["host", "leaf", "spine", "core"].index))
                cut[key] = cut.get(key, 0.0) + data["capacity"]
    return dict(sorted(cut.items()))


CutShape: TypeAlias = tuple[tuple[tuple[object, ...], ...], tuple[tuple[int, int, int, float], ...]]
"""A bisection's flow network up to the names of its nodes: each node, in graph order, as its tier (switches) or its halves
(the pool's endpoint groups), and each edge, in graph order, as the positions of its ends, its links and their speed."""
SharedCuts: TypeAlias = dict[CutShape, tuple[float, dict[str, float]]]
"""Max-flow values and minimum cuts by tier already found, by the shape of the flow network they were found on."""


def _cut_shape(graph: FabricGraph, first: dict[FabricNode, int]) -> CutShape:
    """The shape of the flow network `_flow_network` builds on `graph` with these halves: two pools with the same shape see
    the same fabric the same way (an isomorphism that keeps every tier, half and capacity, edge for edge in order), so the
    max-flow and the minimum cut by tier found for one are the other's."""
    position = {node: index for index, node in enumerate(graph)}
    nodes: list[tuple[object, ...]] = []
    for node, data in graph.nodes(data=True):
        if node in first:
            nodes.append(("pool", first[node], data["count"]))
        else:
            nodes.append((data["kind"], data.get("tier")))
    edges = tuple((position[u], position[v], data["links"], data["gbps"]) for u, v, data in graph.edges(data=True))
    return tuple(nodes), edges


def bisection(graph: FabricGraph, pool: str | None = None, shared: SharedCuts | None = None) -> Bisection | None:
    """The bisection of a pool (or of every host on the fabric that runs jobs: standby hosts, `pools[].standby_for`,
    carry no job traffic and have no bisection of their own); None with fewer than two hosts.

    With `shared`, a pool whose flow network has the shape of one already cut (`_cut_shape`: hundreds of small pools
    laid over a fabric the same way) takes that cut instead of running the max-flow again; the per-accelerator figure
    is still the pool's own. `tests/topology/test_pool_graphs.py` holds the shared cuts to the pools' own.
    """
    endpoints = pool_endpoints(graph, pool) if pool is not None else [node for node in fabric_order(graph) if not graph.nodes[node].get("standby")]
    first = _halves(graph, endpoints)
    hosts_a = sum(first[node] for node in endpoints if node[3] == 0)
    hosts = sum(graph.nodes[node]["count"] for node in endpoints if node[3] == 0)
    if hosts_a == 0 or hosts - hosts_a == 0:
        return None
    shape = _cut_shape(graph, first) if shared is not None else None
    if shared is not None and shape in shared:
        value, cut = shared[shape]
    else:
        network = _flow_network(graph, endpoints, first)
        value, (reachable, _) = nx.minimum_cut(network, "source", "sink")
        cut = _cut_by_tier(graph, network, reachable)
        if shared is not None and shape is not None:
            shared[shape] = (value, cut)
    accelerators_a = sum(first[node] * graph.nodes[node]["accelerators"] for node in endpoints)
    accelerators = sum(graph.nodes[node]["count"] * graph.nodes[node]["accelerators"] for node in endpoints)
    return Bisection(value, value / accelerators_a, (hosts_a, hosts - hosts_a), (accelerators_a, accelerators - accelerators_a), dict(cut))


def provisioned_bisection_gbps(graph: FabricGraph) -> float:
    """The fabric's bisection as provisioned: every leaf's down ports in use, the leaves cut into two equal halves.

    Half of each layer's capacity crosses such a cut, so the bisection is half the smallest of: the
    leaves' down ports (at the host link speed), the leaves' uplinks, and, when the halves span
    pods, the spines' uplinks. Unlike `bisection`, it doesn't depend on how many hosts are placed:
    it is the figure a fabric's designer quotes.
    """
    shapes = graph.graph["tier_shapes"]
    leaves = sum(data["count"] for _, data in graph.nodes(data=True) if data["kind"] == "switch" and data["tier"] == "leaf")
    link_gbps: float = graph.graph["link_gbps"]
    layers: list[float] = [leaves * shapes["leaf"].down_links * link_gbps]
    tiers = graph.graph["tiers"]
    if tiers >= 2:
        layers.append(leaves * shapes["leaf"].up_links * shapes["leaf"].up_gbps)
    pods = {data["pod"] for _, data in graph.nodes(data=True) if data["kind"] == "switch" and data["tier"] == "leaf"}
    if tiers == 3 and len(pods) > 1:
        spines = sum(data["count"] for _, data in graph.nodes(data=True) if data["kind"] == "switch" and data["tier"] == "spine")
        layers.append(spines * shapes["spine"].up_links * shapes["spine"].up_gbps)
    return min(layers) / 2
