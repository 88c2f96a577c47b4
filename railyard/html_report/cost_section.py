"""The report's cost section: what the design costs per hour, by line and by kind, charted, with every unknown named.

Built from the `cost` section of the `validate --json` document, like every other section; each figure cell
carries its JSON path (`cost.lines.<key>.hourly_usd`), so the page can be held to the document. An unpriced
figure is drawn and written as "unknown", never as zero, and each total says what it leaves out and why
(`cost.left_out`). The table wraps its text columns so it fits a laptop's width (about 1,280 px).
"""

from __future__ import annotations

import html
import json
from typing import Any

from railyard.html_report.charts import bars_with_unknowns

HEADERS = ("item", "kind", "USD/h", "USD/h at max", "upfront USD", "basis", "price source")
# Column widths (percent of the table): the figures keep their width, the prose columns wrap.
WIDTHS = (17, 11, 9, 9, 8, 28, 18)
STYLE = (
    "<style>#cost-table { table-layout: fixed; width: 100%; } #cost-table td { overflow-wrap: anywhere; }"
    " #cost-table td.unknown { color: #a15c00; font-style: italic; }</style>"
)


def _money_cell(value: float | None, figure: str | None, unknown: bool) -> str:
    """A dollar cell: the figure, "unknown" where it couldn't be priced, or blank where nothing applies."""
    attributes = "" if figure is None else f" data-figure='{html.escape(figure)}' data-value='{json.dumps(value)}'"
    if value is None:
        return f"<td class='unknown'{attributes}>unknown</td>" if unknown else f"<td{attributes}></td>"
    return f"<td class='num'{attributes}>{value:,.2f}</td>"


def _row(line: dict[str, Any], text) -> str:
    """One line of the table; its basis says why a figure is unknown, and the fix."""
    hourly = _money_cell(line["hourly_usd"], f"cost.lines.{line['key']}.hourly_usd", bool(line["unknown"]))
    at_max = _money_cell(line["hourly_at_max_usd"], None, bool(line["unknown"]))
    upfront = _money_cell(line["upfront_usd"], None, bool(line["upfront_unknown"]) or (line["kind"] == "capacity_block" and bool(line["unknown"])))
    why = "; ".join(part for part in (line["unknown"] or line["basis"], line["upfront_unknown"]) if part)
    fix = f". Fix: {line['hint']}" if line["hint"] else ""
    return f"<tr>{text(line['item'])}{text(line['kind'])}{hourly}{at_max}{upfront}{text(why + fix)}{text(line['source'])}</tr>"


def _totals(cost: dict[str, Any]) -> str:
    """The totals, each with what it leaves out and why."""

    def leaves(total: str) -> str:
        items = cost["left_out"][total]
        if not items:
            return ""
        return " It leaves out " + "; ".join(f"{item['item']} ({item['why']})" for item in items) + "."

    blocks = any(line["kind"] == "capacity_block" for line in cost["lines"])
    known = "unknown" if cost["upfront_usd"] is None else f"{cost['upfront_usd']:,.2f} USD"
    upfront = f"{known} upfront for Capacity Blocks.{leaves('upfront_usd')}" if blocks else "Nothing upfront (no Capacity Blocks)."
    hourly = f"<span data-figure='cost.hourly_usd' data-value='{cost['hourly_usd']}'>{cost['hourly_usd']:,.2f}</span>"
    return (
        f"<ul id='cost-total'><li>{html.escape(cost['region'])}: {hourly} USD per hour as planned, "
        f"{cost['hourly_at_max_usd']:,.2f} at max size.{html.escape(leaves('hourly_usd'))}</li>"
        f"<li>{cost['monthly_usd']:,.2f} USD a month of {cost['hours_per_month']} hours.{html.escape(leaves('monthly_usd'))}</li>"
        f"<li>{html.escape(upfront)}</li>"
        "<li>Usage (data processed and transferred, requests), support and taxes are left out of every total (docs/cost.md).</li></ul>"
    )


def _by_kind(cost: dict[str, Any]) -> tuple[list[str], list[float | None]]:
    """Each kind's known USD/h, labelled with how many of its lines are unpriced (None where none is priced)."""
    unpriced: dict[str, int] = {}
    for line in cost["lines"]:
        unpriced[line["kind"]] = unpriced.get(line["kind"], 0) + (line["hourly_usd"] is None)
    kinds = cost["by_kind_hourly_usd"]
    labels = [kind + (f" (+{unpriced[kind]} unpriced)" if unpriced.get(kind) and kinds[kind] is not None else "") for kind in kinds]
    return labels, list(kinds.values())


def cost_section(document: dict[str, Any], cell) -> str:
    """The section's body: the totals, two charts (by line, by kind), and the line table, or why there is none."""
    cost = document.get("cost")
    if cost is None:
        return "<p>Not priced (the blueprint has errors or can't be planned).</p>"
    lines = cost["lines"]
    by_line = bars_with_unknowns(
        "USD per hour as planned, by line", [line["item"] for line in lines], [line["hourly_usd"] for line in lines], "USD/h"
    )
    by_kind = bars_with_unknowns("USD per hour as planned, by kind", *_by_kind(cost), "USD/h")
    head = "".join(f"<th>{html.escape(header)}</th>" for header in HEADERS)
    columns = "".join(f"<col style='width: {width}%'>" for width in WIDTHS)
    rows = "".join(_row(line, cell) for line in lines)
    body = f"<table id='cost-table'><colgroup>{columns}</colgroup><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    return f'{STYLE}{_totals(cost)}<figure id="cost-by-line">{by_line}</figure><figure id="cost-by-kind">{by_kind}</figure>{body}'
