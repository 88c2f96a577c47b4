"""The facility graph: what powers what, from the site down to the hosts placed in each rack.

A networkx DiGraph whose edges point from a supply to what it supplies::

    ("site",) -> ("zone", z) -> ("block", b) -> ("feed", b, f) -> ("rack", b, i) -> ("hosts", pool, b, i)

A block's racks draw from `feeds_per_rack` of its `power_feeds`: rack i from
feed i mod F (and, dual-corded, also from feed (i + 1) mod F, so the A and B
cords of neighbouring racks land on different feeds). A ``hosts`` node stands
for the `count` hosts one pool has in one rack, with their accelerators and
per-node draw (its share of a multi-host scale-up domain's switches included); racks, feeds, blocks and zones are single elements. A block
that states no racks has neither racks nor feeds in the graph: its hosts hang
from the block itself, ``("hosts", pool, b, None)``, since which feed and rack
feed them is not known.

The graph's own `scale_up_switch_kw` lists, per pool index, what each host's node
draw adds for its scale-up domain's switches (None where their power is unstated).

An element takes down exactly the hosts it dominates: every supply path from
the site to them passes through it. `physical_outages` reads that from
the dominator tree (`supply_dominators`: networkx's, in one pass, since power flows one way).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import networkx as nx

from blueprints.catalog import Catalog, InstanceType
from blueprints.models import Blueprint
from blueprints.models.pools import Pool
from blueprints.rules.context import Context
from topology.placement import Placement, rack_name

__all__ = [
    "ROOT",
    "FacilityGraph",
    "FacilityNode",
    "build_facility",
    "rack_feeds",
    "physical_outages",
    "supply_dominators",
    "element_name",
    "scale_up_switch_share",
]

FacilityNode: TypeAlias = tuple[Any, ...]
"""An element, named as in the docstring: its kind, then names (str) and indexes (int) in an order that depends on
the kind, which a tuple type can't follow; `element_name` reads them."""
FacilityGraph: TypeAlias = "nx.DiGraph[FacilityNode]"

ROOT: FacilityNode = ("site",)


def rack_feeds(rack_index: int, power_feeds: int, feeds_per_rack: int) -> tuple[int, ...]:
    """The feeds rack `rack_index` draws from: i mod F, and (i + 1) mod F when dual-corded."""
    first = rack_index % power_feeds
    return (first,) if feeds_per_rack == 1 else (first, (rack_index + 1) % power_feeds)


def node_kw(pool: Pool, spec: InstanceType | None, switch_share_kw: float = 0.0) -> float | None:
    """Per-node IT draw: the pool's `node_power_kw`, else the catalog's typical draw, else None; plus the node's share of
    its scale-up domain's switches (`scale_up_switch_share`)."""
    own = pool.node_power_kw if pool.node_power_kw is not None else (spec.typical_node_kw if spec is not None else None)
    return None if own is None else own + switch_share_kw


def scale_up_switch_share(ctx: Context, pool: Pool) -> float | None:
    """kW of scale-up switch chips per host of a domain that spans hosts (an NVL72 rack's 18 chips over its 18 trays).

    0 when the domain is one host's (its switches are in the host's own draw) or has no switches described; None
    when it spans hosts through switches whose power the blueprint doesn't state.
    """
    declared = ctx.declared_scale_up(pool)
    _, hosts = ctx.scale_up_domain(pool)
    if declared is None or declared.switches is None or hosts <= 1:
        return 0.0
    return None if declared.switch_kw is None else declared.switch_kw * declared.switches / hosts


def build_facility(blueprint: Blueprint, catalog: Catalog, placement: Placement) -> FacilityGraph:
    """Build the facility DiGraph of a placed blueprint (see the module docstring for its shape)."""
    ctx = Context(blueprint, catalog)
    # Per pool index, its hosts' share of their scale-up switches (None: stated switches, unstated power); the power
    # report reads it back from the graph.
    switch_shares = [scale_up_switch_share(ctx, pool) for pool in blueprint.pools]
    graph: FacilityGraph = nx.DiGraph(pue=blueprint.power.pue, site_budget_kw=blueprint.power.site_budget_kw, scale_up_switch_kw=switch_shares)
    graph.add_node(ROOT, kind="site")
    pools = blueprint.pools
    specs = [catalog.get(pool.instance_type) for pool in pools]
    for site in placement.sites:
        zone, block = site.zone, site.block
        zone_node, block_node = ("zone", zone.name), ("block", block.name)
        if zone_node not in graph:
            zone_path = ("failure_domains", "zones", site.zone_index)
            # The zone's own service racks, as (role, racks, kW each or None): on no block's feeds, drawing from the zone.
            services = tuple((group.role, group.racks, group.kw_per_rack) for group in zone.service_racks)
            graph.add_node(zone_node, kind="zone", name=zone.name, budget_kw=zone.budget_kw, path=zone_path, service_racks=services)
            graph.add_edge(ROOT, zone_node)
        rack_budget = block.rack_budget_kw or blueprint.power.rack_budget_kw
        graph.add_node(
            block_node,
            kind="block",
            name=block.name,
            zone=zone.name,
            budget_kw=block.budget_kw,
            rack_budget_kw=rack_budget,
            feed_budget_kw=block.feed_budget_kw,
            power_feeds=block.power_feeds,
            feeds_per_rack=block.feeds_per_rack,
            path=site.path,
            # Racks with no accelerator host, as (role, racks, kW each or None): they draw from the block, after its host racks.
            service_racks=tuple((group.role, group.racks, group.kw_per_rack) for group in block.service_racks),
            host_racks=block.racks,
        )
        graph.add_edge(zone_node, block_node)
        if block.racks is not None:
            feeds = [("feed", block.name, index) for index in range(block.power_feeds)]
            graph.add_nodes_from(feeds, kind="feed", block=block.name)
            graph.add_edges_from((block_node, feed) for feed in feeds)
            graph.add_nodes_from((("rack", block.name, index), {"kind": "rack", "block": block.name, "index": index}) for index in range(block.racks))
            graph.add_edges_from(
                (feeds[feed], ("rack", block.name, index))
                for index in range(block.racks)
                for feed in rack_feeds(index, block.power_feeds, block.feeds_per_rack)
            )
        for index, contents in enumerate(site.racks):
            rack: int | None = index if site.racked else None
            for pool_index, count in contents:
                pool, spec = pools[pool_index], specs[pool_index]
                hosts = ("hosts", pool.name, block.name, rack)
                graph.add_node(
                    hosts,
                    kind="hosts",
                    pool=pool_index,
                    count=count,
                    block=block.name,
                    rack=rack,
                    accelerators=spec.accelerator_count if spec else 0,
                    node_kw=node_kw(pool, spec, switch_shares[pool_index] or 0.0),
                )
                graph.add_edge(block_node if rack is None else ("rack", block.name, rack), hosts)
    return graph


def element_name(node: FacilityNode) -> str:
    """A facility element as users read it: `zone campus`, `block b01`, `b01/feed-1`, `b01/rack-0007`."""
    kind = node[0]
    if kind in ("zone", "block"):
        name: str = node[1]
        return name
    if kind == "feed":
        return f"{node[1]}/feed-{node[2]}"
    if kind == "rack":
        return rack_name(node[1], node[2])
    return str(node)


def physical_outages(graph: FacilityGraph) -> dict[FacilityNode, dict[int, int]]:
    """For every zone, block, feed and rack, the hosts per pool index it takes down.

    An element takes a host down when it dominates it: every supply path from
    the site to the host passes through it. This walks the dominator tree
    (`supply_dominators`) up from each hosts node, so the cost is linear in the
    graph. Elements that take nothing down are absent.

    Examples
    --------
    A dual-corded rack survives either feed; a single-corded one does not.
    >>> G = nx.DiGraph([(ROOT, ("zone", "z")), (("zone", "z"), ("block", "b")),
    ...                 (("block", "b"), ("feed", "b", 0)), (("block", "b"), ("feed", "b", 1)),
    ...                 (("feed", "b", 0), ("rack", "b", 0)), (("feed", "b", 1), ("rack", "b", 0))])
    >>> G.add_node(("hosts", "p", "b", 0), kind="hosts", pool=0, count=4)
    >>> G.add_edge(("rack", "b", 0), ("hosts", "p", "b", 0))
    >>> sorted(physical_outages(G))
    [('block', 'b'), ('rack', 'b', 0), ('zone', 'z')]
    """
    dominator = supply_dominators(graph)
    outages: dict[FacilityNode, dict[int, int]] = {}
    for node, data in graph.nodes(data=True):
        if data.get("kind") != "hosts" or node not in dominator:
            continue
        above = dominator[node]
        while above != ROOT:
            per_pool = outages.setdefault(above, {})
            per_pool[data["pool"]] = per_pool.get(data["pool"], 0) + data["count"]
            above = dominator[above]
    return outages


def supply_dominators(graph: FacilityGraph) -> dict[FacilityNode, FacilityNode]:
    """Every element's immediate dominator from the site: what `networkx.immediate_dominators(graph, ROOT)` gives,
    for a graph without cycles, which a facility graph is (power flows one way).

    networkx's function takes any graph and repeats its pass over the nodes until nothing changes. Without
    cycles one pass in topological order is exact (Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
    Algorithm", 2001): every supplier is settled before what it supplies, whose dominator is where its
    suppliers' chains meet in the dominator tree, and most elements have one supplier, which is the answer.
    The order is the graph's own when `build_facility` added every supplier before what it supplies (it
    does), else `networkx.topological_sort`'s. About 1.7 times as fast as networkx's pass at 131,072
    accelerators; elements the site can't reach are absent, and so is the site, as in networkx's answer.
    `tests/topology/test_blast.py` holds the two equal.
    """
    dominator: dict[FacilityNode, FacilityNode] = {ROOT: ROOT}
    depth: dict[FacilityNode, int] = {ROOT: 0}  # in the dominator tree: small numbers, so no new int objects
    for node in graph if _in_supply_order(graph) else nx.topological_sort(graph):
        settled = [supplier for supplier in graph.pred[node] if supplier in dominator]
        if node == ROOT or not settled:  # the site, or an element the site doesn't reach
            continue
        meet = settled[0]
        for supplier in settled[1:]:
            meet = _meeting(meet, supplier, dominator, depth)
        dominator[node] = meet
        depth[node] = depth[meet] + 1
    del dominator[ROOT]
    return dominator


def _in_supply_order(graph: FacilityGraph) -> bool:
    """True when every element comes after all its suppliers in the graph's own node order."""
    seen: set[FacilityNode] = set()
    for node in graph:
        if any(supplier not in seen for supplier in graph.pred[node]):
            return False
        seen.add(node)
    return True


def _meeting(first: FacilityNode, second: FacilityNode, dominator: dict[FacilityNode, FacilityNode], depth: dict[FacilityNode, int]) -> FacilityNode:
    """Where two settled elements' chains meet in the dominator tree: the nearest element every supply path to either
    passes through."""
    while depth[first] > depth[second]:
        first = dominator[first]
    while depth[second] > depth[first]:
        second = dominator[second]
    while first != second:
        first, second = dominator[first], dominator[second]
    return first
