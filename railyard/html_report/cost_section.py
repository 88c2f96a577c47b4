"""The report's cost section: what the design costs per hour, by line and by kind, charted, with every unknown named.

Built from the `cost` section of the `validate --json` document, like every other section; each figure cell
carries its JSON path (`cost.lines.<key>.hourly_usd`), so the page can be held to the document.
"""

from __future__ import annotations

import html
from typing import Any

from railyard.html_report.charts import bars_against_limits


def cost_section(document: dict[str, Any], cell, table) -> str:
    """The section's body: two charts (by line, by kind), the line table and the unpriced lines, or why there is none."""
    cost = document.get("cost")
    if cost is None:
        return "<p>Not priced (the blueprint has errors or can't be planned).</p>"
    priced = [line for line in cost["lines"] if line["hourly_usd"] is not None]
    labels, values = [line["item"] for line in priced], [line["hourly_usd"] for line in priced]
    by_line = bars_against_limits("USD per hour as planned, by line", labels, values, [None] * len(priced), "USD/h")
    kinds = cost["by_kind_hourly_usd"]
    by_kind = bars_against_limits("USD per hour as planned, by kind", list(kinds), list(kinds.values()), [None] * len(kinds), "USD/h")
    rows = [
        f"<tr>{cell(line['item'])}{cell(line['kind'])}{cell(line['hourly_usd'], 'cost.lines.' + line['key'] + '.hourly_usd')}"
        f"{cell(line['hourly_at_max_usd'])}{cell(line['upfront_usd'])}{cell(line['unknown'] or line['basis'])}{cell(line['source'])}</tr>"
        for line in cost["lines"]
    ]
    unknown = cost["unknown"]
    totals = (
        f"<p id='cost-total'>{html.escape(cost['region'])}: <span data-figure='cost.hourly_usd' data-value='{cost['hourly_usd']}'>"
        f"{cost['hourly_usd']:,.2f}</span> USD per hour as planned, {cost['hourly_at_max_usd']:,.2f} at max size, "
        f"{cost['monthly_usd']:,.2f} USD a month of {cost['hours_per_month']} hours (Capacity Blocks: {cost['upfront_usd']:,.2f} USD upfront). "
        + (f"Unpriced, so not in these totals: {html.escape('; '.join(unknown))}." if unknown else "Every line is priced.")
        + " Usage (data processed and transferred, requests), support and taxes are left out (docs/cost.md).</p>"
    )
    headers = ["item", "kind", "USD/h", "USD/h at max", "upfront USD", "basis", "price source"]
    return f'{totals}<figure id="cost-by-line">{by_line}</figure><figure id="cost-by-kind">{by_kind}</figure>' + table(headers, rows, "cost-table")
