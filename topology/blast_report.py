"""Blast radius per pool: the worst single failure of each kind (feed, rack, block, zone, switch, scale-up domain), the
worst one the pool's spread is checked against, what a lost leaf or host link costs, and the spares that cover it.

`topology.blast` finds the outages and judges them; this assembles the `validate --json` figures and the findings.
"""

from __future__ import annotations

from typing import Any

from blueprints.findings import Finding
from blueprints.models.fabrics import AwsEfa
from blueprints.rules.context import Context
from topology.bandwidth import switch_loss
from topology.blast import (
    KINDS,
    Outage,
    blast_findings,
    checked_kinds,
    outages_by_pool,
    scale_up_outage,
    spread_findings,
    worst_physical,
    worst_switch,
)
from topology.design import Design, FabricDesign
from topology.fabric import node_name
from topology.facility import physical_outages
from topology.link_loss import host_link_loss, rail_loss
from topology.spares import spare_cover


def _outage_json(outage: Outage) -> dict[str, Any]:
    return {"kind": outage.kind, "element": outage.element, "accelerators": round(outage.accelerators, 2), "share": round(outage.share, 4)}


def blast_report(design: Design) -> tuple[list[dict[str, Any]], list[Finding]]:
    """Per pool, the worst element of each kind and the worst checked one; blast-radius and spread findings."""
    outages = outages_by_pool(physical_outages(design.facility))
    report: list[dict[str, Any]] = []
    findings: list[Finding] = []
    ctx = Context(design.blueprint, design.catalog)
    unracked_blocks = {site.name for site in design.placement.sites if not site.racked}
    for pool_index, pool in enumerate(design.blueprint.pools):
        hosts = design.placement.placed.get(pool_index, 0)
        per_host = design.accelerators_per_host(pool_index)
        if not hosts or not per_host:
            continue
        total = hosts * per_host
        by_kind = worst_physical(outages.get(pool_index, []), per_host, total)
        fabric = design.fabric_of(pool_index)
        # On AWS's own EFA network a switch's reach is unknown (AWS publishes no fan-out): neither reported nor checked.
        provided = pool.fabric in {model.name for model in design.blueprint.fabrics if isinstance(model, AwsEfa)}
        switch = worst_switch(fabric.parts.graph_of(pool.name), pool.name, total) if fabric is not None else Outage("switch", None, 0, 0.0)
        if switch is not None and not provided:
            by_kind["switch"] = switch
        lost = _pool_bandwidth_lost(fabric, pool.name) if fabric is not None else None
        domain = scale_up_outage(*ctx.scale_up_domain(pool), per_host, total)
        if domain is not None:
            by_kind["scale_up"] = domain
        unknown = ["switch"] if provided else []
        # Hosts in a block that states no racks sit in racks and on feeds nobody named: those outages are unknown, not zero.
        unracked = [name for name in design.placement.hosts_by(pool_index, "block") if name in unracked_blocks]
        if unracked:
            unknown += ["rack", "feed"]
            for kind in ("rack", "feed"):
                del by_kind[kind]
        checked = [kind for kind in checked_kinds(pool.placement.spread) if kind in by_kind]
        worst = max((by_kind[kind] for kind in checked), key=lambda outage: outage.share, default=None)
        report.append(
            {
                "pool": pool.name,
                "accelerators": total,
                "max_failure_share": pool.placement.max_failure_share,
                "spread": pool.placement.spread,
                "checked": checked,
                "unknown": unknown,
                "worst": _outage_json(worst) if worst is not None else None,
                "by_kind": {kind: _outage_json(by_kind[kind]) for kind in KINDS if kind in by_kind},
                "bandwidth_lost": lost,
                "spares": spare_cover(design, pool_index, pool, by_kind, per_host),
                "link_loss": _link_loss(fabric, pool.name) if fabric is not None and not provided else None,
            }
        )
        findings += blast_findings(pool_index, pool, by_kind)
        level = {"zones": "zone", "blocks": "block", "racks": "rack"}.get(pool.placement.spread)
        if level:
            findings += spread_findings(pool_index, pool, design.placement.hosts_by(pool_index, level))
    return sorted(report, key=lambda entry: entry["pool"]), findings


def _link_loss(fabric: FabricDesign, pool: str) -> dict[str, Any]:
    """One host link and one leaf lost, per rail (topology.link_loss)."""
    graph = fabric.parts.graph_of(pool)
    link, rail = host_link_loss(graph, pool), rail_loss(graph, pool)
    return {"host_link": link.as_json() if link else None, "leaf_per_rail": rail.as_json() if rail else None}


def _pool_bandwidth_lost(fabric: FabricDesign, pool: str) -> dict[str, Any] | None:
    """The leaf whose failure takes the most of the pool's host bandwidth (its hosts keep running on their other links)."""
    graph = fabric.parts.graph_of(pool)
    leaf = switch_loss(graph).get("leaf")
    if leaf is None:
        return None
    return {"switch": node_name(graph, leaf.node), "gbps": round(leaf.down_gbps, 1), "share": round(leaf.share, 4)}
