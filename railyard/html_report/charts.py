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


def bars_with_unknowns(title: str, labels: Sequence[str], values: Sequence[float | None], unit: str) -> str:
    """Horizontal bars, one per label; a None value is drawn as the word "unknown", never as a bar of zero length."""
    height = max(1.6, 0.32 * len(labels) + 0.9)
    figure, axes = pyplot.subplots(figsize=(7.5, height))
    known = [value for value in values if value is not None]
    axes.barh([index for index, value in enumerate(values) if value is not None], known, color=USED, height=0.6)
    for index, value in enumerate(values):
        # Every bar is labelled with its figure, so a bar too short to see still reads as a number, not as nothing.
        if value is None:
            # At the axis origin, in axes units along x so it stays put whatever the known bars' scale.
            axes.text(0, index, "  unknown (unpriced)", va="center", ha="left", color=OVER, style="italic", transform=axes.get_yaxis_transform())
        else:
            axes.text(value, index, f"  {value:,.2f}", va="center", ha="left", color="#222")
    axes.set_yticks(list(range(len(labels))), list(labels))
    axes.set_xlim(0, max(known, default=1.0) * 1.25 or 1.0)  # room for the largest bar's label
    axes.invert_yaxis()
    axes.set_xlabel(unit)
    axes.set_title(title)
    axes.spines[["top", "right"]].set_visible(False)
    return svg(figure)
