"""What the report's fabric drawing shows, as data: which boxes (groups of identical switches or hosts, with counts)
and which edges between them (links and their speed), before anything is drawn.

A fabric small enough to read switch by switch (at most `TO_SCALE_NODES` switches and hosts and `TO_SCALE_LINES`
host-switch and switch-switch pairs) gets one box per switch and per host, from the explicit graph. Any larger
one is grouped from the checker's merged graph: one box per tier and plane (the hosts: one per pool), and, on a
rail fabric whose rows still fit `MAX_ROW` boxes, one per rail, so the rails stay visible; one edge per pair of
boxes, carrying the links it stands for. A 131,072-GPU fabric is a dozen boxes. The tests check the boxes, the
counts and the links against the merged graph's own totals; the drawing (`fabric_picture`) only lays them out.
"""

from __future__ import annotations

from typing import Any

from blueprints.records import record
from topology.design import FabricDesign
from topology.expand import expand_fabric
from topology.layout import RAIL_KINDS

__all__ = ["Box", "Edge", "Picture", "picture_of", "grouped", "TIERS"]

TO_SCALE_NODES = 40
TO_SCALE_LINES = 64
MAX_ROW = 8
TIERS = ("core", "spine", "leaf", "host")


@record
class Box:
    """One box of the drawing: its tier, its name (the key it sorts by), the switches or hosts it stands for."""

    tier: str
    key: tuple[Any, ...]
    count: int
    label: str


@record
class Edge:
    """The links between two boxes (lower tier first): how many, and their speed in Gb/s (None when they differ)."""

    lower: tuple[Any, ...]
    upper: tuple[Any, ...]
    links: int
    gbps: float | None
    tbps: float


@record
class Picture:
    """The drawing's content: "switch by switch" or "grouped", its boxes in row order, its edges sorted by their ends."""

    scale: str
    boxes: tuple[Box, ...]
    edges: tuple[Edge, ...]


def _members(fabric: FabricDesign) -> int:
    graph = fabric.graph
    return sum(data["count"] for _, data in graph.nodes(data=True) if data["kind"] == "switch" or data["part"] == 0)


def picture_of(fabric: FabricDesign) -> Picture:
    """The boxes and edges to draw for one fabric: switch by switch when it is small enough to read, else grouped."""
    if _members(fabric) <= TO_SCALE_NODES:
        picture = _switch_by_switch(fabric)
        if len(picture.edges) <= TO_SCALE_LINES:
            return picture
    return grouped(fabric)


Totals = dict[tuple[tuple[Any, ...], tuple[Any, ...]], list[Any]]
"""(lower box, upper box) -> [links, Tb/s, Gb/s or None when they differ], as the edges are summed."""


def _add_links(totals: Totals, pair: tuple[tuple[Any, ...], tuple[Any, ...]], links: float, gbps: float) -> None:
    entry = totals.setdefault(pair, [0.0, 0.0, gbps])
    entry[0] += links
    entry[1] += links * gbps / 1000
    if entry[2] != gbps:
        entry[2] = None


def _picture(scale: str, counts: dict[tuple[Any, ...], int], totals: Totals, fabric: FabricDesign) -> Picture:
    labelled = scale == "grouped"
    boxes = tuple(
        Box(_tier(key), key, count, _label(key, count, fabric) if labelled else "")
        for key, count in sorted(counts.items(), key=lambda item: _box_order(item[0]))
    )
    edges = tuple(
        Edge(lower, upper, round(links), gbps, round(tbps, 3))
        for (lower, upper), (links, tbps, gbps) in sorted(totals.items(), key=lambda item: (_box_order(item[0][0]), _box_order(item[0][1])))
    )
    return Picture(scale, boxes, edges)


def _switch_by_switch(fabric: FabricDesign) -> Picture:
    """Every switch and host of the explicit graph (a host's NICs, accelerators and scale-up parts folded into it)."""
    explicit = expand_fabric(fabric.graph)
    counts: dict[tuple[Any, ...], int] = {}
    totals: Totals = {}

    def box_of(node: Any) -> tuple[Any, ...]:
        # A switch member is (group, i), its group named by tier first; a NIC is ("nic", endpoint group, host, rail).
        key: tuple[Any, ...] = (*node[0], node[1]) if explicit.nodes[node]["kind"] == "switch" else ("host", node[1][1], node[1][2], node[2])
        counts[key] = 1
        return key

    for u, v, data in explicit.edges(data=True):
        if "switch" in (explicit.nodes[u]["kind"], explicit.nodes[v]["kind"]):
            lower, upper = sorted((box_of(u), box_of(v)), key=lambda key: -TIERS.index(_tier(key)))
            _add_links(totals, (lower, upper), data["links"], data["gbps"])
    return _picture("switch by switch", counts, totals, fabric)


def _order(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """Sort key for boxes: numbers as numbers, names as text, so rail 10 comes after rail 9."""
    return tuple((0, part, "") if isinstance(part, int) else (1, 0, str(part)) for part in key)


def _split_rails(fabric: FabricDesign) -> bool:
    """Whether the grouped drawing gives each rail its own box: a rail fabric whose rail row fits `MAX_ROW` boxes."""
    graph = fabric.graph.graph
    return graph["kind"] in RAIL_KINDS and graph["rails"] > 1 and graph["rails"] * graph["tier_planes"]["leaf"] <= MAX_ROW


def _group_keys(data: dict[str, Any], split: bool) -> list[tuple[tuple[Any, ...], int]]:
    """The boxes one merged group falls in, with the members each gets (a leaf group of several rails splits by rail)."""
    if data["kind"] == "endpoint":
        return [(("host", data["pool_index"], data["pool"]), data["count"] if data["part"] == 0 else 0)]
    tier, plane = data["tier"], data["plane"]
    rails = data.get("rails")
    if split and rails:
        return [((tier, plane, "rail", rail), data["count"] // len(rails)) for rail in rails]
    return [((tier, plane), data["count"])]


def grouped(fabric: FabricDesign) -> Picture:
    """One box per tier and plane (per rail when it fits), one per pool of hosts; one edge per pair of boxes."""
    graph, split = fabric.graph, _split_rails(fabric)
    counts: dict[tuple[Any, ...], int] = {}
    for _, data in graph.nodes(data=True):
        for key, members in _group_keys(data, split):
            counts[key] = counts.get(key, 0) + members
    totals: Totals = {}
    for u, v, data in graph.edges(data=True):
        ends = [[key for key, _ in _group_keys(graph.nodes[node], split)] for node in (u, v)]
        lower, upper = sorted(ends, key=lambda keys: -TIERS.index(_tier(keys[0])))
        # A split leaf group's links are the same on each of its rails (its rails are interchangeable); a rail-only spine
        # sits on one rail, so only the leaves of that rail meet it.
        pairs = [(low, up) for low in lower for up in upper if None in (_rail(low), _rail(up)) or _rail(low) == _rail(up)]
        for pair in pairs:
            _add_links(totals, pair, data["links"] / len(pairs), data["gbps"])
    return _picture("grouped", counts, totals, fabric)


def _rail(key: tuple[Any, ...]) -> int | None:
    """The rail of a box split by rail ((tier, plane, "rail", rail)); None for any other box."""
    return key[3] if len(key) == 4 and key[2] == "rail" else None


def _tier(key: tuple[Any, ...]) -> str:
    return str(key[0])


def _box_order(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return (TIERS.index(_tier(key)), *_order(key[1:]))


def _label(key: tuple[Any, ...], count: int, fabric: FabricDesign) -> str:
    """A box's words: what it stands for (pool, tier, plane, rail) and how many."""
    graph = fabric.graph.graph
    if key[0] == "host":
        return f"{key[2]}\n{count:,} host{'s' if count != 1 else ''}"
    tier, plane = key[0], key[1]
    where = [f"plane {plane}"] if graph["tier_planes"][tier] > 1 else []
    if len(key) > 2:
        where.append(f"rail {key[3]}")
    elif graph["kind"] in RAIL_KINDS and tier == "leaf" and graph["rails"] > 1:
        where.append(f"{graph['rails']} rails")
    pods = {data["pod"] for _, data in fabric.graph.nodes(data=True) if data.get("tier") == tier == "spine" and data.get("pod") is not None}
    in_pods = f" in {len(pods)} pods" if len(pods) > 1 else ""
    return f"{tier}{' · ' + ', '.join(where) if where else ''}\n{count:,} switch{'es' if count != 1 else ''}{in_pods}"
