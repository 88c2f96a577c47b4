"""Every check on a built design, each returning (figures for `validate --json`, findings).

One function per area: fabrics (connectivity, rails, ports, oversubscription,
hops, bisection), power (`topology.power_report`), blast radius and spread, storage. Each quotes the bad
figure, the limit and the certificate, and points at the blueprint field that
sets the limit. A check whose inputs failed to build is skipped.
"""

from __future__ import annotations

from typing import Any

from blueprints.findings import Finding, error
from blueprints.models.pools import Pool
from topology.bandwidth import Bisection, SharedCuts, bisection, oversubscription, provisioned_bisection_gbps, switch_loss, switch_ports
from topology.blast_report import blast_report
from topology.connectivity import connectivity_findings, pool_components
from topology.design import Design, FabricDesign
from topology.expand import expanded_size
from topology.fabric import FabricGraph, node_name
from topology.hops import ROUTES, Hops, worst_case_hops
from topology.power_report import power_report
from topology.storage import storage_report as tier_reports

__all__ = ["fabric_report", "power_report", "blast_report", "storage_report", "placement_report"]


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def _tier_ports(graph: FabricGraph) -> dict[str, dict[str, int]]:
    """Each built tier's radix, port split, breakout, speeds and planes (the top tier has no uplinks)."""
    shapes = graph.graph["tier_shapes"]
    return {
        tier: {
            "radix": shapes[tier].radix,
            "down_ports": shapes[tier].down_ports,
            "up_ports": shapes[tier].up_ports,
            "breakout": shapes[tier].breakout,
            "down_gbps": shapes[tier].down_gbps,
            "up_gbps": shapes[tier].up_gbps,
            "planes": graph.graph["tier_planes"][tier],
        }
        for tier in ("leaf", "spine", "core")[: graph.graph["tiers"]]
    }


def _switch_loss_json(graph: FabricGraph) -> dict[str, dict[str, Any]]:
    """Per tier, the one switch whose failure takes the most bandwidth (blast radius as bandwidth, not only accelerators)."""
    return {
        tier: {
            "switch": node_name(graph, loss.node),
            "down_gbps": _round(loss.down_gbps, 1),
            "up_gbps": _round(loss.up_gbps, 1),
            "share": _round(loss.share, 4),
        }
        for tier, loss in sorted(switch_loss(graph).items(), key=lambda item: ("leaf", "spine", "core").index(item[0]))
    }


def _appliance_figures(fabric: FabricDesign) -> list[dict[str, Any]]:
    """Each appliance that plugged in: its block, the leaf position and its links."""
    links: dict[str, int] = {}
    for name, _, _, _, count in fabric.plan.appliance_links:
        links[name] = links.get(name, 0) + count
    return [
        {"name": appliance.name, "block": appliance.block, "links": links[appliance.name]}
        for appliance in fabric.plan.fabric.appliances
        if appliance.name in links
    ]


def _host_port_figures(fabric: FabricDesign) -> list[dict[str, Any]]:
    """Each kind of the hosts' own ports (in-band, storage): ports per host and links on the fabric's leaves."""
    hosts = sum(count for position in fabric.plan.positions for _, count in position.hosts)
    return [{"name": kind.name, "ports_per_host": kind.ports, "links": hosts * kind.ports} for kind in fabric.plan.fabric.host_ports]


def _appliance_findings(fabric: FabricDesign) -> list[Finding]:
    """`topology.appliance-unplaced` for an appliance whose block has no leaf of this fabric to plug into."""
    placed = {name for name, *_ in fabric.plan.appliance_links}
    blocks = sorted({position.block for position in fabric.plan.positions})
    return [
        error(
            "topology.appliance-unplaced",
            ("fabrics", fabric.index, "appliances", index, "block"),
            f"appliance '{appliance.name}' plugs into block '{appliance.block}', which has no leaf of fabric '{fabric.plan.name}'",
            f"name a block this fabric's hosts are in: {blocks}",
            blocks=blocks,
        )
        for index, appliance in enumerate(fabric.plan.fabric.appliances)
        if appliance.name not in placed
    ]


def _cable_findings(fabric: FabricDesign) -> list[Finding]:
    """`topology.cable-split` where `links_per_cable` doesn't divide a host's, its in-band or storage ports', an appliance's
    or a switch side's links."""
    model, plan = fabric.plan.fabric, fabric.plan
    pairs = model.links_per_cable
    if pairs == 1:
        return []
    ends: list[tuple[tuple[Any, ...], str, int]] = [
        (("pools", shape.pool_index, "instance_type"), f"a host of pool '{shape.pool}' ({shape.instance_type})", shape.nics * model.ports_per_nic)
        for shape in plan.shapes.values()
    ]
    ends += [
        (("fabrics", fabric.index, "appliances", index, "ports"), f"appliance '{appliance.name}'", appliance.ports)
        for index, appliance in enumerate(model.appliances)
    ]
    ends += [
        (("fabrics", fabric.index, "host_ports", index, "ports"), f"a host's {kind.name} ports", kind.ports)
        for index, kind in enumerate(model.host_ports)
    ]
    for tier, shape in plan.tier_shapes.items():
        ends += [
            (("fabrics", fabric.index, "oversubscription", tier), f"a {tier} switch's {side}", links)
            for side, links in (("down links", shape.down_links), ("uplinks", shape.up_links))
        ]
    return [
        error(
            "topology.cable-split",
            path,
            f"{what} has {links} links on fabric '{model.name}', not a multiple of links_per_cable {pairs}, so one cable would be half used",
            f"make it a multiple of {pairs} (more ports, or another oversubscription), or set links_per_cable: 1",
            links=links,
            links_per_cable=pairs,
        )
        for path, what, links in ends
        if links % pairs
    ]


def _port_findings(fabric: FabricDesign) -> list[Finding]:
    graph, shapes = fabric.graph, fabric.graph.graph["tier_shapes"]
    over = [ports for ports in switch_ports(graph) if ports.total > shapes[ports.tier].radix + 1e-9]
    findings: list[Finding] = []
    for tier in ("leaf", "spine", "core"):
        in_tier = [ports for ports in over if ports.tier == tier]
        if not in_tier:
            continue
        radix = shapes[tier].radix
        worst = max(in_tier, key=lambda ports: ports.total)
        switches = sum(graph.nodes[ports.node]["count"] for ports in in_tier)
        findings.append(
            error(
                "topology.port-budget",
                ("fabrics", fabric.index, "switch_radix"),
                f"{node_name(graph, worst.node)} needs {worst.total:g} ports ({worst.down:g} down, {worst.up:g} up) but has {radix}; "
                f"{switches} {tier} switch(es) of fabric '{graph.graph['name']}' are over",
                "raise switch_radix, add a tier (tiers: 3), or put fewer hosts behind each leaf",
                switch=node_name(graph, worst.node),
                tier=tier,
                ports=worst.total,
                down=worst.down,
                up=worst.up,
                radix=radix,
                switches_over=switches,
            )
        )
    return findings


def _oversubscription(fabric: FabricDesign) -> tuple[dict[str, float | None], list[Finding]]:
    graph, declared = fabric.graph, fabric.graph.graph["declared_oversubscription"]
    worst = oversubscription(graph)
    findings: list[Finding] = []
    for tier, found in worst.items():
        if found is not None and found[0] > declared[tier] + 1e-9:
            ratio, node = found
            findings.append(
                error(
                    "topology.oversubscription",
                    ("fabrics", fabric.index, "oversubscription", tier),
                    f"{node_name(graph, node)} is {ratio:.2f}:1 oversubscribed (down:up ports); the fabric "
                    f"allows {declared[tier]:g}:1 at the {tier} tier",
                    "put fewer hosts behind each leaf (fewer hosts per rack for a ToR Clos), or allow more oversubscription",
                    switch=node_name(graph, node),
                    tier=tier,
                    ratio=round(ratio, 3),
                    allowed=declared[tier],
                )
            )
    return {tier: (_round(found[0]) if found else None) for tier, found in worst.items()}, findings


def _hop_figures(hops: Hops | None) -> dict[str, Any]:
    """Same rail, cross rail (the best route), and each named cross-rail route's worst case (None: no such route)."""
    figures: dict[str, Any] = {"same_rail": hops.same_rail if hops else None, "cross_rail": hops.cross_rail if hops else None}
    for route in ROUTES:
        found = hops.routes.get(route) if hops else None
        figures[f"cross_rail_{route}"] = found[0] if found else None
    return figures


def _hop_findings(fabric: FabricDesign, pool: Pool, hops: Hops | None) -> list[Finding]:
    """`topology.hops` for each bound the pool's worst pair exceeds; the cross-rail bound on the route it names."""
    bounds = fabric.plan.fabric.max_switch_hops
    findings: list[Finding] = []
    if hops is None:
        return findings
    route = bounds.cross_rail_route
    checked = {"same_rail": (hops.same_rail, hops.same_rail_pair), "cross_rail": hops.bound(route)}
    for key, found in checked.items():
        bound = getattr(bounds, key)
        where = ("fabrics", fabric.index, "max_switch_hops", key)
        if bound is None:
            continue
        if found is None:
            findings.append(
                error(
                    "topology.hops",
                    where,
                    f"pool '{pool.name}' has no cross-rail route {route.replace('_', '-')} to hold to max_switch_hops.cross_rail "
                    f"({'a rail-only fabric has no spine between rails' if route == 'fabric' else 'no scale-up domain holds two rails'})",
                    "bound another route (max_switch_hops.cross_rail_route), or change the fabric",
                    pool=pool.name,
                    route=route,
                )
            )
            continue
        count, pair = found
        if count <= bound:
            continue
        named = f"max_switch_hops.{key}" + (f" (route {route})" if key == "cross_rail" and route != "best" else "")
        findings.append(
            error(
                "topology.hops",
                where,
                f"pool '{pool.name}' needs {count} switch hops from rail {pair['from']['rail']} "
                f"at position {pair['from']['position']} ({pair['from']['block']}) "
                f"to rail {pair['to']['rail']} at position {pair['to']['position']} ({pair['to']['block']}), "
                f"via {' > '.join(pair['switches'])}; {named} is {bound}",
                "keep the pool within fewer pods or blocks (fewer tiers between its hosts), or relax the bound",
                pool=pool.name,
                hops=count,
                bound=bound,
                pair=pair,
            )
        )
    return findings


def _pool_fabric(fabric: FabricDesign, pool: Pool, shared: SharedCuts) -> tuple[dict[str, Any], list[Finding], Bisection | None]:
    # The pool's part of the fabric gives the same figures as the whole (topology.pool_graphs), at the pool's size.
    graph, model = fabric.parts.graph_of(pool.name), fabric.plan.fabric
    figures: dict[str, Any] = {"name": pool.name, "connected": len(pool_components(graph, pool.name)) == 1}
    findings: list[Finding] = []
    hops = worst_case_hops(graph, pool.name) if figures["connected"] else None
    figures["max_switch_hops"] = _hop_figures(hops)
    findings += _hop_findings(fabric, pool, hops)
    # Hot spares run no job until one takes a failed host's place: the bisection jobs see is their pool's, not theirs.
    figures["standby_for"] = pool.standby_for
    cut = bisection(graph, pool.name, shared) if figures["connected"] and pool.standby_for is None else None
    figures["bisection_gbps_per_accelerator"] = _round(cut.per_accelerator_gbps, 1) if cut else None
    minimum = model.min_bisection_gbps_per_accelerator
    if cut is not None and minimum is not None and cut.per_accelerator_gbps < minimum - 1e-9:
        findings.append(
            error(
                "topology.bisection",
                ("fabrics", fabric.index, "min_bisection_gbps_per_accelerator"),
                f"pool '{pool.name}' gets {cut.per_accelerator_gbps:,.1f} Gbps of bisection per accelerator: "
                f"{cut.gbps:,.0f} Gbps between its first {cut.hosts[0]} "
                f"and last {cut.hosts[1]} hosts, limited by the cut {cut.cut_gbps}; the fabric asks {minimum:g}",
                "lower the leaf or spine oversubscription, add NICs per accelerator, or relax min_bisection_gbps_per_accelerator",
                pool=pool.name,
                gbps_per_accelerator=round(cut.per_accelerator_gbps, 1),
                bisection_gbps=round(cut.gbps, 1),
                hosts=list(cut.hosts),
                cut_gbps={key: round(value, 1) for key, value in cut.cut_gbps.items()},
                required=minimum,
            )
        )
    return figures, findings, cut


def _counts(graph: FabricGraph) -> tuple[dict[str, int], dict[str, int]]:
    switches = {"leaf": 0, "spine": 0, "core": 0}
    links = {"host_leaf": 0, "leaf_spine": 0, "spine_core": 0}
    for _, data in graph.nodes(data=True):
        if data["kind"] == "switch":
            switches[data["tier"]] += data["count"]
            links["host_leaf"] += data.get("service_links", 0)
    for u, v, data in graph.edges(data=True):
        tiers = {graph.nodes[node].get("tier", "host") for node in (u, v)}
        key = "host_leaf" if "host" in tiers else ("spine_core" if "core" in tiers else "leaf_spine")
        links[key] += data["links"]
    return switches, links


def fabric_report(fabric: FabricDesign) -> tuple[dict[str, Any], list[Finding]]:
    """One fabric's figures and findings: sizes, oversubscription, bisection, hops, ports, connectivity."""
    graph = fabric.graph
    findings = connectivity_findings(graph, list(fabric.pools), fabric.parts.graph_of) + _port_findings(fabric) + _appliance_findings(fabric)
    findings += _cable_findings(fabric)
    over, problems = _oversubscription(fabric)
    findings += problems
    pools: list[dict[str, Any]] = []
    cuts: list[Bisection | None] = []
    shared: SharedCuts = {}  # pools laid over the fabric the same way share one max-flow (topology.bandwidth._cut_shape)
    for _, pool in fabric.pools:
        figures, problems, cut = _pool_fabric(fabric, pool, shared)
        pools.append(figures)
        cuts.append(cut)
        findings += problems
    switches, links = _counts(graph)
    endpoints = [data for _, data in graph.nodes(data=True) if data["kind"] == "endpoint"]
    # One pool running jobs on the fabric: its halves are the fabric's, so its cut is the fabric's (spares stand by).
    jobs = [cut for (_, pool), cut in zip(fabric.pools, cuts, strict=True) if pool.standby_for is None]
    whole = jobs[0] if len(jobs) == 1 else (bisection(graph) if all(pool["connected"] for pool in pools) else None)
    # The worst of the fabric's pools, per route: the pools' keys (same rail, cross rail, and each named cross-rail route).
    keys = sorted({key for pool in pools for key in pool["max_switch_hops"]})
    hops = {
        key: max((pool["max_switch_hops"].get(key) for pool in pools if pool["max_switch_hops"].get(key) is not None), default=None) for key in keys
    }
    nodes, edges = expanded_size(graph)
    figures = {
        "name": graph.graph["name"],
        "kind": graph.graph["kind"],
        "tiers": graph.graph["tiers"],
        "rails": graph.graph["rails"],
        "planes": graph.graph["planes"],
        "link_gbps": graph.graph["link_gbps"],
        "switch_radix": graph.graph["radix"],
        "tier_ports": _tier_ports(graph),
        "accelerators": sum(data["count"] * data["accelerators"] for data in endpoints),
        "hosts": sum(data["count"] for data in endpoints if data["part"] == 0),
        "appliances": _appliance_figures(fabric),
        "host_ports": _host_port_figures(fabric),
        "switches": switches,
        "links": links,
        # A cable per `links_per_cable` links of a layer; rounded up where a finding says one is half used.
        "cables": {layer: -(-count // fabric.plan.fabric.links_per_cable) for layer, count in links.items()},
        "oversubscription": over,
        "switch_loss": _switch_loss_json(graph),
        "bisection_tbps": _round(whole.gbps / 1000) if whole else None,
        "bisection_provisioned_tbps": _round(provisioned_bisection_gbps(graph) / 1000),
        "max_switch_hops": hops,
        "graph": {"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges(), "expanded_nodes": nodes, "expanded_edges": edges},
        "pools": sorted(pools, key=lambda pool: pool["name"]),
    }
    return figures, findings


def storage_report(design: Design) -> tuple[list[dict[str, Any]], list[Finding]]:
    """Per tier: throughput, read demand and what is served, and every checkpoint's write rate and time."""
    return tier_reports(design.blueprint, design.storage)


def placement_report(design: Design) -> list[dict[str, Any]]:
    """Per pool: hosts requested and placed, and hosts per zone and per block."""
    report: list[dict[str, Any]] = []
    for pool_index, wanted in design.placement.requested.items():
        report.append(
            {
                "pool": design.blueprint.pools[pool_index].name,
                "requested": wanted,
                "placed": design.placement.placed[pool_index],
                "zones": design.placement.hosts_by(pool_index, "zone"),
                "blocks": design.placement.hosts_by(pool_index, "block"),
            }
        )
    return sorted(report, key=lambda entry: entry["pool"])
