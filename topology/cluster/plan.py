"""`plan_cluster`: how a validated design lands on one EKS cluster, decided once.

The node groups (per pool and failure domain, split under EKS's quota), the
VPC's subnets carved to hold them, each pool's placement-group decision (a hot
spare's: the group of the pool it serves), the control-plane tier and the
Kubernetes layer's layout. `validate` checks the
quotas and limits of this plan; the compiler (`components.plan`) emits
exactly it and adds only what resources need beyond it (names, tags, keys,
user data, file systems).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from blueprints.catalog import Catalog
from blueprints.models import Blueprint
from blueprints.records import record
from blueprints.rules.context import Context
from topology.cluster.addons import AddonPlan, plan_addons
from topology.cluster.kubernetes import KubernetesLayout, lay_out_kubernetes
from topology.cluster.legacy_layout import legacy_layout
from topology.cluster.node_groups import NodeGroupPlan, plan_node_groups
from topology.cluster.placement_groups import PlacementDecision, decide_placement
from topology.cluster.scale import control_plane_tier
from topology.cluster.spare_placement import share_served_groups
from topology.cluster.subnets import SubnetDemand, SubnetPlan, lay_out_subnets, place_in_existing

Layout = Literal["stable", "legacy"]
# What `railyard explain` says for the finding a `PlanError` becomes (its wording is the error's own).
EXPLAIN = {
    "compile.plan": {
        "meaning": "the blueprint validated, but the cluster plan can't lay it out as written: for example, the VPC's "
        "blocks can't hold the subnets the node groups need; the message names the value at fault and what would fit",
        "why": "planning (node groups, subnets, placement groups) runs before anything is compiled or created; a design it "
        "can't lay out would fail half-way through `pulumi up`, so it is refused here with the blueprint line at fault",
        "fix": "change the value the message names (a larger vpc_cidr or secondary_cidrs, fewer nodes per domain), then run railyard validate again",
    },
}


@record
class ClusterPlan:
    """The cluster's node groups, subnets, placement decisions, control-plane tier, Kubernetes layout and EKS add-ons."""

    availability_zones: tuple[str, ...]
    pod_cidrs: tuple[str, ...]
    secondary_cidrs: tuple[str, ...]
    control_plane_tier: str
    subnets: tuple[SubnetPlan, ...]
    placements: tuple[PlacementDecision, ...]
    node_groups: tuple[NodeGroupPlan, ...]
    kubernetes: KubernetesLayout
    addons: tuple[AddonPlan, ...] = ()

    @property
    def nodes(self) -> int:
        """Nodes at the node groups' largest."""
        return sum(group.max_size for group in self.node_groups)


def _subnet_demands(blueprint: Blueprint, node_groups: tuple[NodeGroupPlan, ...]) -> list[SubnetDemand]:
    """The VPC's subnets and what each must hold: nodes, and the addresses they take at their largest."""
    zones = list(blueprint.cloud.availability_zones)
    demands = [SubnetDemand(f"public-{zone}", "public", zone) for zone in zones]
    private = {zone: (0, 0) for zone in zones}  # (nodes, addresses) per zone
    efa: dict[str, SubnetDemand] = {}
    for group in node_groups:
        for key, zone in zip(group.subnet_keys, group.availability_zones, strict=True):
            addresses = group.max_size * group.addresses.node
            if key.startswith("private-"):
                # A group over several zones may land wholly in one, so each zone is sized for all of it. A Local Zone's
                # private subnet comes after the VPC's zones' (topology/cluster/local_zones.py).
                nodes, held = private.get(zone, (0, 0))
                private[zone] = (nodes + group.max_size, held + addresses)
                continue
            known = efa.get(key, SubnetDemand(key, "efa", zone, fabric=group.fabric, zone=group.zone))
            efa[key] = SubnetDemand(key, "efa", zone, known.nodes + group.max_size, group.fabric, group.zone, known.addresses + addresses)
    demands += [SubnetDemand(f"private-{zone}", "private", zone, nodes=nodes, addresses=held) for zone, (nodes, held) in private.items()]
    return demands + list(efa.values())


def _pod_demands(blueprint: Blueprint, node_groups: tuple[NodeGroupPlan, ...]) -> list[SubnetDemand]:
    """Custom networking: one pod subnet per node group, in its zone, for the addresses its pods take."""
    if blueprint.kubernetes.pod_networking.mode != "custom_networking":
        return []
    return [
        SubnetDemand(
            group.pod_subnet_key,
            "pods",
            group.availability_zones[0],
            group.max_size,
            group.fabric,
            group.zone,
            group.max_size * group.addresses.pods_subnet,
        )
        for group in node_groups
        if group.pod_subnet_key
    ]


def _subnets(blueprint: Blueprint, groups: tuple[NodeGroupPlan, ...], layout: Layout) -> tuple[SubnetPlan, ...]:
    """The node subnets over the VPC's blocks, then custom networking's pod subnets over the pod blocks."""
    cloud = blueprint.cloud
    if cloud.existing_vpc is not None:
        placed = [(subnet.id, subnet.availability_zone, subnet.cidr) for subnet in cloud.existing_vpc.subnets]
        return place_in_existing(placed, _subnet_demands(blueprint, groups))
    nodes, pods = _subnet_demands(blueprint, groups), _pod_demands(blueprint, groups)
    node_blocks, pod_blocks = [cloud.vpc_cidr, *cloud.secondary_cidrs], list(blueprint.kubernetes.pod_networking.pod_cidrs)
    if layout == "legacy":
        return legacy_layout(node_blocks, nodes, bool(cloud.secondary_cidrs)) + (legacy_layout(pod_blocks, pods, True) if pods else ())
    pinned = cloud.pinned_ranges
    return lay_out_subnets(node_blocks, nodes, pinned) + (lay_out_subnets(pod_blocks, pods, pinned, "pod CIDR blocks") if pods else ())


def _placements(blueprint: Blueprint, catalog: Catalog, node_groups: tuple[NodeGroupPlan, ...]) -> tuple[PlacementDecision, ...]:
    """Each pool's decision per zone it has node groups in, in blueprint order; then hot spares join their served pools' groups."""
    ctx = Context(blueprint, catalog)
    by_pool: dict[str, list[NodeGroupPlan]] = {}
    for group in node_groups:
        if not group.system:
            by_pool.setdefault(group.pool, []).append(group)
    decisions: list[PlacementDecision] = []
    for pool in blueprint.pools:
        groups = by_pool.get(pool.name, [])
        for zone in dict.fromkeys(group.zone for group in groups):
            assert zone is not None, "only the system node groups span zones"
            in_zone = [group for group in groups if group.zone == zone]
            efa = in_zone[0].efa_interfaces > 0
            nodes = sum(group.max_size for group in in_zone)
            decisions.append(decide_placement(pool, zone, ctx.zones[zone].availability_zone, efa, nodes))
    return share_served_groups(blueprint.pools, decisions)


def plan_cluster(
    blueprint: Blueprint,
    catalog: Catalog,
    now: datetime | None = None,
    node_groups: Sequence[NodeGroupPlan] | None = None,
    layout: Layout = "stable",
) -> ClusterPlan:
    """Plan the cluster of a validated blueprint at `now` (it sizes Capacity Block groups from their window;
    None plans them as running), on `node_groups` when the caller has planned them; raises `PlanError` when
    the design doesn't fit (the VPC can't hold its subnets, a pinned subnet is too small). `layout="legacy"`
    lays the subnets out as railyard did before pins (`topology.cluster.legacy_layout`), for `railyard lock`."""
    groups = tuple(node_groups) if node_groups is not None else plan_node_groups(blueprint, catalog, now)
    subnets = _subnets(blueprint, groups, layout)
    return ClusterPlan(
        availability_zones=tuple(blueprint.cloud.availability_zones),
        pod_cidrs=tuple(str(cidr) for cidr in blueprint.kubernetes.pod_networking.pod_cidrs),
        secondary_cidrs=tuple(str(cidr) for cidr in blueprint.cloud.secondary_cidrs),
        control_plane_tier=control_plane_tier(sum(group.max_size for group in groups), blueprint.kubernetes.control_plane_tier),
        subnets=subnets,
        placements=_placements(blueprint, catalog, groups),
        node_groups=groups,
        kubernetes=lay_out_kubernetes(blueprint, catalog, groups),
        addons=plan_addons(blueprint),
    )
