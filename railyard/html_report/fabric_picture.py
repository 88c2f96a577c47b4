"""The fabric drawn with networkx and matplotlib: tiers top to bottom, to scale when small, aggregated when large.

A fabric of at most `TO_SCALE` switches and hosts is drawn switch by switch and
host by host (from the explicit graph). A larger one is drawn as the
checker's merged graph: one box per group of identical switches or hosts, with
its count, so a 131,072-GPU fabric is a few dozen boxes.
"""

from __future__ import annotations

import networkx as nx
from matplotlib import pyplot

from railyard.html_report.charts import svg
from topology.design import FabricDesign
from topology.expand import expand_fabric

TO_SCALE = 300
TIERS = ("core", "spine", "leaf", "host")
COLOURS = {"core": "#54a24b", "spine": "#f58518", "leaf": "#4c78a8", "host": "#b279a2"}


def _order(node: object) -> tuple:
    """Fabric order for a drawing: positions, planes and rails as numbers (so position 10 comes after 9), names as text."""
    flat: list[tuple[int, int | str]] = []

    def walk(part: object) -> None:
        if isinstance(part, tuple):
            for item in part:
                walk(item)
        elif isinstance(part, int):
            flat.append((0, part))
        else:
            flat.append((1, str(part)))

    walk(node)
    return tuple(flat)


def _tier(data: dict) -> str:
    return data["tier"] if data["kind"] == "switch" else "host"


def _to_scale(fabric: FabricDesign) -> nx.Graph:
    """Switches and hosts of the explicit graph (NICs, accelerators and scale-up nodes folded into their host)."""
    explicit = expand_fabric(fabric.graph)
    picture: nx.Graph = nx.Graph()
    for node, data in explicit.nodes(data=True):
        if data["kind"] == "switch":
            picture.add_node(node, tier=data["tier"], label="")
    for u, v in explicit.edges():
        ends = [node if explicit.nodes[node]["kind"] == "switch" else ("host", node[1], node[2]) for node in (u, v)]
        if ends[0] != ends[1] and any(explicit.nodes[node]["kind"] == "switch" for node in (u, v)):
            for end in ends:
                if end not in picture:
                    picture.add_node(end, tier="host", label="")
            picture.add_edge(*ends)
    return picture


def _aggregated(fabric: FabricDesign) -> nx.Graph:
    picture: nx.Graph = nx.Graph()
    for node, data in fabric.graph.nodes(data=True):
        label = f"{data['count']}"  # switches or hosts in the group; the legend names the tier
        picture.add_node(node, tier=_tier(data), label=label)
    picture.add_edges_from(fabric.graph.edges())
    return picture


def fabric_svg(fabric: FabricDesign) -> tuple[str, str]:
    """(the picture as inline SVG, "to scale" or "aggregated")."""
    drawn = sum(data["count"] for _, data in fabric.graph.nodes(data=True) if data["kind"] == "switch" or data["part"] == 0)
    scale = "to scale" if drawn <= TO_SCALE else "aggregated"
    picture = _to_scale(fabric) if scale == "to scale" else _aggregated(fabric)
    layers = {tier: sorted((node for node, data in picture.nodes(data=True) if data["tier"] == tier), key=_order) for tier in TIERS}
    # Each tier a row, the cores on top, its nodes spread evenly in fabric order (so a host sits under its leaves).
    position = {
        node: ((index + 0.5) / len(layers[tier]), -float(depth)) for depth, tier in enumerate(TIERS) for index, node in enumerate(layers[tier])
    }
    widest = max(len(layer) for layer in layers.values() if layer)
    width = min(14.0, max(6.0, (0.06 if scale == "to scale" else 0.42) * widest + (4 if scale == "to scale" else 0)))
    figure, axes = pyplot.subplots(figsize=(width, 3.6))
    nx.draw_networkx_edges(picture, position, ax=axes, width=0.4, alpha=0.35)
    size = 40 if scale == "to scale" else 500
    for tier in TIERS:
        if layers[tier]:
            nx.draw_networkx_nodes(picture, position, nodelist=layers[tier], node_color=COLOURS[tier], node_size=size, ax=axes, label=tier)
    if scale == "aggregated":
        nx.draw_networkx_labels(picture, position, labels={node: picture.nodes[node]["label"] for node in picture}, font_size=7, ax=axes)
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False, markerscale=0.4 if scale == "aggregated" else 1.0)
    axes.set_title(f"fabric {fabric.plan.name} ({scale})")
    axes.axis("off")
    return svg(figure), scale
