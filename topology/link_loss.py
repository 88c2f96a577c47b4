"""What one link and one leaf take from a pool's hosts: loss per host link and per rail, beside the per-switch figures.

Published designs state their failure figures in these terms: Alibaba HPN's "one of a host's
16 links lost costs 6.25%" (8 NICs of 2 ports, every link the same speed), and NVIDIA's
rail-optimized reference, where a leaf down costs the GPUs on it their NIC path on that rail
(with two planes, as HPN, half of it). Both are read off the merged fabric graph:

* **host link**: a host's links to the fabric (every part's links at one position, per host);
  one lost costs `1 / links` of its injection bandwidth when they run at one speed (in general,
  the fastest link's share of the host's bandwidth: the worst single link);
* **leaf, per rail**: one member of a leaf group serves `len(rails) / count` of its group's rails
  (all of them when the group's count doesn't divide them). Its failure cuts the hosts behind it
  from those rails on that plane: the accelerators on those rails lose that share of their
  rail bandwidth (their links on those rails across every plane). The worst leaf is the one that
  takes paths from the most accelerators, then the largest share.
"""

from __future__ import annotations

from typing import Any

from blueprints.records import record
from topology.fabric import FabricGraph, FabricNode, node_name, pool_endpoints


@record
class HostLinkLoss:
    """One of a host's fabric links lost: how many it has, and the share of its bandwidth one takes."""

    links: float
    gbps: float
    share: float

    def as_json(self) -> dict[str, Any]:
        """The figure for `validate --json`."""
        return {"links_per_host": round(self.links, 3), "link_gbps": self.gbps, "share": round(self.share, 4)}


@record
class RailLoss:
    """The leaf whose failure takes a rail path from the most accelerators: which rails, whose, and how much of it."""

    leaf: str
    rails: tuple[int, ...]
    hosts: int
    accelerators: int
    share: float

    def as_json(self) -> dict[str, Any]:
        """The figure for `validate --json`."""
        return {"leaf": self.leaf, "rails": list(self.rails), "hosts": self.hosts, "accelerators": self.accelerators, "share": round(self.share, 4)}


def _links(graph: FabricGraph, endpoint: FabricNode) -> dict[FabricNode, float]:
    """Links per host from one endpoint group to each leaf group."""
    count = graph.nodes[endpoint]["count"]
    return {leaf: edge["links"] / count for leaf, edge in graph[endpoint].items()}


def host_link_loss(graph: FabricGraph, pool: str) -> HostLinkLoss | None:
    """One host link of the pool's first position lost; None when the pool has no host on the fabric."""
    endpoints = pool_endpoints(graph, pool)
    if not endpoints:
        return None
    first = endpoints[0][2]
    at_first = [endpoint for endpoint in endpoints if endpoint[2] == first]
    per_host = [(links, graph.edges[endpoint, leaf]["gbps"]) for endpoint in at_first for leaf, links in _links(graph, endpoint).items()]
    links = sum(count for count, _ in per_host)
    bandwidth = sum(count * gbps for count, gbps in per_host)
    fastest = max(gbps for _, gbps in per_host)
    return HostLinkLoss(links, fastest, fastest / bandwidth if bandwidth else 0.0)


def _member_rails(graph: FabricGraph, leaf: FabricNode) -> tuple[int, ...]:
    """The rails one member of a leaf group serves (the first member's, as members are alike)."""
    data = graph.nodes[leaf]
    rails, count = tuple(data["rails"]), data["count"]
    return rails[: len(rails) // count] if count > 1 and len(rails) % count == 0 else rails


def _on(graph: FabricGraph, leaf: FabricNode, rails: set[int]) -> float:
    """The fraction of a leaf group's host links that run on `rails` (its links spread evenly over its rails)."""
    own = graph.nodes[leaf]["rails"]
    return len(rails.intersection(own)) / len(own)


def rail_loss(graph: FabricGraph, pool: str) -> RailLoss | None:
    """The worst single leaf for the pool, per rail; None when the pool has no host on the fabric."""
    worst: tuple[tuple[int, float], FabricNode, tuple[int, ...], int] | None = None
    for endpoint in pool_endpoints(graph, pool):
        data = graph.nodes[endpoint]
        hosts, links = data["count"], _links(graph, endpoint)
        for leaf, per_host in links.items():
            rails = _member_rails(graph, leaf)
            served = set(rails)
            lost = per_host / graph.nodes[leaf]["count"]  # members carry their group's links alike
            on_rails = sum(count * _on(graph, other, served) for other, count in links.items())
            accelerators = hosts * sum(1 for accelerator_rails in data["accelerator_rails"] if served.intersection(accelerator_rails))
            key = (accelerators, lost / on_rails if on_rails else 0.0)
            if worst is None or key > worst[0]:
                worst = (key, leaf, rails, hosts)
    if worst is None:
        return None
    (accelerators, share), leaf, rails, hosts = worst
    return RailLoss(node_name(graph, leaf), rails, hosts, accelerators, share)
