"""`plan_blueprint`: the whole compile plan of a validated blueprint, in one frozen value.

The Pulumi program emits resources from this plan and nothing else, so
everything the compiler decides - names, subnets, placement, node groups,
file-system placement - is visible and testable here without Pulumi.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Mapping

from blueprints.catalog import Catalog
from blueprints.models import Blueprint
from blueprints.models.kubernetes import PodNetworking
from blueprints.rules.context import Context
from blueprints.rules.names import cluster_name as derived_cluster_name
from components.kubernetes.plan import KubernetesPlan, plan_kubernetes
from components.plan.errors import PlanError
from components.plan.node_groups import NodeGroupPlan, plan_node_groups
from components.plan.placement import PlacementDecision, decide_placement
from components.plan.scale import control_plane_tier
from components.plan.storage import BucketPlan, FileSystemPlan, plan_storage
from components.plan.subnets import SubnetDemand, SubnetPlan, carve_pod_subnets, carve_subnets

__all__ = ["CompilePlan", "PlanError", "plan_blueprint", "aws_partition"]

CLUSTER_NAME_TAG = "railyard:cluster"


@dataclass(frozen=True)
class CompilePlan:
    """Everything the components emit for one blueprint (and stack)."""

    cluster_name: str
    region: str
    partition: str
    vpc_cidr: str
    availability_zones: tuple[str, ...]
    kubernetes_version: str
    endpoint_private: bool
    public_access_cidrs: tuple[str, ...]
    private_access_cidrs: tuple[str, ...]
    layer_stack: str
    control_plane_tier: str
    pod_networking: PodNetworking
    tags: Mapping[str, str]
    subnets: tuple[SubnetPlan, ...]
    placements: tuple[PlacementDecision, ...]
    node_groups: tuple[NodeGroupPlan, ...]
    file_systems: tuple[FileSystemPlan, ...]
    buckets: tuple[BucketPlan, ...]
    kubernetes: KubernetesPlan

    @property
    def needs_efa(self) -> bool:
        """True when any node group launches EFA interfaces (so the EFA security group is needed)."""
        return any(group.efa_interfaces for group in self.node_groups) or any(fs.tier.efa for fs in self.file_systems)

    @property
    def pod_cidrs(self) -> tuple[str, ...]:
        """The secondary VPC blocks pods' subnets come from (custom networking), else none."""
        return tuple(str(cidr) for cidr in self.pod_networking.pod_cidrs)

    @property
    def pod_subnet_keys(self) -> tuple[str, ...]:
        """The keys of the pod subnets (custom networking), one per node group."""
        return tuple(subnet.key for subnet in self.subnets if subnet.kind == "pods")

    def subnet(self, key: str) -> SubnetPlan:
        """The subnet planned under `key` (`private-us-east-1a`, `efa-ultra-use1a`)."""
        return next(subnet for subnet in self.subnets if subnet.key == key)

    def placement(self, key: str) -> PlacementDecision:
        """The placement decision for `pool-zone`."""
        return next(decision for decision in self.placements if decision.key == key)


def aws_partition(region: str) -> str:
    """The ARN partition of a region: `aws`, `aws-cn` or `aws-us-gov`."""
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


def _tags(blueprint: Blueprint, cluster_name: str) -> dict[str, str]:
    metadata = blueprint.metadata
    tags = {"owner": metadata.owner, "cost-center": metadata.cost_center, "environment": metadata.environment}
    tags.update(metadata.tags)
    tags[CLUSTER_NAME_TAG] = cluster_name
    return tags


def _subnet_demands(blueprint: Blueprint, node_groups: tuple[NodeGroupPlan, ...]) -> list[SubnetDemand]:
    """The VPC's subnets and what each must hold: nodes, and the addresses they take at their largest."""
    zones = list(blueprint.cloud.availability_zones)
    demands = [SubnetDemand(f"public-{zone}", "public", zone) for zone in zones]
    private = {zone: (0, 0) for zone in zones}  # (nodes, addresses) per zone
    efa: dict[str, SubnetDemand] = {}
    for group in node_groups:
        for key, zone in zip(group.subnet_keys, group.availability_zones):
            addresses = group.max_size * group.addresses.node
            if key.startswith("private-"):
                # A group over several zones may land wholly in one, so each zone is sized for all of it.
                nodes, held = private[zone]
                private[zone] = (nodes + group.max_size, held + addresses)
                continue
            known = efa.get(key, SubnetDemand(key, "efa", zone, fabric=group.fabric, zone=group.zone))
            efa[key] = SubnetDemand(key, "efa", zone, known.nodes + group.max_size, group.fabric, group.zone, known.addresses + addresses)
    demands += [SubnetDemand(f"private-{zone}", "private", zone, nodes=nodes, addresses=held) for zone, (nodes, held) in private.items()]
    return demands + list(efa.values())


def _pod_subnets(blueprint: Blueprint, node_groups: tuple[NodeGroupPlan, ...]) -> tuple[SubnetPlan, ...]:
    """Custom networking: one pod subnet per node group, in its zone, carved from the pod CIDR blocks."""
    networking = blueprint.kubernetes.pod_networking
    if networking.mode != "custom_networking":
        return ()
    demands = [SubnetDemand(group.pod_subnet_key, "pods", group.availability_zones[0], group.max_size, group.fabric, group.zone,
                            group.max_size * group.addresses.pods_subnet)
               for group in node_groups if group.pod_subnet_key]
    return carve_pod_subnets(list(networking.pod_cidrs), demands)


def _placements(blueprint: Blueprint, catalog: Catalog, node_groups: tuple[NodeGroupPlan, ...]) -> tuple[PlacementDecision, ...]:
    ctx = Context(blueprint, catalog)
    decisions = []
    for pool in blueprint.pools:
        groups = [group for group in node_groups if group.pool == pool.name and not group.system]
        for zone in dict.fromkeys(group.zone for group in groups):
            in_zone = [group for group in groups if group.zone == zone]
            efa = in_zone[0].efa_interfaces > 0
            nodes = sum(group.max_size for group in in_zone)
            decisions.append(decide_placement(pool, zone, ctx.zones[zone].availability_zone, efa, nodes))
    return tuple(decisions)


def plan_blueprint(blueprint: Blueprint, catalog: Catalog, now: datetime | None = None) -> CompilePlan:
    """Plan every resource of a validated blueprint at `now` (it sizes Capacity Block groups from their window; None
    plans them as running); raises `PlanError` when the blueprint can't be compiled as written."""
    cluster_name = derived_cluster_name(blueprint)
    node_groups = plan_node_groups(blueprint, catalog, now)
    subnets = carve_subnets(blueprint.cloud.vpc_cidr, _subnet_demands(blueprint, node_groups)) + _pod_subnets(blueprint, node_groups)
    file_systems, buckets = plan_storage(blueprint, catalog, cluster_name, node_groups)
    endpoint = blueprint.kubernetes.endpoint
    return CompilePlan(
        cluster_name=cluster_name,
        region=blueprint.cloud.region,
        partition=aws_partition(blueprint.cloud.region),
        vpc_cidr=str(blueprint.cloud.vpc_cidr),
        availability_zones=tuple(blueprint.cloud.availability_zones),
        kubernetes_version=blueprint.kubernetes.version,
        endpoint_private=endpoint.private,
        public_access_cidrs=tuple(str(cidr) for cidr in endpoint.public_access_cidrs),
        private_access_cidrs=tuple(str(cidr) for cidr in endpoint.private_access_cidrs),
        layer_stack=blueprint.kubernetes.layer_stack,
        pod_networking=blueprint.kubernetes.pod_networking,
        control_plane_tier=control_plane_tier(sum(group.max_size for group in node_groups), blueprint.kubernetes.control_plane_tier),
        tags=_tags(blueprint, cluster_name),
        subnets=subnets,
        placements=_placements(blueprint, catalog, node_groups),
        node_groups=node_groups,
        file_systems=file_systems,
        buckets=buckets,
        kubernetes=plan_kubernetes(blueprint, catalog, node_groups),
    )
