"""The topology checker: from a validated blueprint, build the design graph and check it.

`check_design(blueprint, catalog) -> DesignReport` places every pool's hosts in
racks, builds the facility graph (site -> zones -> blocks -> feeds -> racks ->
hosts), one merged networkx graph per fabric (hosts, NICs per rail and plane,
leaf / spine / core switches, scale-up domains) and the storage network, then
runs every check. Findings use the blueprint rules' `Finding` type, so
`railyard validate` reports both; the figures are what `validate --json` adds.

Layout: `placement` (hosts into racks), `facility` and `power` (what powers
what, kW against budgets), `layout` (fabric sizing rules), `fabric` (the
merged graph), `expand` (the explicit graph, for tests and small designs),
`connectivity`, `hops`, `bandwidth` (ports, oversubscription, bisection),
`blast` (blast radius and spread), `scale_up` (NVLink / NeuronLink domains), `storage`, `design` (builds it all),
`checks` (runs it all) and `report` (JSON and tables).
"""

from __future__ import annotations

from typing import Any

from blueprints.catalog import Catalog
from blueprints.models import Blueprint
from blueprints.models.fabrics import AwsEfa
from topology import provider_fabric
from topology.checks import blast_report, fabric_report, placement_report, power_report, storage_report
from topology.design import Design, FabricDesign, build_design
from topology.expand import expand_fabric
from topology.report import DesignReport
from topology.scale_up import scale_up_domains

__all__ = ["CODES", "DesignReport", "Design", "FabricDesign", "build_design", "check_design", "expand_fabric"]

CODES: tuple[str, ...] = (
    "topology.placement",
    "topology.planes",
    "topology.disconnected",
    "topology.rail-misaligned",
    "topology.hops",
    "topology.oversubscription",
    "topology.bisection",
    "topology.port-budget",
    "topology.appliance-unplaced",
    "topology.cable-split",
    "topology.blast-radius",
    "topology.spread",
    "fabric.top-tier-uplinks",
    "power.rack-budget",
    "power.feed-budget",
    "power.domain-budget",
    "power.site-budget",
    "power.switches-unstated",
    "power.service-racks-unstated",
    "storage.throughput",
    "storage.checkpoint-time",
    *provider_fabric.CODES,
)
"""Every finding code the topology checker can emit (`railyard rules` lists them)."""


def check_design(blueprint: Blueprint, catalog: Catalog) -> DesignReport:
    """Build the design graph of a validated blueprint and run every check on it."""
    design = build_design(blueprint, catalog)
    findings = list(design.findings)
    fabrics: list[dict[str, Any]] = []
    for fabric in design.fabrics:
        figures, problems = fabric_report(fabric)
        fabrics.append(figures)
        findings += problems
    # AWS's own EFA network: its published figures, and the ones it leaves unknown (no graph to compute them on).
    provided = [provider_fabric.provider_figures(blueprint, catalog, model) for model in blueprint.fabrics if isinstance(model, AwsEfa)]
    power, problems = power_report(design)
    findings += problems
    blast, problems = blast_report(design)
    findings += problems
    storage, problems = storage_report(design)
    findings += problems
    figures = {
        "fabrics": sorted(fabrics, key=lambda fabric: fabric["name"]),
        "provider_fabrics": sorted(provided, key=lambda fabric: fabric["name"]),
        "power": power,
        "blast_radius": blast,
        "scale_up": [domain.figures() for domain in scale_up_domains(blueprint, catalog, design.placement.placed)],
        "storage": storage,
        "placement": placement_report(design),
    }
    return DesignReport(findings, figures, design)
