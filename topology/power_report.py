"""The power figures `validate --json` gives: IT and facility kW for the site, every zone, block and rack, with the notes
that say what they leave out.

Two things can be left unstated and are then left out of the sums, never counted as 0: a fabric's switch power
(`switch_kw`, noted as `power.switches-unstated`) and a service rack's draw (`kw_per_rack`, noted as
`power.service-racks-unstated`). Service racks stand in a block (on its feeds, after its host racks) or in a zone (on
no block's feeds); either may serve several blocks (`serves`), and draws power once, where it stands.
"""

from __future__ import annotations

from typing import Any

from blueprints.findings import Finding, info
from blueprints.models.domains import Block, ServiceRacks, Zone
from topology.design import Design
from topology.power import NetworkPower, PowerFigures, network_power, power_figures, power_findings

__all__ = ["power_report"]


def power_report(design: Design) -> tuple[dict[str, Any], list[Finding]]:
    """IT and facility kW for the site, every zone and block, and every rack (run-length encoded per block)."""
    network = network_power(((fabric.plan.fabric, fabric.graph) for fabric in design.fabrics), _scale_up_switch_kw(design))
    figures = power_figures(design.facility, network)
    zones: list[dict[str, Any]] = []
    for zone in design.blueprint.failure_domains.zones:
        blocks = [_block_json(design, figures, zone, block) for block in zone.sites]
        zones.append(
            {
                "name": zone.name,
                "it_kw": round(figures.zone_kw[zone.name], 2),
                "budget_kw": zone.budget_kw,
                "blocks": blocks,
                # Racks that stand in no block (management racks serving several): in the zone's it_kw, on no feed.
                "service_racks": [_service_json(zone, group, None) for group in zone.service_racks],
                # Every rack of the zone, host and service racks of its blocks and its own; null when a block states no racks.
                "racks_total": None
                if any(block["racks_total"] is None for block in blocks)
                else sum(block["racks_total"] for block in blocks) + sum(group.racks for group in zone.service_racks),
            }
        )
    power = design.blueprint.power
    site = {
        "it_kw": round(figures.it_kw, 2),
        "facility_kw": round(figures.facility_kw, 2) if figures.facility_kw is not None else None,
        "pue": power.pue,
        "site_budget_kw": power.site_budget_kw,
        "zones": zones,
        # Switches: leaves are in their blocks' (ToRs in their racks') figures, spines and cores only in the site's.
        "network": {"shared_kw": round(network.shared_kw, 2), "fabrics": network.by_fabric, "unstated": network.unstated},
        # Service racks whose draw the blueprint doesn't state: left out of every kW above.
        "service_racks_unstated": [
            {"zone": zone.name, "block": block.name if block else None, "role": group.role, "racks": group.racks}
            for zone, block, group, _ in _service_groups(design)
            if group.kw_per_rack is None
        ],
    }
    findings = power_findings(design.blueprint, design.facility, figures) + _switch_power_notes(design, network)
    return site, findings + _service_rack_notes(design)


def _block_json(design: Design, figures: PowerFigures, zone: Zone, block: Block) -> dict[str, Any]:
    """One block's power figures: its IT load, its racks (host racks run-length encoded) and its feeds."""
    racks = [round(figures.rack_kw[("rack", block.name, index)], 2) for index in range(block.racks or 0)]
    runs: list[dict[str, Any]] = []
    for index, kw in enumerate(racks):
        if runs and runs[-1]["it_kw"] == kw:
            runs[-1]["count"] += 1
        else:
            runs.append({"first": index, "count": 1, "it_kw": kw})
    service = [kw for (_, name, _), kw in figures.service_rack_kw.items() if name == block.name]
    data = design.facility.nodes[("block", block.name)]
    return {
        "name": block.name,
        "it_kw": round(figures.block_kw[block.name], 2),
        "budget_kw": block.budget_kw,
        # A block that states no racks has no rack figures: null, not 0.
        "rack_budget_kw": data["rack_budget_kw"] if block.racked else None,
        # The largest draw of any rack in the block whose draw is known, service racks (management, storage, UFM) included.
        "max_rack_kw": max([*racks, *service], default=0.0) if block.racked else None,
        "racks": runs if block.racked else None,
        # Racks with no accelerator host: their count and draw (in it_kw above; on the feeds after the host racks).
        "service_racks": [_service_json(zone, group, block) for group in block.service_racks],
        "racks_total": (block.racks or 0) + sum(group.racks for group in block.service_racks) if block.racked else None,
        "feed_budget_kw": block.feed_budget_kw,
        # Per feed: its share with every feed up, and its load when the neighbour that loads it most fails.
        "feeds": [
            {"feed": feed.index, "it_kw": round(feed.kw, 2), "failover_kw": round(feed.failover_kw, 2)}
            for feed in figures.feed_kw.get(block.name, ())
        ]
        if block.racked
        else None,
    }


def _service_json(zone: Zone, group: ServiceRacks, block: Block | None) -> dict[str, Any]:
    """A service-rack group as the figures give it: kw_per_rack null when not stated, and the blocks it serves."""
    return {"role": group.role, "racks": group.racks, "kw_per_rack": group.kw_per_rack, "serves": zone.served_by(group, block)}


def _service_groups(design: Design) -> list[tuple[Zone, Block | None, ServiceRacks, tuple[str | int, ...]]]:
    """Every service-rack group of the blueprint: its zone, the block it stands in (None: the zone's own) and its path."""
    groups: list[tuple[Zone, Block | None, ServiceRacks, tuple[str | int, ...]]] = []
    for zone_index, zone in enumerate(design.blueprint.failure_domains.zones):
        zone_path: tuple[str | int, ...] = ("failure_domains", "zones", zone_index)
        for block_index, block in enumerate(zone.blocks):
            groups += [
                (zone, block, group, (*zone_path, "blocks", block_index, "service_racks", index)) for index, group in enumerate(block.service_racks)
            ]
        groups += [(zone, None, group, (*zone_path, "service_racks", index)) for index, group in enumerate(zone.service_racks)]
    return groups


def _service_rack_notes(design: Design) -> list[Finding]:
    """`power.service-racks-unstated` for each service-rack group that states no draw: which figures leave it out."""
    notes: list[Finding] = []
    for zone, block, group, path in _service_groups(design):
        if group.kw_per_rack is not None:
            continue
        where = f"block '{block.name}'" if block else f"zone '{zone.name}'"
        figures = "the block's, zone's and site's IT load, its feeds and its largest rack" if block else "the zone's and site's IT load"
        notes.append(
            info(
                "power.service-racks-unstated",
                (*path, "kw_per_rack"),
                f"the {group.racks} {group.role} rack{'s' if group.racks != 1 else ''} of {where} state no draw, so {figures} "
                "leave them out (they count in the racks, not in the kW)",
                "state kw_per_rack (the racks' measured or rated IT draw) when it is known",
                zone=zone.name,
                block=block.name if block else None,
                role=group.role,
                racks=group.racks,
            )
        )
    return notes


def _scale_up_switch_kw(design: Design) -> dict[str, float | None]:
    """Per fabric, the kW of the scale-up switch chips of its pools' multi-host domains (None: some are not stated)."""
    totals: dict[str, float | None] = {}
    for index, (pool, share) in enumerate(zip(design.blueprint.pools, design.facility.graph["scale_up_switch_kw"], strict=True)):
        if pool.fabric is None or share == 0.0:
            continue
        before = totals.get(pool.fabric, 0.0)
        totals[pool.fabric] = None if share is None or before is None else before + share * design.placement.placed.get(index, 0)
    return totals


def _switch_power_notes(design: Design, network: NetworkPower) -> list[Finding]:
    """`power.switches-unstated` for each designed fabric whose switch power the blueprint leaves out."""
    notes: list[Finding] = []
    for fabric in design.fabrics:
        tiers = network.by_fabric.get(fabric.plan.fabric.name, {})
        missing = [tier for tier, kw in tiers.items() if kw is None]
        if missing:
            notes.append(
                info(
                    "power.switches-unstated",
                    ("fabrics", fabric.index, "switch_kw"),
                    f"fabric '{fabric.plan.fabric.name}' states no switch power for its {', '.join(missing)} switches, so the "
                    "power figures count the hosts alone",
                    "state switch_kw (one switch with its optics, from the switch's datasheet), for all tiers or per tier"
                    + (", and scale_up.switch_kw for the scale-up switch chips" if "scale_up" in missing else ""),
                    tiers=missing,
                )
            )
    return notes
