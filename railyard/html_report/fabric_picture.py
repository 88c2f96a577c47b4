"""The fabric drawn with matplotlib from its `fabric_model.Picture`: tiers as rows, the cores on top.

Grouped, each box names what it stands for and how many, and each edge carries its
links and their speed (`32,768 × 200G`); an edge's label sits nearer the row with
more boxes, where the edges fanning out of one box are furthest apart. Switch by
switch, each switch and host is a dot in its tier's colour and each line one
cabled pair. networkx's `multipartite_layout(align="horizontal")` lays out rows too,
but at one spacing for every row, so two planes' boxes bunch in the middle under a
row of eight rails and their edge labels collide; here each row is spread over the
whole width instead, a few lines of arithmetic (`_positions`).
"""

from __future__ import annotations

from typing import Any

from matplotlib import pyplot
from matplotlib.axes import Axes

from railyard.html_report.charts import svg
from railyard.html_report.fabric_model import TIERS, Edge, Picture, picture_of
from topology.design import FabricDesign

__all__ = ["fabric_svg", "edge_label"]

COLOURS = {"core": "#54a24b", "spine": "#f58518", "leaf": "#4c78a8", "host": "#b279a2"}
WIDEST_INCHES = 11.5  # about 1,100 px: fits a 1,280 px laptop window beside the page's margins


def edge_label(links: int, gbps: float | None, tbps: float) -> str:
    """An edge's words: its links and their speed, or its total bandwidth when its links run at different speeds."""
    return f"{links:,} × {gbps:g}G" if gbps is not None else f"{tbps:,.1f} Tb/s"


Centres = dict[tuple[Any, ...], tuple[float, float]]
"""Each box's centre on the drawing: x in [0, 1] along its row, y minus the row's index (cores on top)."""


def _positions(picture: Picture) -> tuple[Centres, dict[str, int]]:
    """Each box's centre (its row's boxes spread evenly over [0, 1] in order) and each tier's box count."""
    rows = [tier for tier in TIERS if any(box.tier == tier for box in picture.boxes)]
    widths = {tier: sum(1 for box in picture.boxes if box.tier == tier) for tier in rows}
    centres: Centres = {}
    seen = dict.fromkeys(rows, 0)
    for box in picture.boxes:
        centres[box.key] = ((seen[box.tier] + 0.5) / widths[box.tier], -float(rows.index(box.tier)))
        seen[box.tier] += 1
    return centres, widths


def _label_spots(picture: Picture, centres: Centres, widths: dict[str, int]) -> list[tuple[float, float, str]]:
    """Where each edge label goes: edges that fan out of one box to a wider row with the same links share one label
    ("each ...") near that box; any other edge's label sits along it, nearer the row with more boxes."""
    tier_of = {box.key: box.tier for box in picture.boxes}
    fans: dict[tuple[Any, ...], list[Edge]] = {}
    for edge in picture.edges:
        lower, upper = widths[tier_of[edge.lower]], widths[tier_of[edge.upper]]
        hub, far = (edge.lower, edge.upper) if lower < upper else (edge.upper, edge.lower) if upper < lower else (None, None)
        key = (hub, tier_of[far], edge.links, edge.gbps, edge.tbps) if hub is not None and far is not None else (edge.lower, edge.upper)
        fans.setdefault(key, []).append(edge)
    spots = []
    for key, edges in fans.items():
        first = edges[0]
        (x0, y0), (x1, y1) = centres[first.lower], centres[first.upper]
        text = edge_label(first.links, first.gbps, first.tbps)
        if len(edges) > 1:
            hub_x, hub_y = centres[key[0]]
            spots.append((hub_x, hub_y + 0.42 * ((y1 if hub_y == y0 else y0) - hub_y), f"each {text}"))
            continue
        lower, upper = widths[tier_of[first.lower]], widths[tier_of[first.upper]]
        # Straight edges keep the middle; slanted ones between rows as wide sit low, clear of where they cross.
        along = 0.5 if x0 == x1 else 0.62 if upper > lower else 0.38 if lower > upper else 0.28
        spots.append((x0 + along * (x1 - x0), y0 + along * (y1 - y0), text))
    return spots


def _draw_grouped(axes: Axes, picture: Picture, centres: Centres, widths: dict[str, int]) -> None:
    for edge in picture.edges:
        (x0, y0), (x1, y1) = centres[edge.lower], centres[edge.upper]
        axes.plot([x0, x1], [y0, y1], color="#888888", linewidth=1.0, zorder=1)
    for x, y, text in _label_spots(picture, centres, widths):
        label_box = {"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "#cccccc"}
        axes.text(x, y, text, ha="center", va="center", fontsize=8, zorder=2, bbox=label_box)
    for box in picture.boxes:
        x, y = centres[box.key]
        style = {"boxstyle": "round,pad=0.45", "facecolor": COLOURS[box.tier], "edgecolor": "#333333"}
        axes.text(x, y, box.label, ha="center", va="center", fontsize=9, zorder=3, bbox=style, color="white")


def _draw_switch_by_switch(axes: Axes, picture: Picture, centres: Centres) -> None:
    for edge in picture.edges:
        (x0, y0), (x1, y1) = centres[edge.lower], centres[edge.upper]
        axes.plot([x0, x1], [y0, y1], color="#888888", linewidth=0.6, zorder=1)
    for tier in TIERS:
        points = [centres[box.key] for box in picture.boxes if box.tier == tier]
        if points:
            axes.scatter([x for x, _ in points], [y for _, y in points], s=36, color=COLOURS[tier], zorder=2, label=tier)
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False)


def fabric_svg(fabric: FabricDesign) -> tuple[str, Picture]:
    """(the picture as inline SVG, the model it was drawn from)."""
    picture = picture_of(fabric)
    centres, widths = _positions(picture)
    widest = max(widths.values())
    width = min(WIDEST_INCHES, max(7.0, (1.5 if picture.scale == "grouped" else 0.25) * widest + 2.0))
    figure, axes = pyplot.subplots(figsize=(width, 1.25 * len(widths)))
    figure.subplots_adjust(left=0, right=1, top=1, bottom=0)  # the rows take the whole figure, not matplotlib's margins
    if picture.scale == "grouped":
        _draw_grouped(axes, picture, centres, widths)
    else:
        _draw_switch_by_switch(axes, picture, centres)
    axes.set_xlim(-0.02, 1.02)
    axes.set_ylim(-len(widths) + 0.6, 0.4)
    axes.axis("off")
    return svg(figure), picture
