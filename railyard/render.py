"""Human output: findings with the offending YAML line and a caret, and plain tables."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from blueprints.findings import Finding, summarize
from blueprints.source import SourceMap

_MARK = {"error": "error", "warning": "warn ", "info": "info "}


def table(headers: Sequence[str], rows: Iterable[Sequence]) -> str:
    """A left-aligned text table with a header rule; numbers right-aligned."""
    rows = [["" if cell is None else str(cell) for cell in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str], numeric: Sequence[bool]) -> str:
        parts = [cell.rjust(w) if num else cell.ljust(w) for cell, w, num in zip(cells, widths, numeric, strict=True)]
        return "  ".join(parts).rstrip()

    numeric_columns = [all(_is_number(row[i]) for row in rows) and bool(rows) for i in range(len(headers))]
    out = [line(list(headers), [False] * len(headers)), "  ".join("-" * w for w in widths)]
    out += [line(row, numeric_columns) for row in rows]
    return "\n".join(out)


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", ""))
    except ValueError:
        return False
    return True


def finding_block(finding: Finding, source_map: SourceMap | None) -> str:
    """One finding as `file:line:col: error code: message`, the source line, a caret, the hint."""
    where = finding.file or "<blueprint>"
    if finding.line is not None:
        where += f":{finding.line}:{finding.column or 1}"
    lines = [f"{where}: {_MARK[finding.severity].strip()} [{finding.code}] {finding.path_text}: {finding.message}"]
    text = source_map.source_line(finding.file, finding.line) if source_map else None
    if text is not None:
        lines.append(f"    {finding.line:>4} | {text}")
        lines.append(f"         | {' ' * max(0, (finding.column or 1) - 1)}^")
    if finding.hint:
        lines.append(f"    hint: {finding.hint}")
    return "\n".join(lines)


def findings_table(findings: list[Finding]) -> str:
    """One row per finding: severity, code, path, where, message."""
    rows = [[f.severity, f.code, f.path_text, f"{f.file or ''}:{f.line}" if f.line else (f.file or ""), f.message] for f in findings]
    return table(["severity", "code", "path", "where", "message"], rows)


def findings_report(findings: list[Finding], source_map: SourceMap | None) -> str:
    """A table of all findings, then each with its source line and caret, then a summary."""
    counts = summarize(findings)
    blocks = ([findings_table(findings)] if findings else []) + [finding_block(f, source_map) for f in findings]
    summary = f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} note(s)"
    return "\n\n".join(blocks + [summary])
