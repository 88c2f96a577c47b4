"""Fabrics: the scale-out network a pool's accelerators talk over, and their scale-up domain.

Five scale-out kinds, chosen by `kind`:
- `aws_efa`: AWS's own EFA network, which nobody designs: EFA interfaces, bandwidth and the
  network-node layers come from the instance type; AWS publishes no switch radix, link speed,
  fan-out or oversubscription, so the figures that need them are reported as unknown.
- `rail_optimized_clos`: NIC r of every host goes to a rail-r leaf; leaves go up to spines
  (and cores, with three tiers). The design of DGX SuperPOD and AWS UltraClusters.
- `fat_tree`: the classic k-ary fat tree (k = `switch_radix`) of edge, aggregation and core switches.
- `rail_only`: rail leaves and rail spines with no cross-rail tier; traffic between rails
  crosses the scale-up domain (NVLink / NeuronLink) first.
- `tor_clos`: one top-of-rack leaf per rack (two, dual-homed, with `planes: 2`) and a Clos above.
The topology checker sizes each from these numbers (see topology/ and the README).

`link_gbps` and `switch_radix` are shorthand for every tier. A design whose
tiers differ says so per tier (`leaf`, `spine`, `core`): its radix, the speed
of its ports and uplinks (faster than the links below: each down port breaks
out), and its uplink count. docs/fabrics.md writes published designs this way.
"""

from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from blueprints.fabric_math import TierShape, built_shapes, tier_shape
from blueprints.models.base import Model, Name, from_defaults, no_items, violation
from blueprints.models.fabric_parts import Appliance, HopBounds, HostPorts, Oversubscription, ScaleUp, TierPorts

_TIERS = ("leaf", "spine", "core")


class _FabricBase(Model):
    name: Name = Field(description="The fabric's name; pools join it by name.")
    transport: Literal["efa", "ena"] = Field(
        default="efa", description="`efa` for OS-bypass RDMA over EFA (needs EFA-capable instances); `ena` for plain TCP."
    )
    link_gbps: int = Field(ge=10, le=1600, description="Speed of every fabric link.")
    switch_radix: int = Field(ge=4, le=1024, description="Ports per switch (all tiers).")
    planes: Literal[1, 2] = Field(default=1, description="Independent fabric planes; with 2, each NIC's ports split across both.")
    nics_per_accelerator: float = Field(
        default=1.0, gt=0, le=8, description="Fabric NICs per accelerator (0.5 = two accelerators share a NIC, as on p4d)."
    )
    ports_per_nic: int = Field(default=1, ge=1, le=4, description="Fabric ports per NIC.")
    links_per_cable: int = Field(
        default=1,
        ge=1,
        le=4,
        description="Fabric links one cable carries, every layer: 2 where a twin-port transceiver (an 800G OSFP) carries two "
        "400G links on one cable; the cable counts divide the link counts by it.",
    )
    oversubscription: Oversubscription = Field(default_factory=from_defaults(), description="Oversubscription per tier.")
    max_switch_hops: HopBounds = Field(default_factory=from_defaults(), description="Hop bounds the design must meet.")
    min_bisection_gbps_per_accelerator: float | None = Field(
        default=None, gt=0, description="Bisection bandwidth each pool must have, per accelerator; none = unchecked."
    )
    scale_up: ScaleUp | None = Field(default=None, description="The scale-up domain; none = the catalog's for the instance type.")
    switch_kw: float | None = Field(
        default=None,
        gt=0,
        le=100,
        description="IT power of one switch with its optics, every tier; none = switch power not counted (the power figures say so).",
    )
    appliances: list[Appliance] = Field(
        default_factory=no_items, description="Devices on the fabric with no accelerator; their links take leaf ports and count as host links."
    )
    host_ports: list[HostPorts] = Field(
        default_factory=no_items,
        description="Each host's ports on this fabric beside its accelerators' NICs (in-band, storage), on the leaves of its "
        "position; none = the NICs alone.",
    )
    leaf: TierPorts = Field(default_factory=from_defaults(), description="The leaf tier's own radix, port speed and uplinks.")
    spine: TierPorts = Field(default_factory=from_defaults(), description="The spine tier's own radix, port speed and uplinks (three tiers).")
    core: TierPorts = Field(default_factory=from_defaults(), description="The core tier's own radix (it has no uplinks).")

    def _radixes(self) -> list[tuple[str, int | None]]:
        """Every radix the blueprint states, by field: the shorthand, then each tier's own."""
        return [("switch_radix", self.switch_radix)] + [(f"{tier}.radix", getattr(self, tier).radix) for tier in _TIERS]

    @model_validator(mode="after")
    def _radix_even(self) -> Self:
        for field, radix in self._radixes():
            if radix is not None and radix % 2:
                raise violation(
                    "fabric.odd-radix",
                    f"{field} {radix} is odd; every design splits ports evenly down and up",
                    "use an even radix such as 64 or 128",
                    field=field,
                )
        return self

    @model_validator(mode="after")
    def _tiers_consistent(self) -> Self:
        if self.core.uplinks is not None or self.core.uplink_gbps is not None:
            field = "core.uplinks" if self.core.uplinks is not None else "core.uplink_gbps"
            raise violation("fabric.core-uplinks", "the core tier is the top of the fabric and has no uplinks", f"remove {field}", field=field)
        below = self.link_gbps
        for tier in ("leaf", "spine"):
            ports = getattr(self, tier)
            speed = ports.uplink_gbps or below
            if speed < below or speed % below:
                raise violation(
                    "fabric.breakout",
                    f"{tier}.uplink_gbps {speed} is not a whole multiple of the {below} Gbps links below it, so its ports can't break out into them",
                    f"use {below} Gbps or a multiple of it ({below * 2}, {below * 4})",
                    field=f"{tier}.uplink_gbps",
                )
            radix = ports.radix or self.switch_radix
            if ports.uplinks is not None and ports.uplinks >= radix:
                raise violation(
                    "fabric.uplinks",
                    f"{tier}.uplinks {ports.uplinks} leaves no down port on a {radix}-port switch",
                    f"use fewer than {radix} uplinks",
                    field=f"{tier}.uplinks",
                )
            if ports.uplinks is not None and tier in self.oversubscription.model_fields_set:
                raise violation(
                    "fabric.uplinks-and-ratio",
                    f"the {tier} tier states both its uplinks ({ports.uplinks}) and an oversubscription; either one decides the split",
                    f"keep {tier}.uplinks (the design's port count) or oversubscription.{tier}, not both",
                    field=f"{tier}.uplinks",
                )
            below = speed
        return self

    @model_validator(mode="after")
    def _planes_merge_upwards(self) -> Self:
        below = self.planes
        for tier in _TIERS:
            stated = getattr(self, tier).planes
            if stated is None:
                continue
            if tier == "leaf" and stated != self.planes:
                raise violation(
                    "fabric.tier-planes",
                    f"leaf.planes {stated} differs from the fabric's planes {self.planes}; the hosts' ports split over the leaves' planes",
                    f"set planes: {stated} on the fabric (and ports_per_nic to match), or remove leaf.planes",
                    field="leaf.planes",
                )
            if stated > below or below % stated:
                raise violation(
                    "fabric.tier-planes",
                    f"{tier}.planes {stated} can't sit above {below} plane(s): planes only join going up, never split",
                    f"use {tier}.planes 1 to join the planes there, or leave it out to carry the {below} plane(s) on",
                    field=f"{tier}.planes",
                )
            below = stated
        return self

    @model_validator(mode="after")
    def _whole_cables(self) -> Self:
        pairs = self.links_per_cable
        if pairs == 1:
            return self
        for field, count in self._radixes() + [(f"{tier}.uplinks", getattr(self, tier).uplinks) for tier in _TIERS]:
            if count is not None and count % pairs:
                raise violation(
                    "fabric.cable-split",
                    f"{field} {count} is not a multiple of links_per_cable {pairs}, so a cable would be left half used",
                    f"use a multiple of {pairs} or links_per_cable: 1",
                    field=field,
                )
        return self

    def switch_kw_of(self, tier: str) -> float | None:
        """One switch's IT power in `tier` (leaf, spine or core), optics included; None when the blueprint states none."""
        stated: float | None = getattr(self, tier).switch_kw
        return stated if stated is not None else self.switch_kw

    def tier_planes(self, tier: str) -> int:
        """The planes of `tier` (leaf, spine or core): its own, else the tier below's; the leaves have the fabric's."""
        planes = self.planes
        for name in _TIERS[: _TIERS.index(tier) + 1]:
            planes = getattr(self, name).planes or planes
        return planes

    def top_planes(self, tiers: int) -> int:
        """The planes of the top tier of a `tiers`-tier build: the independent copies its capacity is counted in."""
        return self.tier_planes(_TIERS[tiers - 1])

    def tier_shapes(self, tiers: int) -> dict[str, TierShape]:
        """Each tier as built with `tiers` tiers: radix, split, breakout and speeds (the top tier has no uplinks)."""
        leaf_speed = self.leaf.uplink_gbps or self.link_gbps
        spine_speed = self.spine.uplink_gbps or leaf_speed
        over = self.oversubscription
        return built_shapes(
            tier_shape(self.leaf.radix or self.switch_radix, over.leaf, self.leaf.uplinks, self.link_gbps, leaf_speed),
            tier_shape(self.spine.radix or self.switch_radix, over.spine, self.spine.uplinks, leaf_speed, spine_speed),
            tier_shape(self.core.radix or self.switch_radix, 1.0, None, spine_speed, spine_speed),
            tiers,
        )


class _ClosWithPods(_FabricBase):
    """The Clos kinds that may have a third tier: their tier count, and the pod size a design may fix."""

    tiers: Literal[2, 3] | None = Field(default=None, description="Switch tiers; none = the fewest that hold the hosts.")
    blocks_per_pod: int | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="Blocks (leaf groups) per pod of a three-tier build, where the design fixes its pod (Alibaba DCN+: 4 "
        "segments); none = as many whole blocks as a pod's spines reach. A pod never crosses a zone either way.",
    )

    @model_validator(mode="after")
    def _pods_need_three_tiers(self) -> Self:
        """A fabric declared with two tiers has no pods, so a pod size there would be silently ignored: refuse it."""
        if self.blocks_per_pod is not None and self.tiers == 2:
            raise violation(
                "fabric.blocks-per-pod",
                f"blocks_per_pod {self.blocks_per_pod} sizes the pods of a three-tier fabric, but this one declares tiers: 2, which has none",
                "set tiers: 3, or remove blocks_per_pod",
                field="blocks_per_pod",
            )
        return self


class RailOptimizedClos(_ClosWithPods):
    """Rail-optimized Clos: NIC r of every host on a rail-r leaf; two or three switch tiers."""

    kind: Literal["rail_optimized_clos"] = Field(description="Rail-optimized Clos.")
    rails: int | None = Field(default=None, ge=1, le=64, description="Rails; none = one per accelerator of the host (or per NIC, if fewer).")


class FatTree(_FabricBase):
    """The classic k-ary fat tree with k = `switch_radix`: k^3/4 endpoints, 5k^2/4 switches."""

    kind: Literal["fat_tree"] = Field(description="Classic k-ary fat tree (three tiers).")

    @model_validator(mode="after")
    def _uniform(self) -> Self:
        for tier in _TIERS:
            ports = getattr(self, tier)
            stated = sorted(ports.model_fields_set - {"switch_kw"})
            if stated:
                raise violation(
                    "fabric.fat-tree-uniform",
                    f"a k-ary fat tree has one radix and one link speed in every tier, but {tier} states its own {', '.join(stated)}",
                    "use switch_radix and link_gbps only, or describe the design as a rail_optimized_clos or tor_clos with per-tier numbers",
                    field=f"{tier}.{stated[0]}",
                )
        return self


class RailOnly(_FabricBase):
    """Rail-only: rail leaves and rail spines, no switch joins two rails."""

    kind: Literal["rail_only"] = Field(description="Rail-only (no cross-rail switches).")
    rails: int | None = Field(default=None, ge=1, le=64, description="Rails; none = one per accelerator of the host (or per NIC, if fewer).")
    tiers: Literal[1, 2] | None = Field(default=None, description="Switch tiers per rail; none = the fewest that hold the hosts.")


class TorClos(_ClosWithPods):
    """A top-of-rack leaf per rack (two, dual-homed, with `planes: 2`) under a Clos of spines."""

    kind: Literal["tor_clos"] = Field(description="ToR-per-rack Clos.")


class AwsEfa(Model):
    """AWS's EFA network as EC2 provides it: nothing to size, so nothing to invent.

    Each node gets the EFA interfaces its instance type can carry (the
    catalog's network cards), and Kubernetes sees the network-node layers
    EC2 reports for it (`topology.k8s.aws/network-node-layer-N`, 3 or 4 by
    instance type). Switch counts, hops, bisection and a switch's blast
    radius depend on what AWS does not publish; `validate` says so instead
    of computing them from made-up numbers.
    """

    kind: Literal["aws_efa"] = Field(description="AWS's EFA network (provider-managed).")
    name: Name = Field(description="The fabric's name; pools join it by name.")

    @property
    def transport(self) -> Literal["efa"]:
        """Always EFA: the pools on it get EFA interfaces."""
        return "efa"


DesignedFabric = RailOptimizedClos | FatTree | RailOnly | TorClos
Fabric = Annotated[
    RailOptimizedClos | FatTree | RailOnly | TorClos | AwsEfa,
    Field(discriminator="kind", description="A scale-out fabric."),
]
