"""The checker's answer: findings, the figures `validate --json` prints, and the same figures as tables."""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from blueprints.findings import Finding
from blueprints.records import record

if TYPE_CHECKING:
    from topology.design import Design

__all__ = ["DesignReport"]

Table = tuple[str, list[str], list[list[str]]]
"""A human table: title, headers, rows of cell text."""


@record(frozen=False)
class DesignReport:
    """Findings and figures from checking one blueprint's design graph.

    `figures` holds the top-level keys `validate --json` gains: ``fabrics``,
    ``power``, ``blast_radius``, ``storage`` and ``placement``. Every list in
    it is sorted and every float rounded, so the same blueprint always gives
    byte-identical JSON.
    """

    findings: list[Finding] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    # The graphs the figures were read from (scheduler exports and the HTML report draw on them); not in the JSON.
    design: Design | None = field(default=None, repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        """Figures for `validate --json`: fabrics, provider_fabrics, power, blast_radius, scale_up, storage, placement."""
        return dict(self.figures)

    def tables(self) -> list[Table]:
        """Human tables, (title, headers, rows) each, showing the same figures as `as_json`."""
        tables: list[Table] = []
        fabrics = self.figures.get("fabrics", [])
        if fabrics:
            tables.append(_fabric_table(fabrics))
            tables.append(_fabric_pool_table(fabrics))
        if self.figures.get("provider_fabrics"):
            tables.append(_provider_table(self.figures["provider_fabrics"]))
        if "power" in self.figures:
            tables.append(_power_table(self.figures["power"]))
        if self.figures.get("blast_radius"):
            tables.append(_blast_table(self.figures["blast_radius"]))
        if self.figures.get("scale_up"):
            tables.append(_scale_up_table(self.figures["scale_up"]))
        if self.figures.get("storage"):
            tables += _storage_tables(self.figures["storage"])
        return tables


def _text(value: object, suffix: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.3f}".rstrip("0").rstrip(".") + suffix
    return f"{value:,}{suffix}" if isinstance(value, int) else f"{value}{suffix}"


def _fabric_table(fabrics: list[dict[str, Any]]) -> Table:
    headers = [
        "fabric",
        "kind",
        "tiers",
        "hosts",
        "accelerators",
        "leaf",
        "spine",
        "core",
        "oversub leaf",
        "oversub spine",
        "bisection Tbps",
        "hops same/cross",
        "graph nodes/edges (explicit)",
    ]
    rows = []
    for fabric in fabrics:
        hops, graph, over = fabric["max_switch_hops"], fabric["graph"], fabric["oversubscription"]
        rows.append(
            [
                fabric["name"],
                fabric["kind"],
                fabric["tiers"],
                _text(fabric["hosts"]),
                _text(fabric["accelerators"]),
                _text(fabric["switches"]["leaf"]),
                _text(fabric["switches"]["spine"]),
                _text(fabric["switches"]["core"]),
                _text(over["leaf"]),
                _text(over["spine"]),
                _text(fabric["bisection_tbps"]),
                f"{_text(hops['same_rail'])}/{_text(hops['cross_rail'])}",
                f"{graph['nodes']}/{graph['edges']} ({_text(graph['expanded_nodes'])}/{_text(graph['expanded_edges'])})",
            ]
        )
    return "Fabrics", headers, rows


def _provider_table(fabrics: list[dict[str, Any]]) -> Table:
    rows = [
        [pool["pool"], fabric["name"], pool["instance_type"], pool["efa_interfaces"], _text(pool["network_gbps"]), pool["network_node_layers"]]
        for fabric in fabrics
        for pool in fabric["pools"]
    ]
    headers = ["pool", "fabric", "instance type", "EFA interfaces", "network Gbps", "network-node layers"]
    unknown = ", ".join(fabrics[0]["unknown"])
    return f"AWS-managed fabrics (published per instance type; not computed: {unknown})", headers, rows


def _fabric_pool_table(fabrics: list[dict[str, Any]]) -> Table:
    rows = [
        [
            pool["name"],
            fabric["name"],
            "yes" if pool["connected"] else "NO",
            _text(pool["bisection_gbps_per_accelerator"]),
            _text(pool["max_switch_hops"]["same_rail"]),
            _text(pool["max_switch_hops"]["cross_rail"]),
        ]
        for fabric in fabrics
        for pool in fabric["pools"]
    ]
    return "Pools on fabrics", ["pool", "fabric", "connected", "bisection Gbps/accelerator", "hops same rail", "hops cross rail"], rows


def _power_table(power: dict[str, Any]) -> Table:
    rows = []
    for zone in power["zones"]:
        rows.append([f"zone {zone['name']}", _text(zone["it_kw"]), _text(zone["budget_kw"]), "", ""])
        for block in zone["blocks"]:
            rows.append(
                [
                    f"  block {block['name']}",
                    _text(block["it_kw"]),
                    _text(block["budget_kw"]),
                    _text(block["max_rack_kw"]) if block["racks"] is not None else "racks not stated",
                    _text(block["rack_budget_kw"]),
                ]
            )
        rows += [_zone_service_row(group) for group in zone.get("service_racks", ())]
    network = power["network"]
    if network["fabrics"]:
        shared = "not stated for " + ", ".join(network["unstated"]) if network["unstated"] else ""
        rows.append(["spines and cores", _text(network["shared_kw"]), "", shared, ""])
    rows.append(["site IT", _text(power["it_kw"]), "", "", ""])
    pue = f"PUE {power['pue']:g}" if power["pue"] is not None else "no PUE stated"
    rows.append([f"site facility ({pue})", _text(power["facility_kw"]), _text(power["site_budget_kw"]), "", ""])
    return "Power (kW)", ["domain", "IT kW", "budget kW", "max rack kW", "rack budget kW"], rows


def _zone_service_row(group: dict[str, Any]) -> list[str]:
    """A zone's own service racks (standing in no block) as a row: their kW, or that it is not stated."""
    kw = group["kw_per_rack"]
    what = f"  {group['racks']} {group['role']} rack{'s' if group['racks'] != 1 else ''} (serve {', '.join(group['serves'])})"
    return [what, _text(group["racks"] * kw) if kw is not None else "not stated", "", _text(kw) if kw is not None else "not stated", ""]


def _blast_table(blast: list[dict[str, Any]]) -> Table:
    rows = []
    for entry in blast:
        worst = entry["worst"]
        if worst is None:
            element = "none checkable (see unknown)"
        else:
            element = f"{worst['kind']} {worst['element']}" if worst["element"] else f"any {worst['kind']} (none takes a host)"
        unknown = ", ".join(entry.get("unknown", [])) or "-"
        rows.append(
            [
                entry["pool"],
                entry["spread"],
                ", ".join(entry["checked"]),
                unknown,
                element,
                f"{worst['share']:.1%}" if worst is not None else "-",
                _text(entry["max_failure_share"]),
                f"{lost['gbps']:,.0f} Gbps ({lost['share']:.1%})" if (lost := entry.get("bandwidth_lost")) else "-",
            ]
        )
    return (
        "Blast radius (worst single failure the pool must survive)",
        ["pool", "spread", "checked", "unknown", "worst element", "share", "max_failure_share", "worst leaf takes"],
        rows,
    )


def _scale_up_table(domains: list[dict[str, Any]]) -> Table:
    rows = []
    for entry in domains:
        loss = entry["switch_loss"]
        rows.append(
            [
                entry["pool"],
                entry["kind"],
                f"{entry['accelerators_per_domain']} on {entry['hosts_per_domain']}",
                _text(entry["domains"]),
                _text(entry["switches_per_domain"]),
                _text(entry["accelerator_tbps"]),
                _text(entry["domain_tbps"]),
                _text(entry["bisection_tbps"]),
                entry["max_switch_hops"],
                f"{loss['tbps']:,g} Tbps ({loss['share']:.1%}), {loss['accelerators_cut_off']} cut off" if loss else "-",
                ", ".join(entry["unknown"]) or "-",
            ]
        )
    headers = ["pool", "kind", "accelerators on hosts", "domains", "switches", "Tbps/accel (both ways)", "Tbps/domain", "bisection Tbps", "hops"]
    return "Scale-up domains (NVLink / NeuronLink)", headers + ["one switch lost takes", "unknown"], rows


def _storage_tables(storage: list[dict[str, Any]]) -> list[Table]:
    tiers = [
        [
            tier["name"],
            tier["kind"],
            _text(tier["throughput_mb_per_s"]),
            _text(tier["read_demand_mb_per_s"]),
            _text(tier["served_mb_per_s"]),
            ", ".join(tier["pools"]) or "-",
        ]
        for tier in storage
    ]
    checkpoints = [
        [
            entry["pool"],
            tier["name"],
            _text(entry["size_gib"]),
            _text(entry["write_mb_per_s"]),
            _text(entry["seconds"]),
            _text(entry["max_write_seconds"]),
        ]
        for tier in storage
        for entry in tier["checkpoints"]
    ]
    tables = [("Storage (MB/s)", ["tier", "kind", "throughput", "read demand", "served", "pools"], tiers)]
    if checkpoints:
        tables.append(("Checkpoints", ["pool", "tier", "size GiB", "write MB/s", "seconds", "max seconds"], checkpoints))
    return tables
