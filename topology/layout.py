"""Sizing one fabric: how its pools' hosts meet it, where they sit on its leaves, and how many switches it needs.

The rules (the formulas live in `blueprints.fabric_math`):

* **Rails.** A rail fabric (`rail_optimized_clos`, `rail_only`) has `rails` rails, or
  one per accelerator of its first pool's hosts (one per NIC if fewer). NIC n of
  a host with N NICs is on rail floor(n * R / N); a pool whose NICs don't cover
  every rail evenly is rail-misaligned and left off the fabric. Fat trees and
  ToR Clos have no rails: every port of a host is on "rail 0".
* **Planes.** Each NIC's `ports_per_nic` ports split evenly over the `planes`.
  A spine (or core) tier with fewer planes joins the planes below it: one
  spine plane reaches the leaves of each plane it joins, so it is sized for
  all of them (`joined_planes`).
* **Scale-up parts.** A host whose scale-up domain (the fabric's `scale_up`, else
  the catalog's) is smaller than the host splits into parts that reach each
  other only over the fabric; accelerators behind one shared NIC stay in one
  part (the NIC's PCIe switch joins them), so every NIC port belongs to one part.
* **Positions.** A leaf position is one leaf per rail (per plane) serving the
  same hosts. Hosts fill positions in physical order (block by block, rack by
  rack, slot by slot) until a leaf's `down` ports are used (a ToR Clos has one
  position per rack instead); positions never cross a block. A host takes, on
  each leaf, its NIC ports there and the in-band or storage ports of its own
  (`host_ports`) dealt there, one per rail leaf from rail 0, then the next plane. A one-tier
  rail-only fabric has a single position whose leaves use every port.
* **Tiers.** Declared, or the fewest that hold the leaves: two while a spine can
  reach every leaf (leaves <= radix), else three. Fat trees always have three.
  In three tiers, a pod holds `positions_per_pod` positions: whole blocks (leaf
  groups, such as scalable units) while they fit, and no more than the
  fabric's `blocks_per_pod` where it fixes its pods; a bigger block is split
  over several pods; a pod never crosses a zone.
* **Spines and cores.** Even striping (`spine_count`, `pod_spine_count`,
  `core_group_size`); a group that cannot fit overflows and is reported by the
  port-budget check rather than silently resized.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import field

from blueprints import fabric_math
from blueprints.catalog import Catalog, InstanceType
from blueprints.findings import Finding, error, warning
from blueprints.models import Blueprint
from blueprints.models.fabric_parts import ScaleUp
from blueprints.models.fabrics import AwsEfa, DesignedFabric, RailOnly, RailOptimizedClos
from blueprints.models.pools import Pool
from blueprints.records import record
from topology import leaf_positions
from topology.placement import Placement
from topology.provider_fabric import provider_managed

__all__ = ["Part", "PoolShape", "Position", "FabricPlan", "plan_fabric", "host_scale_up", "joined_planes", "SCALE_UP_SWITCHES", "RAIL_KINDS"]

RAIL_KINDS = ("rail_optimized_clos", "rail_only")
# The fix `railyard explain` gives for top-tier uplinks, whose hint names the tier and field of each fabric.
EXPLAIN = {
    "fabric.top-tier-uplinks": {
        "fix": "remove the top tier's uplinks (or uplink_gbps), or declare one more tier if the design has a tier above it",
    },
}
RAIL_MODELS = (RailOptimizedClos, RailOnly)
"""The models of the RAIL_KINDS (the kind names its model), for narrowing to the fabrics that have `rails`."""
SCALE_UP_SWITCHES = {"nvlink": 1, "pcie": 1, "neuronlink": 0}
"""Switches a packet crosses inside a scale-up domain: an NVSwitch or a PCIe switch; NeuronLink is a direct torus."""


@record
class Part:
    """One scale-up part of a host: its accelerators, the rails each sends through, and its NIC ports per rail and plane."""

    accelerators: tuple[int, ...]
    accelerator_rails: tuple[tuple[int, ...], ...]
    rail_ports: tuple[tuple[int, int], ...]

    @property
    def rails(self) -> tuple[int, ...]:
        """The rails this part has NIC ports on."""
        return tuple(rail for rail, _ in self.rail_ports)


@record
class PoolShape:
    """How one pool's hosts meet a fabric: a host's ports per rail leaf, and its scale-up parts."""

    pool_index: int
    pool: str
    instance_type: str
    accelerators: int
    nics: int
    ports_per_leaf: int  # on the host's fullest leaf: its NIC ports there, and its host ports (fabric.host_ports) if they land there
    parts: tuple[Part, ...]
    scale_up: str
    scale_up_switches: int
    standby: bool = False  # hot spares (pools[].standby_for): wired and powered, no job traffic

    @property
    def rails(self) -> frozenset[int]:
        """Every rail the host has a NIC on."""
        return frozenset(rail for part in self.parts for rail in part.rails)


@record
class Position:
    """One leaf position: the hosts (pool index, hosts) in fabric order, its block, pod and used ports per leaf."""

    index: int
    block: str
    pod: int
    hosts: tuple[tuple[int, int], ...]
    ports: int
    rack: int | None = None


@record
class FabricPlan:
    """Everything needed to build one fabric's graph: shapes, positions, tiers and switch counts."""

    index: int
    fabric: DesignedFabric
    rails: int
    rail_blocks: tuple[tuple[int, ...], ...]
    tiers: int
    tier_shapes: dict[str, fabric_math.TierShape]
    leaf_down: int
    leaf_up: int
    spine_down: int
    spine_up: int
    spines: int
    pod_spines: int
    core_group: int
    positions: tuple[Position, ...]
    pods: int
    shapes: dict[int, PoolShape]
    # (appliance name, position index, plane, rail, links): what each appliance plugs into, one link per rail leaf in turn.
    appliance_links: tuple[tuple[str, int, int, int, int], ...] = ()
    # (plane, rail) -> each host's own in-band and storage ports (fabric.host_ports) on that leaf of its position.
    host_ports: dict[tuple[int, int], int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The fabric's name."""
        return self.fabric.name


def joined_planes(fabric: DesignedFabric, tier: str) -> int:
    """Planes of the tier below that one plane of `tier` (spine or core) joins: 1 when the planes carry on."""
    below = {"spine": "leaf", "core": "spine"}[tier]
    return fabric.tier_planes(below) // fabric.tier_planes(tier)


def deal_ports(ports: int, rails: int, planes: int) -> dict[tuple[int, int], int]:
    """(plane, rail) -> links of a device or host with `ports` ports that aren't its NICs': one per rail leaf from rail 0, then the next plane."""
    links: dict[tuple[int, int], int] = {}
    for port in range(ports):
        key = ((port // rails) % planes, port % rails)
        links[key] = links.get(key, 0) + 1
    return links


def host_port_layout(fabric: DesignedFabric, rails: int) -> dict[tuple[int, int], int]:
    """(plane, rail) -> each host's `host_ports` (in-band, storage) on that leaf of its position, all kinds dealt in turn."""
    return deal_ports(sum(kind.ports for kind in fabric.host_ports), rails, fabric.planes)


def host_scale_up(declared: ScaleUp | None, spec: InstanceType) -> tuple[str, int]:
    """(interconnect, accelerators) of the scale-up domain within one host: the declared one, else the catalog's, else PCIe alone."""
    kind = declared.kind if declared else (spec.scale_up.kind if spec.scale_up else "pcie")
    size = (declared.domain_size if declared else None) or (spec.scale_up.domain_size if spec.scale_up else 1)
    return kind, max(1, min(size, spec.accelerator_count))


def _shape(
    fabric: DesignedFabric, fabric_index: int, pool_index: int, pool: Pool, spec: InstanceType, rails: int, own_ports: int
) -> tuple[PoolShape | None, list[Finding]]:
    """The pool's shape on the fabric, or None (with a finding when the rails are misaligned); `own_ports` are the host's
    in-band and storage ports on its fullest leaf."""
    accelerators = spec.accelerator_count
    nics = accelerators * fabric.nics_per_accelerator
    if nics != int(nics) or nics < 1:
        return None, []  # fabric.fractional-nics reports it
    nics = int(nics)
    per_rail = [0] * rails
    for nic in range(nics):
        per_rail[fabric_math.nic_rail(nic, nics, rails)] += 1
    if len(set(per_rail)) > 1:
        missing = [rail for rail, count in enumerate(per_rail) if count == 0]
        return None, [
            error(
                "topology.rail-misaligned",
                ("fabrics", fabric_index, "rails"),
                f"pool '{pool.name}' ({pool.instance_type}, {nics} NICs) can't put the same number of NICs on "
                f"each of the {rails} rails of fabric '{fabric.name}' "
                f"(NICs per rail: {per_rail}); rails {missing} have none, so those accelerators reach no rail-aligned leaf",
                f"set rails to a divisor of {nics}, or give this pool its own fabric",
                pool=pool.name,
                nics=nics,
                rails=rails,
                nics_per_rail=per_rail,
                rails_without_nic=missing,
            )
        ]
    ports_per_leaf = per_rail[0] * fabric.ports_per_nic // fabric.planes + own_ports
    kind, size = host_scale_up(fabric.scale_up, spec)
    parts = _parts(accelerators, nics, rails, size, fabric.ports_per_nic // fabric.planes)
    switches = SCALE_UP_SWITCHES.get(kind, 1)
    standby = pool.standby_for is not None
    return PoolShape(pool_index, pool.name, pool.instance_type, accelerators, nics, ports_per_leaf, parts, kind, switches, standby), []


def _parts(accelerators: int, nics: int, rails: int, size: int, ports_per_plane: int) -> tuple[Part, ...]:
    """Split a host into parts: accelerators in one scale-up domain, or behind one shared NIC, stay together."""
    label = [accelerator // size for accelerator in range(accelerators)]
    for nic in range(nics):
        sharing = {label[accelerator] for accelerator in fabric_math.nic_accelerators(nic, nics, accelerators)}
        label = [min(sharing) if old in sharing else old for old in label]
    accelerator_rails = fabric_math.accelerator_rails(accelerators, nics, rails)
    parts: list[Part] = []
    for group in sorted(set(label)):
        members = tuple(accelerator for accelerator in range(accelerators) if label[accelerator] == group)
        ports: dict[int, int] = {}
        for nic in range(nics):
            if fabric_math.nic_accelerators(nic, nics, accelerators)[0] in members:
                rail = fabric_math.nic_rail(nic, nics, rails)
                ports[rail] = ports.get(rail, 0) + ports_per_plane
        parts.append(Part(members, tuple(tuple(sorted(accelerator_rails[a])) for a in members), tuple(sorted(ports.items()))))
    return tuple(parts)


def _rail_blocks(
    kind: str,
    rails: int,
    shapes: dict[int, PoolShape],
    appliance_links: tuple[tuple[str, int, int, int, int], ...],
    host_ports: dict[tuple[int, int], int],
) -> tuple[tuple[int, ...], ...]:
    """Group rails whose leaves are interchangeable: every part of every pool, every appliance and the hosts' own ports
    (`host_port_layout`) have the same ports on each."""
    if kind == "rail_only":
        return tuple((rail,) for rail in range(rails))
    layouts = sorted({part.rail_ports for shape in shapes.values() for part in shape.parts})
    plugged: dict[tuple[int, int], dict[int, int]] = {}  # (position, plane) -> links per rail
    for _, position, plane, rail, links in appliance_links:
        per_rail = plugged.setdefault((position, plane), {})
        per_rail[rail] = per_rail.get(rail, 0) + links
    layouts += sorted(tuple(sorted(per_rail.items())) for per_rail in plugged.values())
    planes = sorted({plane for plane, _ in host_ports})
    layouts += [tuple(sorted((rail, links) for (on, rail), links in host_ports.items() if on == plane)) for plane in planes]
    blocks: dict[tuple[int, ...], list[int]] = {}
    for rail in range(rails):
        blocks.setdefault(tuple(dict(layout).get(rail, 0) for layout in layouts), []).append(rail)
    return tuple(sorted(tuple(block) for block in blocks.values()))


def _tiers(fabric: DesignedFabric, leaves: int) -> int:
    """Declared, or two while one spine plane reaches all the `leaves` it joins, else three."""
    if fabric.kind == "fat_tree":
        return 3
    declared = getattr(fabric, "tiers", None)
    return declared or (2 if leaves <= fabric.tier_shapes(2)["spine"].down_links else 3)


def plan_fabric(blueprint: Blueprint, catalog: Catalog, placement: Placement, fabric_index: int) -> tuple[FabricPlan | None, list[Finding]]:
    """Size one fabric for the pools that join it; None (and why) when it can't be built, or is AWS's to build."""
    fabric = blueprint.fabrics[fabric_index]
    if isinstance(fabric, AwsEfa):
        return None, list(provider_managed(blueprint, catalog, fabric_index, fabric))
    if fabric.ports_per_nic % fabric.planes:
        return None, [
            error(
                "topology.planes",
                ("fabrics", fabric_index, "ports_per_nic"),
                f"fabric '{fabric.name}' has {fabric.planes} planes but {fabric.ports_per_nic} port(s) per NIC; "
                "each NIC's ports must split evenly across the planes",
                f"set ports_per_nic to a multiple of {fabric.planes}, or use one plane",
                planes=fabric.planes,
                ports_per_nic=fabric.ports_per_nic,
            )
        ]
    candidates = [
        (index, pool, catalog.get(pool.instance_type))
        for index, pool in enumerate(blueprint.pools)
        if pool.fabric == fabric.name and placement.placed.get(index)
    ]
    members = [(index, pool, spec) for index, pool, spec in candidates if spec is not None and spec.accelerator_count]
    rails = 1
    if isinstance(fabric, RAIL_MODELS) and members:
        first = members[0][2]
        nics = max(1, int(first.accelerator_count * fabric.nics_per_accelerator))
        rails = fabric.rails or fabric_math.default_rails(first.accelerator_count, nics)
    shapes: dict[int, PoolShape] = {}
    findings: list[Finding] = []
    host_ports = host_port_layout(fabric, rails)
    for index, pool, spec in members:
        shape, problems = _shape(fabric, fabric_index, index, pool, spec, rails, max(host_ports.values(), default=0))
        findings += problems
        if shape is not None:
            shapes[index] = shape
    if not shapes:
        return None, findings
    plan = _size(fabric, fabric_index, placement, shapes, rails, host_ports)
    return plan, findings + _ignored_uplinks(fabric, fabric_index, plan.tiers)


def _ignored_uplinks(fabric: DesignedFabric, fabric_index: int, tiers: int) -> list[Finding]:
    """Uplinks stated on the tier a build has at its top, which has none: an error where the blueprint fixed the tiers."""
    top = ("leaf", "spine", "core")[tiers - 1]
    ports = getattr(fabric, top)
    stated = [field for field in ("uplinks", "uplink_gbps") if getattr(ports, field) is not None]
    if not stated:
        return []
    declared = getattr(fabric, "tiers", None) is not None
    why = f"declares tiers: {tiers}" if declared else f"holds its hosts in {tiers} tier(s)"
    finding = error if declared else warning
    most = 2 if isinstance(fabric, RailOnly) else 3
    taller = f", or set tiers: {tiers + 1} if the design has a tier above the {top}" if tiers < most else ""
    return [
        finding(
            "fabric.top-tier-uplinks",
            ("fabrics", fabric_index, top, stated[0]),
            f"fabric '{fabric.name}' {why}, so its {top} tier is the top and has no uplinks; {top}.{stated[0]} is not used",
            f"remove {top}.{stated[0]}{taller}",
        )
    ]


def _size(
    fabric: DesignedFabric, fabric_index: int, placement: Placement, shapes: dict[int, PoolShape], rails: int, host_ports: dict[tuple[int, int], int]
) -> FabricPlan:
    leaf = fabric.tier_shapes(3)["leaf"]  # the leaf's split doesn't depend on the tiers above it
    per_position = rails if fabric.kind in RAIL_KINDS else 1
    # A spine plane that joins planes below reaches the leaves of each: its down ports are shared among them.
    spine_joins, core_joins = joined_planes(fabric, "spine"), joined_planes(fabric, "core")
    ports = {index: shape.ports_per_leaf for index, shape in shapes.items()}
    runs = list(leaf_positions.runs(placement, ports))
    if isinstance(fabric, RailOnly):
        demand = sum(count * shapes[pool].ports_per_leaf for _, _, pool, count in runs)
        tiers: int = fabric.tiers or (1 if demand <= leaf.as_top().down_links else 2)
        raw = leaf_positions.fill_positions(runs, ports, leaf.as_top().down_links if tiers == 1 else leaf.down_links, single=tiers == 1)
    else:
        if fabric.kind == "tor_clos":
            raw = leaf_positions.tor_positions(runs, ports)
        else:
            raw = leaf_positions.fill_positions(runs, ports, leaf.down_links, False)
        tiers = _tiers(fabric, len(raw) * per_position * spine_joins)
    built = fabric.tier_shapes(tiers)
    leaf, spine, core = built["leaf"], built["spine"], built["core"]
    zone_of = {site.name: site.zone.name for site in placement.sites}
    per_pod = fabric_math.positions_per_pod(spine.down_links, per_position * spine_joins)
    pods = leaf_positions.pods(raw, per_pod, zone_of, getattr(fabric, "blocks_per_pod", None)) if tiers == 3 else [0] * len(raw)
    positions = tuple(
        Position(index, item.block, pod, tuple((pool, hosts) for pool, hosts in item.hosts), item.ports, item.rack)
        for index, (item, pod) in enumerate(zip(raw, pods, strict=True))
    )
    pod_count = (pods[-1] + 1) if pods else 0
    appliances = _appliances(fabric, positions, per_position)
    spines = pod_spines = core_group = 0
    if tiers == 2:
        leaves = len(positions) * (1 if fabric.kind == "rail_only" else per_position) * spine_joins
        spines = fabric_math.spine_count(leaves, leaf.up_links, spine.down_links)
    elif tiers == 3:
        fullest = max(Counter(pods).values()) * per_position * spine_joins
        pod_spines = fabric_math.pod_spine_count(fullest, leaf.up_links, spine.down_links)
        core_group = fabric_math.core_group_size(pod_count * core_joins, spine.up_links, core.down_links)
    return FabricPlan(
        fabric_index,
        fabric,
        rails,
        _rail_blocks(fabric.kind, rails, shapes, appliances, host_ports),
        tiers,
        built,
        leaf.down_links,
        leaf.up_links,
        spine.down_links,
        spine.up_links,
        spines,
        pod_spines,
        core_group,
        positions,
        pod_count,
        shapes,
        appliances,
        host_ports,
    )


def _appliances(fabric: DesignedFabric, positions: tuple[Position, ...], rails: int) -> tuple[tuple[str, int, int, int, int], ...]:
    """Each appliance's links: into the last leaf position of its block, one per rail leaf from rail 0, then the next plane.

    An appliance whose block holds no position of this fabric has nowhere to plug in; the fabric report says so.
    """
    last = {position.block: position.index for position in positions}  # the last position of each block
    found: list[tuple[str, int, int, int, int]] = []
    for appliance in fabric.appliances:
        position = last.get(appliance.block)
        if position is None:
            continue
        links = deal_ports(appliance.ports, rails, fabric.planes)
        found += [(appliance.name, position, plane, rail, count) for (plane, rail), count in sorted(links.items())]
    return tuple(found)
