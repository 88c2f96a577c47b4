"""Power: IT load per rack, block, zone and site, and the facility load through PUE, against the budgets.

A rack draws the sum of its hosts' per-node draw (`Pool.node_power_kw`, else
the catalog's `typical_node_kw`); blocks and zones add up their racks; the
site's facility load is its IT load times `power.pue` (unknown without one). Budgets checked:

* every rack against its block's `rack_budget_kw`, else `power.rack_budget_kw`
  (a block that states no racks has none: its hosts add to the block directly);
* every feed against its block's `feed_budget_kw`: a rack's draw is split over
  the feeds it draws from, and when a feed fails its dual-corded racks move in
  full to their other feed, so a feed must carry its share plus what it shares
  with the one neighbour whose loss loads it most;
* every block against `block.budget_kw` and every zone against `zone.budget_kw` (IT load);
* the site's facility load against `power.site_budget_kw`.

Switches draw what their fabric states (`switch_kw`, per tier or for all):
a leaf adds to its block (a ToR to its rack), spines and cores to the site
(they serve several blocks). A fabric that states none has its switches left
out, and the figures say so (`network.unstated`). Scale-up switch chips of a
domain that spans hosts (`scale_up.switch_kw`) draw with their domain's hosts.
Service racks draw their `kw_per_rack` where they stand (a block's, on its feeds
after its host racks; a zone's own, on no feed); one whose draw is not stated
keeps its place on the feeds and is left out of the sums (`topology.power_report`
says so).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import field

from blueprints.findings import Finding, error
from blueprints.models import Blueprint
from blueprints.models.fabrics import DesignedFabric
from blueprints.records import record
from topology.fabric import FabricGraph
from topology.facility import FacilityGraph, FacilityNode, element_name

__all__ = ["FeedLoad", "NetworkPower", "PowerFigures", "ServiceRackLoad", "feed_loads", "network_power", "power_figures", "power_findings"]


@record
class NetworkPower:
    """Switch IT power: leaves by block (ToRs by rack), the spines and cores no one block holds, and kW per fabric and tier."""

    block_kw: dict[str, float] = field(default_factory=dict)
    rack_kw: dict[FacilityNode, float] = field(default_factory=dict)
    shared_kw: float = 0.0
    by_fabric: dict[str, dict[str, float | None]] = field(default_factory=dict)

    @property
    def unstated(self) -> list[str]:
        """Fabrics with a tier whose switch power the blueprint doesn't state."""
        return sorted(name for name, tiers in self.by_fabric.items() if any(kw is None for kw in tiers.values()))


def network_power(fabrics: Iterable[tuple[DesignedFabric, FabricGraph]], scale_up_kw: Mapping[str, float | None] | None = None) -> NetworkPower:
    """Add up every fabric's switches at their tier's `switch_kw`, where they stand.

    `scale_up_kw` is, per fabric, the scale-up switch chips' kW where its domains span hosts (None: not stated). Those
    draw inside their domains' racks and are already in the hosts' draw (`facility.scale_up_switch_share`), so they
    are reported per fabric (tier `scale_up`) and never added again.
    """
    block_kw: dict[str, float] = {}
    rack_kw: dict[FacilityNode, float] = {}
    shared_kw = 0.0
    by_fabric: dict[str, dict[str, float | None]] = {}
    for fabric, graph in fabrics:
        tiers: dict[str, float | None] = {}
        for _, data in graph.nodes(data=True):
            if data["kind"] != "switch":
                continue
            tier, each = data["tier"], fabric.switch_kw_of(data["tier"])
            if each is None:
                tiers[tier] = None
                continue
            kw = each * data["count"]
            tiers[tier] = (tiers.get(tier) or 0.0) + kw
            if tier != "leaf":
                shared_kw += kw
            elif data["rack"] is not None:
                rack = ("rack", data["block"], data["rack"])
                rack_kw[rack] = rack_kw.get(rack, 0.0) + kw
            else:
                block_kw[data["block"]] = block_kw.get(data["block"], 0.0) + kw
        if scale_up_kw is not None and fabric.name in scale_up_kw:
            tiers["scale_up"] = scale_up_kw[fabric.name]
        by_fabric[fabric.name] = {tier: None if kw is None else round(kw, 3) for tier, kw in sorted(tiers.items())}
    return NetworkPower(block_kw, rack_kw, shared_kw, by_fabric)


@record
class FeedLoad:
    """One power feed's IT load: its racks' share with every feed up, and the most it carries when one other feed of its block fails."""

    index: int
    kw: float
    failover_kw: float
    worst_partner: int | None  # the feed whose loss loads it most (None: no rack shares it with another feed)


@record
class PowerFigures:
    """IT kW per rack (by rack node), per block and per zone (by name, in site order), and the site totals; per feed by block."""

    rack_kw: dict[FacilityNode, float]
    block_kw: dict[str, float]
    zone_kw: dict[str, float]
    it_kw: float
    facility_kw: float | None  # None without a pue
    feed_kw: dict[str, tuple[FeedLoad, ...]] = field(default_factory=dict)  # blocks with racks only
    service_rack_kw: dict[FacilityNode, float] = field(default_factory=dict)  # racked blocks' service racks of stated draw


def feed_loads(facility: FacilityGraph, rack_kw: dict[FacilityNode, float]) -> dict[str, tuple[FeedLoad, ...]]:
    """Each racked block's feeds: a rack's draw split evenly over the feeds it draws from; when a feed fails,
    the racks it shares with another feed move to that one in full (a single-corded rack goes down instead).

    Racks are wired as `facility.rack_feeds` says (rack i on feed i mod F, and i + 1 mod F when dual-corded),
    so the loads are summed from the rack index directly: this runs once per rack at every scale.
    """
    loads: dict[str, list[float]] = {}
    shared: dict[str, list[list[float]]] = {}  # [feed][other]: what the two feeds share
    wiring: dict[str, tuple[int, int]] = {}
    for (_, block, index), kw in rack_kw.items():
        if block not in wiring:
            data = facility.nodes[("block", block)]
            feeds = data["power_feeds"]
            wiring[block] = (feeds, data["feeds_per_rack"])
            loads[block] = [0.0] * feeds
            shared[block] = [[0.0] * feeds for _ in range(feeds)]
        feeds, corded = wiring[block]
        first = index % feeds
        if corded == 1:
            loads[block][first] += kw
            continue
        second, half = (index + 1) % feeds, kw / 2
        loads[block][first] += half
        loads[block][second] += half
        if first != second:
            shared[block][first][second] += half
            shared[block][second][first] += half
    found: dict[str, tuple[FeedLoad, ...]] = {}
    for block, load in loads.items():
        rows = []
        for feed, kw in enumerate(load):
            others = shared[block][feed]
            partner = max(range(len(others)), key=lambda other: (others[other], -other))  # the neighbour whose loss loads it most
            rows.append(FeedLoad(feed, kw, kw + others[partner], partner) if others[partner] > 0 else FeedLoad(feed, kw, kw, None))
        found[block] = tuple(rows)
    return found


def power_figures(facility: FacilityGraph, network: NetworkPower | None = None) -> PowerFigures:
    """Add up the facility graph's hosts (and the network's switches) into racks, blocks, zones and the site."""
    network = network or NetworkPower()
    # types-networkx: nodes(data=<key>) yields (node, value of key), not (node, attribute dict).
    rack_kw = {node: 0.0 for node, kind in facility.nodes(data="kind") if kind == "rack"}  # type: ignore[comparison-overlap]
    unracked_kw: dict[str, float] = {}  # hosts of blocks that state no racks
    for _, data in facility.nodes(data=True):
        if data.get("kind") == "hosts" and data["node_kw"] is not None:
            kw = data["count"] * data["node_kw"]
            if data["rack"] is None:
                unracked_kw[data["block"]] = unracked_kw.get(data["block"], 0.0) + kw
            else:
                rack_kw[("rack", data["block"], data["rack"])] += kw
    for rack, kw in network.rack_kw.items():
        rack_kw[rack] = rack_kw.get(rack, 0.0) + kw
    block_kw = {data["name"]: 0.0 for _, data in facility.nodes(data=True) if data.get("kind") == "block"}
    for (_, block, _), kw in rack_kw.items():
        block_kw[block] += kw
    for block, kw in unracked_kw.items():
        block_kw[block] += kw
    for block, kw in network.block_kw.items():
        block_kw[block] += kw
    service = _service_rack_kw(facility)
    for (_, block, _), kw in service.racked.items():
        block_kw[block] += kw
    for block, kw in service.unracked.items():
        block_kw[block] += kw
    zone_kw = {data["name"]: 0.0 for _, data in facility.nodes(data=True) if data.get("kind") == "zone"}
    for block, kw in block_kw.items():
        zone_kw[facility.nodes[("block", block)]["zone"]] += kw
    for zone, kw in service.zones.items():
        zone_kw[zone] += kw
    it_kw = sum(zone_kw.values()) + network.shared_kw
    pue = facility.graph["pue"]
    feeds = feed_loads(facility, {**rack_kw, **service.racked})
    return PowerFigures(rack_kw, block_kw, zone_kw, it_kw, it_kw * pue if pue is not None else None, feeds, service.racked)


@record
class ServiceRackLoad:
    """What racks with no accelerator host draw, where their draw is stated: each racked block's by rack node (numbered after
    the block's host racks), each unracked block's sum, and each zone's own (racks that stand in no block)."""

    racked: dict[FacilityNode, float]
    unracked: dict[str, float]
    zones: dict[str, float]


def _service_rack_kw(facility: FacilityGraph) -> ServiceRackLoad:
    """Add up the service racks the facility graph's blocks and zones hold. A group whose draw is not stated still takes its
    rack numbers, so the racks after it sit on the feeds they are wired to, but adds no kW: unknown is left out, never 0."""
    load = ServiceRackLoad({}, {}, {})
    for _, data in facility.nodes(data=True):
        kind = data.get("kind")
        if kind == "zone":
            stated = sum(racks * kw for _, racks, kw in data["service_racks"] if kw is not None)
            load.zones[data["name"]] = stated
            continue
        if kind != "block":
            continue
        index = data["host_racks"]
        for _, racks, kw in data["service_racks"]:
            if index is None:
                if kw is not None:
                    load.unracked[data["name"]] = load.unracked.get(data["name"], 0.0) + racks * kw
                continue
            if kw is not None:
                load.racked.update({("rack", data["name"], index + offset): kw for offset in range(racks)})
            index += racks
    return load


def _rack_contents(facility: FacilityGraph, rack: FacilityNode, blueprint: Blueprint) -> str:
    parts: list[str] = []
    for hosts in facility.successors(rack):
        data = facility.nodes[hosts]
        pool = blueprint.pools[data["pool"]]
        parts.append(
            f"{data['count']} x {pool.instance_type} at {data['node_kw']:g} kW" if data["node_kw"] else f"{data['count']} x {pool.instance_type}"
        )
    return ", ".join(parts) or "empty"


def _rack_findings(blueprint: Blueprint, facility: FacilityGraph, figures: PowerFigures) -> list[Finding]:
    findings: list[Finding] = []
    by_block: dict[str, list[tuple[FacilityNode, float]]] = {}
    for rack, kw in figures.rack_kw.items():
        by_block.setdefault(rack[1], []).append((rack, kw))
    for block, racks in by_block.items():
        data = facility.nodes[("block", block)]
        budget = data["rack_budget_kw"]
        over = [(rack, kw) for rack, kw in racks if budget is not None and kw > budget + 1e-9]
        if not over:
            continue
        worst, kw = max(over, key=lambda item: (item[1], -item[0][2]))
        inherited = blueprint.failure_domains.zones[data["path"][2]].sites[data["path"][4]].rack_budget_kw is None
        path = ("power", "rack_budget_kw") if inherited else data["path"] + ("rack_budget_kw",)
        findings.append(
            error(
                "power.rack-budget",
                path,
                f"rack {element_name(worst)} draws {kw:.1f} kW ({_rack_contents(facility, worst, blueprint)}), over its {budget:g} kW budget; "
                f"{len(over)} of {len(racks)} racks in block '{block}' are over",
                "spread the pools over more racks (fewer hosts per rack), or raise the rack budget if the racks are rated for it",
                rack=element_name(worst),
                it_kw=round(kw, 2),
                budget_kw=budget,
                racks_over=len(over),
            )
        )
    return findings


def _feed_findings(facility: FacilityGraph, figures: PowerFigures) -> list[Finding]:
    findings: list[Finding] = []
    for block, feeds in figures.feed_kw.items():
        data = facility.nodes[("block", block)]
        budget = data["feed_budget_kw"]
        over = [feed for feed in feeds if budget is not None and feed.failover_kw > budget + 1e-9]
        if not over:
            continue
        worst = max(over, key=lambda feed: (feed.failover_kw, -feed.index))
        when = (
            f" and {worst.failover_kw:.1f} kW when {block}/feed-{worst.worst_partner} fails (the racks they share move to it)"
            if worst.worst_partner is not None
            else ""
        )
        findings.append(
            error(
                "power.feed-budget",
                data["path"] + ("feed_budget_kw",),
                f"feed {block}/feed-{worst.index} carries {worst.kw:.1f} kW with every feed up{when}, over its {budget:g} kW rating; "
                f"{len(over)} of {len(feeds)} feeds in block '{block}' are over",
                "add power feeds to the block, spread the pools over more racks, or raise feed_budget_kw if the feeds are rated for it",
                feed=f"{block}/feed-{worst.index}",
                it_kw=round(worst.kw, 2),
                failover_kw=round(worst.failover_kw, 2),
                budget_kw=budget,
                feeds_over=len(over),
            )
        )
    return findings


def power_findings(blueprint: Blueprint, facility: FacilityGraph, figures: PowerFigures) -> list[Finding]:
    """Racks, feeds, blocks, zones and the site over their budgets, each quoting the load and the budget."""
    findings = _rack_findings(blueprint, facility, figures) + _feed_findings(facility, figures)
    for _, data in facility.nodes(data=True):
        if data.get("kind") not in ("block", "zone") or data["budget_kw"] is None:
            continue
        kw = (figures.block_kw if data["kind"] == "block" else figures.zone_kw)[data["name"]]
        if kw > data["budget_kw"] + 1e-9:
            findings.append(
                error(
                    "power.domain-budget",
                    data["path"] + ("budget_kw",),
                    f"{data['kind']} '{data['name']}' draws {kw:.1f} kW of IT load, over its {data['budget_kw']:g} kW budget",
                    f"move hosts out of {data['kind']} '{data['name']}', or lower per-node draw (node_power_kw) "
                    "if the catalog's figure is high for your workload",
                    element=data["name"],
                    it_kw=round(kw, 2),
                    budget_kw=data["budget_kw"],
                )
            )
    budget = facility.graph["site_budget_kw"]
    if budget is not None and figures.facility_kw is not None and figures.facility_kw > budget + 1e-9:
        findings.append(
            error(
                "power.site-budget",
                ("power", "site_budget_kw"),
                f"the site draws {figures.facility_kw:.1f} kW at the facility ({figures.it_kw:.1f} kW IT x PUE "
                f"{facility.graph['pue']:g}), over its {budget:g} kW budget",
                "shrink the pools, improve PUE, or raise the site budget",
                it_kw=round(figures.it_kw, 2),
                facility_kw=round(figures.facility_kw, 2),
                budget_kw=budget,
            )
        )
    return findings
