"""The report page: one self-contained HTML file (inline CSS and SVG, no script, nothing fetched at view time).

Every figure it shows comes from the `validate --json` document, and every figure
cell carries its JSON path (`data-figure`) and value (`data-value`), so a test can
hold the page to the JSON it was built from.
"""

from __future__ import annotations

import html
import json
from typing import Any

from railyard.html_report.blast_section import blast_section
from railyard.html_report.charts import bars_against_limits
from railyard.html_report.cost_section import cost_section
from railyard.html_report.fabric_picture import fabric_svg
from railyard.pipeline import QUOTA_STATUS
from topology.cluster.placement_groups import PlacementDecision
from topology.design import Design

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; max-width: 78rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.85rem; }
th, td { border: 1px solid #ddd; padding: 0.2rem 0.5rem; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.error { color: #b00020; font-weight: 600; } .warning { color: #a15c00; } .info { color: #555; }
figure { margin: 0.6rem 0; } svg { max-width: 100%; height: auto; } figcaption { font-size: 0.85rem; color: #555; }
summary { cursor: pointer; margin: 0.4rem 0; } #quota-table td:first-child { white-space: nowrap; }
#findings-table td:nth-child(3), #findings-table td:nth-child(4) { overflow-wrap: anywhere; min-width: 10rem; max-width: 16rem; }
#findings-table td:nth-child(5), #findings-table td:nth-child(6) { min-width: 16rem; }
"""


FABRIC_CAPTIONS = {
    "grouped": "Each box stands for the switches (or one pool's hosts) of one tier, plane and, where they fit, rail, with their count; "
    "each edge is every link between two boxes: links × link speed.",
    "switch by switch": "Each dot is one switch or host, each line the cables between two of them.",
}


def _text(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.3f}".rstrip("0").rstrip(".")
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def _cell(value: Any, figure: str | None = None) -> str:
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    attributes = ' class="num"' if numeric else ""
    if figure is not None:
        attributes += f' data-figure="{html.escape(figure)}" data-value="{html.escape(json.dumps(value))}"'
    return f"<td{attributes}>{html.escape(_text(value))}</td>"


def _table(headers: list[str], rows: list[str], identifier: str) -> str:
    head = "".join(f"<th>{html.escape(header)}</th>" for header in headers)
    return f'<table id="{identifier}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _fabrics(design: Design, figures: dict[str, Any]) -> str:
    parts: list[str] = []
    by_name = {fabric["name"]: fabric for fabric in figures["fabrics"]}
    for fabric in design.fabrics:
        data = by_name[fabric.plan.name]
        picture, drawn = fabric_svg(fabric)
        key = f"fabrics.{data['name']}"
        rows = [
            f"<tr><td>{tier}</td>{_cell(data['switches'][tier], f'{key}.switches.{tier}')}"
            f"{_cell(data['oversubscription'].get(tier), f'{key}.oversubscription.{tier}')}"
            f"{_cell(data['switch_loss'].get(tier, {}).get('down_gbps'), f'{key}.switch_loss.{tier}.down_gbps')}</tr>"
            for tier in ("leaf", "spine", "core")
        ]
        bisection = data["bisection_tbps"]
        built = [tier for tier in ("spine", "core") if tier in data["tier_ports"]]
        joined = next((tier for tier in built if data["tier_ports"][tier]["planes"] < data["planes"]), None)
        planes = f"{data['planes']} plane(s)" + (f", joined at the {joined} tier" if joined else "")
        summary = (
            f"<p>{html.escape(data['kind'])}, {data['tiers']} tier(s), {planes}, {data['rails']} rail(s): "
            f"{_text(data['hosts'])} hosts, {_text(data['accelerators'])} accelerators; bisection "
            f"<span data-figure='{key}.bisection_tbps' data-value='{json.dumps(bisection)}'>{_text(bisection)}</span> Tb/s; "
            f"hops same rail / cross rail {_text(data['max_switch_hops']['same_rail'])} / {_text(data['max_switch_hops']['cross_rail'])}</p>"
        )
        parts.append(
            f'<section class="fabric" id="fabric-{html.escape(data["name"])}"><h3>{html.escape(data["name"])}</h3>{summary}'
            f'<figure class="fabric-picture" data-scale="{drawn.scale}">{picture}<figcaption>{FABRIC_CAPTIONS[drawn.scale]}</figcaption></figure>'
            + _table(["tier", "switches", "oversubscription", "one switch carries (Gb/s down)"], rows, f"fabric-{data['name']}-tiers")
            + "</section>"
        )
    for provided in figures["provider_fabrics"]:
        rows = [
            f"<tr>{_cell(item['pool'])}{_cell(item['instance_type'])}{_cell(item['efa_interfaces'])}"
            f"{_cell(item['network_gbps'])}{_cell(item['network_node_layers'])}</tr>"
            for item in provided["pools"]
        ]
        parts.append(
            f'<section class="provider-fabric"><h3>{html.escape(provided["name"])} (AWS-managed EFA)</h3>'
            + _table(["pool", "instance type", "EFA interfaces", "network Gb/s", "network-node layers"], rows, f"provider-{provided['name']}")
            + f"<p>Not computed (AWS publishes no fan-out): {html.escape(', '.join(provided['unknown']))}.</p></section>"
        )
    return "".join(parts) or "<p>No fabric.</p>"


def _scale_up(figures: dict[str, Any]) -> str:
    rows = []
    for entry in figures["scale_up"]:
        key = f"scale_up.{entry['pool']}"
        loss = entry["switch_loss"]
        rows.append(
            f"<tr>{_cell(entry['pool'])}{_cell(entry['kind'])}{_cell(entry['accelerators_per_domain'], key + '.accelerators_per_domain')}"
            f"{_cell(entry['hosts_per_domain'], key + '.hosts_per_domain')}{_cell(entry['domains'], key + '.domains')}"
            f"{_cell(entry['switches_per_domain'], key + '.switches_per_domain')}{_cell(entry['accelerator_tbps'], key + '.accelerator_tbps')}"
            f"{_cell(entry['bisection_tbps'], key + '.bisection_tbps')}{_cell(entry['max_switch_hops'], key + '.max_switch_hops')}"
            f"{_cell(loss['share'] if loss else None)}{_cell(', '.join(entry['unknown']) or '-')}</tr>"
        )
    if not rows:
        return "<p>No pool has a scale-up interconnect.</p>"
    headers = ["pool", "kind", "accelerators per domain", "hosts per domain", "domains", "switches per domain", "Tb/s per accelerator"]
    return _table(headers + ["bisection Tb/s", "switch hops", "one switch takes", "unknown"], rows, "scale-up-table")


def _power(figures: dict[str, Any]) -> str:
    power = figures["power"]
    labels, values, limits, rows = [], [], [], []
    for zone in power["zones"]:
        for block in zone["blocks"]:
            labels.append(f"{zone['name']} / {block['name']}")
            values.append(block["it_kw"])
            limits.append(block["budget_kw"])
            rows.append(
                f"<tr>{_cell(zone['name'])}{_cell(block['name'])}{_cell(block['it_kw'], 'power.' + zone['name'] + '.' + block['name'] + '.it_kw')}"
                f"{_cell(block['budget_kw'])}{_cell(block['max_rack_kw'] if block['racks'] is not None else 'racks not stated')}"
                f"{_cell(block['rack_budget_kw'])}</tr>"
            )
        for group in zone.get("service_racks", ()):
            kw = group["kw_per_rack"]
            label = f"{group['racks']} {group['role']} racks (the zone's; serve {', '.join(group['serves'])})"
            total = group["racks"] * kw if kw is not None else "not stated"
            rows.append(
                f"<tr>{_cell(zone['name'])}{_cell(label)}{_cell(total)}{_cell(None)}{_cell(kw if kw is not None else 'not stated')}{_cell(None)}</tr>"
            )
    chart = bars_against_limits("IT load per block (grey: the block's budget)", labels, values, limits, "kW")
    site = (
        f"<p>Site IT load <span data-figure='power.it_kw' data-value='{json.dumps(power['it_kw'])}'>{_text(power['it_kw'])}</span> kW; "
        f"facility {_text(power['facility_kw'])} kW (PUE {_text(power['pue'])}); budget {_text(power['site_budget_kw'])} kW; "
        f"spines and cores {_text(power['network']['shared_kw'])} kW"
        + (f" (switch power not stated for {html.escape(', '.join(power['network']['unstated']))})" if power["network"]["unstated"] else "")
        + ".</p>"
    )
    return (
        f'<figure id="power-chart">{chart}</figure>{site}'
        + _table(["zone", "block", "IT kW", "budget kW", "max rack kW", "rack budget kW"], rows, "power-table")
        + _feeds(power)
    )


MAX_FEED_BARS = 32  # beyond this, the chart shows each block's most loaded feed (64 bars run past a laptop's screen)
FOLDED_ROWS = 24  # a longer table is folded under a <details> line that says what it holds (no script needed)


def _feeds(power: dict[str, Any]) -> str:
    """Each power feed's load with every feed up and when its worst neighbour fails, against the feed's rating."""
    blocks = [(zone["name"], block) for zone in power["zones"] for block in zone["blocks"] if block["feeds"]]
    if not blocks:
        return "<p>No block states racks, so which feed carries which hosts is not known.</p>"
    labels, values, limits, rows = [], [], [], []
    every = sum(len(block["feeds"]) for _, block in blocks) <= MAX_FEED_BARS
    for zone, block in blocks:
        shown = block["feeds"] if every else [max(block["feeds"], key=lambda feed: (feed["failover_kw"], -feed["feed"]))]
        for feed in shown:
            labels.append(f"{block['name']}/feed-{feed['feed']}")
            values.append(feed["failover_kw"])
            limits.append(block["feed_budget_kw"])
        for feed in block["feeds"]:
            path = f"power.{zone}.{block['name']}.feeds.{feed['feed']}"
            rows.append(
                f"<tr>{_cell(zone)}{_cell(block['name'])}{_cell(feed['feed'])}{_cell(feed['it_kw'], path + '.it_kw')}"
                f"{_cell(feed['failover_kw'], path + '.failover_kw')}{_cell(block['feed_budget_kw'])}</tr>"
            )
    title = "Load per power feed when its worst neighbour fails (grey: the feed's rating)" + ("" if every else "; each block's most loaded feed")
    chart = bars_against_limits(title, labels, values, limits, "kW")
    table = _table(["zone", "block", "feed", "IT kW, all feeds up", "kW, worst neighbour down", "rating kW"], rows, "feed-table")
    if len(rows) > FOLDED_ROWS:
        table = f"<details><summary>Every feed: {len(rows)} rows</summary>{table}</details>"
    return f'<figure id="feed-chart">{chart}</figure>' + table


def _storage(figures: dict[str, Any]) -> str:
    tiers = [tier for tier in figures["storage"] if tier["throughput_mb_per_s"] is not None]
    rows = [
        f"<tr>{_cell(tier['name'])}{_cell(tier['kind'])}{_cell(tier['throughput_mb_per_s'], 'storage.' + tier['name'] + '.throughput_mb_per_s')}"
        f"{_cell(tier['read_demand_mb_per_s'], 'storage.' + tier['name'] + '.read_demand_mb_per_s')}{_cell(tier['served_mb_per_s'])}</tr>"
        for tier in figures["storage"]
    ]
    chart = ""
    if tiers:
        chart = bars_against_limits(
            "Read demand per tier (grey: the tier's throughput)",
            [tier["name"] for tier in tiers],
            [tier["read_demand_mb_per_s"] for tier in tiers],
            [tier["throughput_mb_per_s"] for tier in tiers],
            "MB/s",
        )
    return f'<figure id="storage-chart">{chart}</figure>' + _table(
        ["tier", "kind", "throughput MB/s", "read demand MB/s", "served MB/s"], rows, "storage-table"
    )


def _placements(decisions: tuple[PlacementDecision, ...]) -> str:
    rows = [
        f"<tr>{_cell(decision.pool)}{_cell(decision.zone)}{_cell(decision.strategy or 'none')}{_cell(decision.nodes)}{_cell(decision.reason)}</tr>"
        for decision in decisions
    ]
    return (
        _table(["pool", "zone", "placement group", "nodes", "why"], rows, "placement-table")
        if rows
        else "<p>Not planned (the blueprint has errors).</p>"
    )


def _quotas(document: dict[str, Any]) -> str:
    rows = [
        f"<tr>{_cell(need['code'])}{_cell(need['name'])}{_cell(need['needed'], 'quotas.' + need['code'] + '.needed')}{_cell(need['available'])}"
        f"{_cell(QUOTA_STATUS[need['ok']])}{_cell(need['why'])}</tr>"
        for need in document["quotas"]
    ]
    return _table(["quota", "name", "needed", "available", "status", "why"], rows, "quota-table")


def _where(finding: dict[str, Any]) -> str | None:
    file: str | None = finding.get("file")
    return f"{file}:{finding['line']}" if file and finding.get("line") else file


def _findings(document: dict[str, Any]) -> str:
    rows = [
        f'<tr class="{finding["severity"]}">{_cell(finding["severity"])}{_cell(finding["code"])}{_cell(finding["path"])}'
        f"{_cell(_where(finding))}{_cell(finding['message'])}{_cell(finding['hint'])}</tr>"
        for finding in document["findings"]
    ]
    return _table(["severity", "code", "path", "where", "message", "hint"], rows, "findings-table")


def render_page(document: dict[str, Any], design: Design | None, decisions: tuple[PlacementDecision, ...]) -> str:
    """The whole page for one `validate --json` document (and its design graph, when it validated)."""
    summary = document["summary"]
    title = f"railyard report: {document['blueprint']}"
    sections = [f"<h1>{html.escape(title)}</h1>"]
    status = "ok" if document["ok"] else "FAILED"
    sections.append(
        f'<p id="summary" data-ok="{str(document["ok"]).lower()}">{status}: {summary["error"]} error(s), {summary["warning"]} warning(s), '
        f"{summary['info']} note(s); {_text(summary.get('pools'))} pools, {_text(summary.get('nodes'))} nodes, "
        f"{_text(summary.get('accelerators'))} accelerators.</p>"
    )
    if design is not None and "fabrics" in document:
        sections += [
            f'<section id="fabrics"><h2>Fabrics</h2>{_fabrics(design, document)}</section>',
            f'<section id="blast"><h2>Failure domains and blast radius</h2>{blast_section(document, _cell, _table)}</section>',
            f'<section id="scale-up"><h2>Scale-up domains (NVLink / NeuronLink)</h2>{_scale_up(document)}</section>',
            f'<section id="power"><h2>Power</h2>{_power(document)}</section>',
            f'<section id="storage"><h2>Storage</h2>{_storage(document)}</section>',
        ]
    sections += [
        f'<section id="placement"><h2>Placement decisions</h2>{_placements(decisions)}</section>',
        f'<section id="quotas"><h2>Quota plan</h2>{_quotas(document)}</section>',
        f'<section id="cost"><h2>Cost</h2>{cost_section(document, _cell)}</section>',
        f'<section id="findings"><h2>Findings</h2>{_findings(document)}</section>',
    ]
    body = "\n".join(sections)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body>\n{body}\n</body></html>\n"
    )
