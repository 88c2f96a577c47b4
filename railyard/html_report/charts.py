"""Charts as inline SVG, drawn with matplotlib (Agg, no display), byte-identical for the same data.

matplotlib stamps a date and random element ids into its SVG; both are fixed
here (`metadata={"Date": None}`, `svg.hashsalt`), so the same blueprint gives the
same report.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot  # noqa: E402 - the backend is chosen before pyplot loads
from matplotlib.figure import Figure  # noqa: E402

matplotlib.rcParams.update({"svg.hashsalt": "railyard", "svg.fonttype": "none", "font.size": 9})

USED, BUDGET, OVER = "#4c78a8", "#9d9d9d", "#e45756"


def svg(figure: Figure) -> str:
    """The figure as an inline `<svg>` element (no XML prologue), then closed."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    pyplot.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def bars_against_limits(title: str, labels: Sequence[str], values: Sequence[float], limits: Sequence[float | None], unit: str) -> str:
    """Horizontal bars, one per label, with each one's limit marked; a bar over its limit is red."""
    height = max(1.6, 0.32 * len(labels) + 0.9)
    figure, axes = pyplot.subplots(figsize=(7.5, height))
    positions = range(len(labels))
    colours = [OVER if limit is not None and value > limit + 1e-9 else USED for value, limit in zip(values, limits, strict=True)]
    axes.barh(list(positions), list(values), color=colours, height=0.6)
    for position, limit in zip(positions, limits, strict=True):
        if limit is not None:
            axes.plot([limit, limit], [position - 0.4, position + 0.4], color=BUDGET, linewidth=2)
    axes.set_yticks(list(positions), list(labels))
    axes.invert_yaxis()
    axes.set_xlabel(unit)
    axes.set_title(title)
    axes.spines[["top", "right"]].set_visible(False)
    return svg(figure)
