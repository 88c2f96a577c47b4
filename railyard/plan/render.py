"""How `railyard plan` prints its result: a text table for the terminal, and Markdown for a pull request or a ticket."""

from __future__ import annotations

from railyard.plan import PlanResult
from railyard.render import table

HEADERS = ["rank", "region", "zone", "type", "nodes", "accel", "start", "end", "upfront", "$/accel-h", "findings", "file"]


def _rows(result: PlanResult) -> list[list[str]]:
    rows = []
    for candidate in result.candidates:
        entry = candidate.as_json()
        rows.append(
            [
                str(entry["rank"]),
                entry["region"],
                entry["zone"],
                entry["instance_type"],
                str(entry["nodes"]),
                str(entry["accelerators"]),
                entry["start"][:10],
                entry["end"][:10],
                f"${entry['upfront_usd']:,.2f}",
                f"${entry['usd_per_accelerator_hour']:,.2f}",
                f"0 err {candidate.warnings} warn",
                entry["blueprint"] or "-",
            ]
        )
    return rows


def _searched(result: PlanResult) -> str:
    searched = result.as_json()["searched"]
    types = ", ".join(searched["types"]) or "none"
    line = (
        f"searched {types} for {searched['duration_hours']} h blocks: {result.offerings} offerings, "
        f"quoted as of {searched['quoted_at']} (offerings change: plan again before buying)"
    )
    return "\n".join([line, *searched["notes"], *(f"not read: {item}" for item in searched["unread"])])


def text(result: PlanResult) -> str:
    """The terminal report: what was searched, the candidates, the rejections with their codes, and how to buy rank 1."""
    parts = [_searched(result)]
    parts.append(table(HEADERS, _rows(result)) if result.candidates else "no candidate")
    if result.beyond_top:
        parts.append(f"{result.beyond_top} more combination(s) beyond --top were not proven")
    rejected = [f"  {', '.join(one.offering_ids)}: {one.code}: {one.message}" for one in result.rejected]
    parts.append("rejected (each with what ruled it out):\n" + ("\n".join(rejected) if rejected else "  none"))
    infeasible = [f"  {entry['code']}: {entry['message']}" for entry in result.infeasible]
    parts.append("infeasible:\n" + ("\n".join(infeasible) if infeasible else "  none"))
    if result.candidates:
        best = result.candidates[0].as_json()
        buy = "\n".join(f"  {command}" for command in best["purchase"])
        parts.append(f"to buy #1 (railyard never buys):\n{buy}\nthen: railyard plan adopt {best['blueprint'] or 'FILE'} --reservation cr-...")
    return "\n\n".join(parts) + "\n"


def markdown(result: PlanResult) -> str:
    """The same report as Markdown tables."""
    lines = [f"### railyard plan: {result.name}", "", _searched(result), ""]
    if result.candidates:
        lines += ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
        lines += ["| " + " | ".join(row) + " |" for row in _rows(result)]
    else:
        lines.append("No candidate.")
    lines += ["", "| offerings | code | why |", "|---|---|---|"]
    lines += [f"| {', '.join(one.offering_ids)} | `{one.code}` | {one.message} |" for one in result.rejected]
    for entry in result.infeasible:
        lines += ["", f"**infeasible** `{entry['code']}`: {entry['message']}"]
    return "\n".join(lines) + "\n"
