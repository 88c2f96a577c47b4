"""A diff for people: a terminal report, and the Markdown a pull request gets as a comment.

Both read in the same order: what the change does to the running cluster (impact, and cost lines that
move), what it lets the cluster grow to (ceilings), the cost totals before and after, the resource
changes, then the findings: the new side's, marked new or unchanged against the old side's, and those
the change resolves, then the diff's own. Each total shows before, after and the change in columns of
their own, never a change written beside a new total.
"""

from __future__ import annotations

import json
from typing import Any

from blueprints.findings import Finding, summarize
from railyard.change.before_after import BeforeAfter
from railyard.change.ceilings import Ceiling
from railyard.change.compare import ResourceChange
from railyard.change.diff import DiffResult
from railyard.change.findings_change import CHANGED, NEW
from railyard.render import finding_block, findings_report, table
from topology.cost_report import cents

MAX_VALUE = 48
STILL = "at the planned size nothing changes: no node added, removed, rolled or replaced, no data lost, no cost moved as planned or upfront"


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 3] + "..."


def change_lines(change: ResourceChange) -> list[str]:
    """What changed in one resource, one line per input: `path: old -> new (effect)`, and how many more values
    under the same path changed (list items share a path: a ClusterQueue's quotas, which the ceilings label)."""
    lines = []
    for item in change.inputs:
        source = item.via.rsplit("::", 1)[-1]
        what = f"{item.path}: follows {source}" if item.via else f"{item.path}: {_value(item.old)} -> {_value(item.new)}"
        more = f"; {item.more} more value(s) at this path changed too" if item.more else ""
        lines.append(f"{what} ({item.effect.kind}{more})")
    return lines


def _impact_rows(result: DiffResult) -> list[tuple[str, str]]:
    """The impact table's rows: what the change does to capacity, nodes and data, then the cost lines that move."""
    rows = [(impact.subject, impact.summary) for impact in result.impacts]
    return rows + (result.cost.rows() if result.cost is not None else [])


def _summary(result: DiffResult) -> str:
    counts = result.counts()
    if not counts:
        return "no resource changes"
    return ", ".join(f"{count} {action}" for action, count in counts.items())


def shown_ceilings(result: DiffResult) -> tuple[list[Ceiling], int]:
    """The ceilings a report lists (the totals, and every other one that moved) and how many it leaves out."""
    shown = [ceiling for ceiling in result.ceilings if ceiling.kind == "total" or ceiling.figures.moved]
    return shown, len(result.ceilings) - len(shown)


def _ceiling_rows(result: DiffResult) -> list[list[str]]:
    shown, _ = shown_ceilings(result)
    return [[ceiling.label, *ceiling.cells(), ceiling.status or ""] for ceiling in shown]


def _money(figures: BeforeAfter, count: bool) -> list[str]:
    """A cost total's cells: a count as it is, dollars rounded to the cent first (as `--json` has them)."""
    if count:
        return figures.cells(lambda value: f"{value:,}", lambda value: f"{value:+,}")
    return figures.rounded(cents).cells(lambda value: f"{value:,.2f}", lambda value: f"{value:+,.2f}")


def _cost_rows(result: DiffResult) -> list[list[str]]:
    if result.cost is None:
        return []
    return [[label, *_money(figures, key == "unpriced_lines")] for key, label, figures in result.cost.totals()]


def _where(finding: Finding) -> str:
    return f"{finding.file}:{finding.line}" if finding.line else (finding.file or finding.path_text)


def _new_side_rows(result: DiffResult) -> list[list[str]]:
    listed = result.new_side.listed() if result.new_side is not None else []
    return [[status, finding.severity, finding.code, _where(finding), finding.message] for status, finding in listed]


def text_report(result: DiffResult) -> str:
    """The terminal report: impact, ceilings, cost totals, every changed resource, then the findings."""
    out = [f"railyard diff: {result.old.label} -> {result.new.label}", f"replace table: {result.table.described}", ""]
    if not result.compared:
        out.append("not compared: a side is invalid")
        out.append(findings_report(result.findings, result.source_maps[-1] if result.source_maps else None))
        return "\n".join(out)
    out.append("What it does to the running cluster")
    impact_rows = _impact_rows(result)
    out.append(table(["subject", "impact"], [list(row) for row in impact_rows]) if impact_rows else f"  {STILL}")
    out += _text_section("Ceilings (every pool at its largest)", ["ceiling", "before", "after", "change", "status"], _ceiling_rows(result))
    hidden = shown_ceilings(result)[1]
    if hidden:
        out.append(f"{hidden} other ceiling(s) unchanged (`--json` lists every one)")
    out += _text_section("Cost totals (USD, priced lines)", ["total", "before", "after", "change"], _cost_rows(result))
    out += ["", f"Resources: {_summary(result)}"]
    rows = []
    for change in result.changes:
        lines = change_lines(change) or [""]
        rows.append([change.action, change.type, change.name, lines[0]])
        rows.extend(["", "", "", line] for line in lines[1:])
    if rows:
        out.append(table(["action", "type", "name", "inputs"], rows))
    out += _text_findings(result)
    return "\n".join(out)


def _text_section(title: str, headers: list[str], rows: list[list[str]]) -> list[str]:
    return ["", title, table(headers, rows)] if rows else []


def _text_findings(result: DiffResult) -> list[str]:
    """The new side's findings (new ones with their source line), then the diff's own."""
    source_map = result.source_maps[-1] if result.source_maps else None
    out = []
    if result.new_side is not None:
        out += ["", f"Findings: {result.new_side.summary()}"]
        rows = _new_side_rows(result)
        if rows:
            out.append(table(["status", "severity", "code", "where", "message"], rows))
        for status, finding in result.new_side.listed():
            if status in (NEW, CHANGED):
                out += ["", finding_block(finding, source_map)]
    if result.findings:
        out += ["", "Findings of the change itself", findings_report(result.findings, source_map)]
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown_table(title: str, headers: list[str], rows: list[list[str]]) -> list[str]:
    if not rows:
        return []
    out = [title, "", "| " + " | ".join(headers) + " |", "|" + " --- |" * len(headers)]
    return out + ["| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows] + [""]


def markdown_report(result: DiffResult) -> str:
    """The pull-request comment: a verdict, impact, ceilings, cost totals, the findings, and the resource changes folded."""
    counts = summarize(result.findings)
    verdict = "blocked" if not result.ok else "ok"
    tally = f"{counts['error']} error(s), {counts['warning']} warning(s)"
    if result.compared:
        side = f" Findings: {result.new_side.summary()}." if result.new_side is not None else ""
        opening = f"{_summary(result)}.{side} The change itself: {tally}."
    else:
        opening = f"Not compared: a side is invalid ({tally})."
    out = [
        f"### railyard diff: `{result.old.label}` → `{result.new.label}`: {verdict}",
        "",
        f"{opening} Replace table: {result.table.described}.",
        "",
    ]
    rows = _impact_rows(result)
    if rows:
        out += _markdown_table("**What it does to the running cluster**", ["subject", "impact"], [list(row) for row in rows])
    elif result.compared:
        out += [f"**What it does to the running cluster**: {STILL}.", ""]
    out += _markdown_table("**Ceilings** (every pool at its largest)", ["ceiling", "before", "after", "change", "status"], _ceiling_rows(result))
    out += _markdown_table("**Cost totals** (USD, priced lines)", ["total", "before", "after", "change"], _cost_rows(result))
    if result.compared:
        out += _markdown_table("**Findings of the new side**", ["status", "severity", "code", "where", "message"], _new_side_rows(result))
    own = [[finding.severity, f"`{finding.code}`", _where(finding), finding.message] for finding in result.findings]
    out += _markdown_table("**Findings of the change itself**" if result.compared else "**Findings**", ["severity", "code", "where", "message"], own)
    if result.changes:
        out += ["<details><summary>Resource changes</summary>", "", "| action | type | name | inputs |", "| --- | --- | --- | --- |"]
        for change in result.changes:
            out.append(f"| {change.action} | `{change.type}` | {_cell(change.name)} | {_cell('; '.join(change_lines(change)))} |")
        out += ["", "</details>"]
    return "\n".join(out) + "\n"
