"""A diff for people: a terminal report, and the Markdown a pull request gets as a comment."""

from __future__ import annotations

import json
from typing import Any

from blueprints.findings import summarize
from railyard.change.compare import ResourceChange
from railyard.change.diff import DiffResult
from railyard.render import findings_report, table

MAX_VALUE = 48


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 3] + "..."


def change_lines(change: ResourceChange) -> list[str]:
    """What changed in one resource, one line per input: `path: old -> new (effect)`."""
    lines = []
    for item in change.inputs:
        source = item.via.rsplit("::", 1)[-1]
        what = f"{item.path}: follows {source}" if item.via else f"{item.path}: {_value(item.old)} -> {_value(item.new)}"
        lines.append(f"{what} ({item.effect.kind})")
    return lines


def _impact_rows(result: DiffResult) -> list[tuple[str, str]]:
    """The impact table's rows: what the change does to capacity, nodes and data, then what it does to the cost."""
    rows = [(impact.subject, impact.summary) for impact in result.impacts]
    return rows + (result.cost.rows() if result.cost is not None else [])


def _summary(result: DiffResult) -> str:
    counts = result.counts()
    if not counts:
        return "no resource changes"
    return ", ".join(f"{count} {action}" for action, count in counts.items())


def text_report(result: DiffResult) -> str:
    """The terminal report: impact first, then every changed resource, then findings."""
    out = [f"railyard diff: {result.old.label} -> {result.new.label}", f"replace table: {result.table.described}", ""]
    if not result.compared:
        out.append("not compared: a side is invalid")
        out.append(findings_report(result.findings, result.source_maps[-1] if result.source_maps else None))
        return "\n".join(out)
    out.append("What it does to the running cluster")
    impact_rows = _impact_rows(result)
    if impact_rows:
        out.append(table(["subject", "impact"], [list(row) for row in impact_rows]))
    else:
        out.append("  no capacity, node, data or cost impact")
    out += ["", f"Resources: {_summary(result)}"]
    rows = []
    for change in result.changes:
        lines = change_lines(change) or [""]
        rows.append([change.action, change.type, change.name, lines[0]])
        rows.extend(["", "", "", line] for line in lines[1:])
    if rows:
        out.append(table(["action", "type", "name", "inputs"], rows))
    if result.findings:
        out += ["", findings_report(result.findings, result.source_maps[-1] if result.source_maps else None)]
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_report(result: DiffResult) -> str:
    """The pull-request comment: a verdict, the impact table, the findings, and the resource changes folded."""
    counts = summarize(result.findings)
    verdict = "blocked" if not result.ok else "ok"
    out = [
        f"### railyard diff: `{result.old.label}` → `{result.new.label}`: {verdict}",
        "",
        f"{_summary(result) if result.compared else 'not compared: a side has errors'}; {counts['error']} error(s), "
        f"{counts['warning']} warning(s). Replace table: {result.table.described}.",
        "",
    ]
    rows = _impact_rows(result)
    if rows:
        out += ["| subject | impact |", "| --- | --- |"]
        out += [f"| {_cell(subject)} | {_cell(summary)} |" for subject, summary in rows]
        out.append("")
    elif result.compared:
        out += ["No capacity, node, data or cost impact.", ""]
    if result.findings:
        out += ["| severity | code | where | message |", "| --- | --- | --- | --- |"]
        for finding in result.findings:
            where = f"{finding.file}:{finding.line}" if finding.line else (finding.file or finding.path_text)
            out.append(f"| {finding.severity} | `{finding.code}` | {_cell(where)} | {_cell(finding.message)} |")
        out.append("")
    if result.changes:
        out += ["<details><summary>Resource changes</summary>", "", "| action | type | name | inputs |", "| --- | --- | --- | --- |"]
        for change in result.changes:
            out.append(f"| {change.action} | `{change.type}` | {_cell(change.name)} | {_cell('; '.join(change_lines(change)))} |")
        out += ["", "</details>"]
    return "\n".join(out) + "\n"
