"""`plan_blueprint`: the whole compile plan of a validated blueprint, in one frozen value.

The Pulumi program emits resources from this plan and nothing else. The
cluster's shape (node groups, subnets, placement groups, the Kubernetes
layout) is the check stage's `topology.cluster.plan_cluster`, taken as
decided; this plan adds what the resources need beyond it (names, tags,
file systems and buckets, Helm releases), all visible and testable here
without Pulumi.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from blueprints.catalog import Catalog
from blueprints.models import Blueprint
from blueprints.models.kubernetes import PodNetworking
from blueprints.records import record
from blueprints.rules.names import cluster_name as derived_cluster_name
from components.kubernetes.plan import KubernetesPlan, plan_kubernetes
from components.plan.storage import BucketPlan, FileSystemPlan, FsxClassPlan, plan_fsx_classes, plan_storage
from components.plan.tags import cluster_tags
from topology.cluster.addons import AddonPlan
from topology.cluster.errors import PlanError
from topology.cluster.node_groups import NodeGroupPlan
from topology.cluster.placement_groups import PlacementDecision
from topology.cluster.plan import plan_cluster
from topology.cluster.subnets import SubnetPlan

__all__ = ["CompilePlan", "PlanError", "plan_blueprint", "aws_partition"]


@record
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
    flow_log_retention_days: int | None = None
    addons: tuple[AddonPlan, ...] = ()
    node_auto_repair: bool = False
    # cloud.existing_vpc's id: nodes go in its subnets and no network is created.
    existing_vpc_id: str | None = None
    node_policy_arns: tuple[str, ...] = ()
    # `fsx_lustre_class` tiers: StorageClasses whose file systems the FSx CSI driver makes, one per claim.
    fsx_classes: tuple[FsxClassPlan, ...] = ()
    vpc_secondary_cidrs: tuple[str, ...] = ()
    # cloud.protect_stateful: Pulumi `protect` on the cluster, file systems, buckets and KMS keys.
    protect_stateful: bool = True

    @property
    def needs_efa(self) -> bool:
        """True when any node group launches EFA interfaces (so the EFA security group is needed)."""
        return (
            any(group.efa_interfaces for group in self.node_groups)
            or any(fs.tier.efa for fs in self.file_systems)
            or any(fsx_class.tier.efa for fsx_class in self.fsx_classes)
        )

    @property
    def addons_before_nodes(self) -> tuple[AddonPlan, ...]:
        """The add-ons nodes need to boot (the node groups wait for them)."""
        return tuple(addon for addon in self.addons if addon.spec.before_nodes)

    @property
    def addons_after_nodes(self) -> tuple[AddonPlan, ...]:
        """The add-ons whose pods need nodes (they wait for the system nodes)."""
        return tuple(addon for addon in self.addons if not addon.spec.before_nodes)

    @property
    def secondary_cidrs(self) -> tuple[str, ...]:
        """The VPC's secondary blocks for node subnets (`cloud.secondary_cidrs`), else none."""
        return tuple(str(cidr) for cidr in self.vpc_secondary_cidrs)

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


def plan_blueprint(blueprint: Blueprint, catalog: Catalog, now: datetime | None = None) -> CompilePlan:
    """Plan every resource of a validated blueprint at `now` (it sizes Capacity Block groups from their window; None
    plans them as running); raises `PlanError` when the blueprint can't be compiled as written."""
    cluster_name = derived_cluster_name(blueprint)
    cluster = plan_cluster(blueprint, catalog, now)
    file_systems, buckets = plan_storage(blueprint, catalog, cluster_name, cluster.node_groups)
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
        private_access_cidrs=blueprint.endpoint_runner_cidrs(),
        layer_stack=blueprint.kubernetes.layer_stack,
        pod_networking=blueprint.kubernetes.pod_networking,
        control_plane_tier=cluster.control_plane_tier,
        tags=cluster_tags(blueprint, cluster_name),
        subnets=cluster.subnets,
        placements=cluster.placements,
        node_groups=cluster.node_groups,
        file_systems=file_systems,
        buckets=buckets,
        kubernetes=plan_kubernetes(blueprint, catalog, cluster.node_groups, layout=cluster.kubernetes),
        flow_log_retention_days=blueprint.cloud.flow_logs.retention_days if blueprint.cloud.flow_logs.enabled else None,
        addons=cluster.addons,
        node_auto_repair=blueprint.kubernetes.node_auto_repair,
        existing_vpc_id=blueprint.cloud.existing_vpc.id if blueprint.cloud.existing_vpc else None,
        node_policy_arns=tuple(dict.fromkeys(blueprint.kubernetes.node_iam_policies)),
        fsx_classes=plan_fsx_classes(blueprint, cluster.node_groups),
        vpc_secondary_cidrs=cluster.secondary_cidrs,
        protect_stateful=blueprint.cloud.protect_stateful,
    )
