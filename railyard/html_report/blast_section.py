"""The report's blast-radius section: per pool, what one failure of each kind takes, and whether the pool is checked
against it, so the chart, the table and the page's verdict say the same thing.

A pool's `max_failure_share` applies only to the kinds its `spread` asks it to survive (`topology.blast.checked_kinds`):
a rack-spread pool is not checked against a block or zone failure, which takes all of it by design. So every row
of the chart is one of four states, drawn apart: within its tolerance (a bar against the grey tolerance tick), over
it (a red bar: `validate` reports `topology.blast-radius`), not checked (a hatched bar with no tolerance, labelled
"not checked"), or unknown (no bar: the share was not computed). The verdict per pool is the rule
`topology.blast.blast_findings` applies: the worst checked share against the tolerance.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

from matplotlib import pyplot
from matplotlib.ticker import PercentFormatter

from blueprints.records import record
from railyard.html_report.blast_cells import link_loss_text, percent, spares_text
from railyard.html_report.charts import BUDGET, OVER, USED, svg
from topology.blast import KINDS

__all__ = ["BlastBar", "blast_bars", "blast_section", "over_tolerance"]

NOT_CHECKED = "#c7c7c7"
STATES = ("within", "over", "not checked", "unknown")
CAPTION = (
    "Blue: a failure the pool is checked against, within its tolerance (grey tick); red: over it. "
    "Hatched, no tick: not checked, because the pool's spread does not ask it to survive that failure. "
    "Unknown: not computed (a block that states no racks, or AWS's own network)."
)


@record
class BlastBar:
    """One row of the chart: a pool, a kind of failure, the share of the pool it takes (None: unknown), the state
    (one of `STATES`) and the tolerance it is held to (None when not checked)."""

    pool: str
    kind: str
    share: float | None
    state: str
    tolerance: float | None


def over_tolerance(share: float, tolerance: float) -> bool:
    """Whether a checked failure takes more of the pool than it tolerates (the checker's rounding allowance)."""
    return share > tolerance + 1e-9


def blast_bars(entry: dict[str, Any]) -> list[BlastBar]:
    """The chart's rows for one `blast_radius` entry of the `validate --json` document, in `topology.blast.KINDS` order."""
    bars = []
    tolerance = entry["max_failure_share"]
    for kind in KINDS:
        if kind in entry["unknown"]:
            bars.append(BlastBar(entry["pool"], kind, None, "unknown", None))
        elif kind in entry["by_kind"]:
            share = entry["by_kind"][kind]["share"] or 0.0
            if kind in entry["checked"]:
                bars.append(BlastBar(entry["pool"], kind, share, "over" if over_tolerance(share, tolerance) else "within", tolerance))
            else:
                bars.append(BlastBar(entry["pool"], kind, share, "not checked", None))
    return bars


def _words(bar: BlastBar, spread: str) -> str:
    if bar.share is None:
        return "unknown: not computed"
    if bar.tolerance is None:
        return f"{percent(bar.share)}: not checked (spread: {spread})"
    return f"{percent(bar.share)} {'>' if bar.state == 'over' else '≤'} {percent(bar.tolerance)} tolerated"


def _chart(bars: list[BlastBar], spreads: dict[str, str]) -> str:
    """Horizontal bars in the four states (see the module docstring); each bar's SVG group is named
    `bar-<pool>-<kind>-<state>` and each tolerance tick `tolerance-<pool>-<kind>`, so a test can read the drawing."""
    figure, axes = pyplot.subplots(figsize=(7.0, max(1.6, 0.3 * len(bars) + 0.8)))
    for position, bar in enumerate(bars):
        name = f"{bar.pool}-{bar.kind}-{bar.state.replace(' ', '-')}"
        if bar.share is not None:
            checked = bar.tolerance is not None
            fill = (OVER if bar.state == "over" else USED) if checked else "none"
            axes.barh(
                [position],
                [bar.share],
                height=0.6,
                color=fill,
                edgecolor=fill if checked else NOT_CHECKED,
                hatch=None if checked else "///",
                gid=f"bar-{name}",
            )
        if bar.tolerance is not None:
            axes.plot([bar.tolerance] * 2, [position - 0.4, position + 0.4], color=BUDGET, linewidth=2, gid=f"tolerance-{bar.pool}-{bar.kind}")
        colour = "#222222" if bar.tolerance is not None else "#777777"
        axes.text(1.03, position, _words(bar, spreads[bar.pool]), va="center", fontsize=8, color=colour, gid=f"words-{name}")
    axes.set_yticks(range(len(bars)), [f"{bar.pool}: {bar.kind}" for bar in bars])
    for label, bar in zip(axes.get_yticklabels(), bars, strict=True):
        label.set_color("#222222" if bar.tolerance is not None else "#777777")
    axes.set_xlim(0, 1)
    axes.set_ylim(len(bars) - 0.5, -0.5)
    axes.xaxis.set_major_formatter(PercentFormatter(1.0))
    axes.set_xlabel("share of the pool one failure takes")
    axes.spines[["top", "right"]].set_visible(False)
    return svg(figure)


def _share_cell(share: float | None, figure: str) -> str:
    """A table cell with the share as a percentage, carrying its JSON path and exact value."""
    text = percent(share) if share is not None else "-"
    return f'<td class="num" data-figure="{html.escape(figure)}" data-value="{html.escape(json.dumps(share))}">{text}</td>'


def blast_section(document: dict[str, Any], cell: Callable[..., str], table: Callable[[list[str], list[str], str], str]) -> str:
    """The section's body: the chart, its key, and one table row per pool with its verdict."""
    entries = document["blast_radius"]
    bars = [bar for entry in entries for bar in blast_bars(entry)]
    rows = []
    for entry in entries:
        pool_bars = blast_bars(entry)
        worst = entry["worst"]
        verdict = "over tolerance" if any(bar.state == "over" for bar in pool_bars) else "within tolerance" if worst else "nothing checked"
        not_checked = ", ".join(f"{bar.kind} {percent(bar.share)}" for bar in pool_bars if bar.state == "not checked" and bar.share is not None)
        element = f"{worst['kind']} {worst['element']}" if worst else None
        rows.append(
            f'<tr data-pool="{html.escape(entry["pool"])}" data-verdict="{verdict}">{cell(entry["pool"])}{cell(entry["spread"])}'
            f"{cell(percent(entry['max_failure_share']))}{cell(verdict)}{cell(', '.join(entry['checked']) or '-')}{cell(element)}"
            f"{_share_cell(worst['share'] if worst else None, 'blast_radius.' + entry['pool'] + '.worst.share')}"
            f"{cell(not_checked or '-')}{cell(', '.join(entry['unknown']) or '-')}"
            f"{cell(link_loss_text(entry.get('link_loss')))}{cell(spares_text(entry.get('spares')))}</tr>"
        )
    chart = _chart(bars, {entry["pool"]: entry["spread"] for entry in entries}) if bars else ""
    headers = ["pool", "spread", "tolerance", "verdict", "checked", "worst checked", "its share", "not checked", "unknown"]
    return f'<figure id="blast-chart">{chart}<figcaption>{CAPTION}</figcaption></figure>' + table(
        headers + ["one link, one leaf", "spares"], rows, "blast-table"
    )
