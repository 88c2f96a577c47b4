"""Karpenter in the cluster: the controller's release, and an EC2NodeClass and a NodePool per Karpenter node group.

A pool with `provisioner: karpenter` is planned like any other (one plan per
failure domain: instance type, subnet, interfaces, labels, taints, root
volume); instead of a launch template and a managed node group, each plan
becomes a NodePool that launches exactly that plan's nodes and an
EC2NodeClass that says how. Field names and rules are the v1 CRDs' of the
pinned chart (aws/karpenter-provider-aws v1.14.1, pkg/apis/crds):

* the NodePool requires the instance type, the capacity type (`on-demand` or
  `spot`) and the zone (`topology.kubernetes.io/zone`, or
  `topology.k8s.aws/zone-id` for a blueprint written with zone ids), carries
  the node group's labels and taints, and is limited to the pool's vCPUs at
  its most nodes. Training nodes never expire and are consolidated only when
  empty (a consolidation would kill a training job); others expire after 30
  days and are consolidated when under-used, 10% at a time;
* the EC2NodeClass uses the cluster's node role, selects subnet and security
  groups by id (no discovery tags), the EKS AL2023 AMI release railyard pins
  (`al2023@<release>`, never `@latest`, which drifts) or the pool's custom AMI,
  the encrypted gp3 root volume, IMDSv2 with a hop limit of 2, RAID0 of the
  instance store, the EFA interfaces (`networkInterfaces`, `efa-only` past the
  primary: Karpenter 1.11+), and the pool's placement group by name.

The AWS side (the controller's role and the interruption queue) is
`components.karpenter`; this module needs only their names (`KarpenterWiring`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any, Protocol

import pulumi
import pulumi_kubernetes as k8s

from blueprints.catalog import Catalog
from blueprints.catalog.pins import load_pins
from blueprints.models import Blueprint
from blueprints.models.base import is_zone_id
from blueprints.records import record
from components.kubernetes import charts
from components.kubernetes.releases import ReleasePlan, emit_release
from components.plan.lustre_efa import boot_part
from components.plan.tags import cluster_tags
from components.plan.user_data import mime_user_data
from topology.cluster.acceptance_karpenter import expire_after
from topology.cluster.labels import ACCEPTANCE_KEY, INSTANCE_TYPE_LABEL, ZONE_LABEL
from topology.cluster.node_groups import ROOT_DEVICE, NodeGroupPlan
from topology.cluster.scheduling import ZONE_ID_LABEL

NODE_CLASS_API = "karpenter.k8s.aws/v1"
NODE_POOL_API = "karpenter.sh/v1"
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
CAPACITY_TYPES = {"ON_DEMAND": "on-demand", "SPOT": "spot"}
# Karpenter's own requests in its getting-started install: 1 CPU and 1 GiB, requests equal to limits.
CONTROLLER_RESOURCES = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}
# EC2NodeClass `tags` may not set these (the CRD's CEL rules): Karpenter sets them itself.
KARPENTER_OWNED_TAGS = ("eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "karpenter.k8s.aws/ec2nodeclass")


@record
class NodeClassPlan:
    """One Karpenter node group: its NodePool's and EC2NodeClass's specs, less the ids only the cluster's stack knows."""

    name: str
    group: NodeGroupPlan
    vcpus: int
    ami_alias: str
    tags: Mapping[str, str]

    def node_pool(self) -> dict[str, Any]:
        """The NodePool spec."""
        group = self.group
        zone_key = ZONE_ID_LABEL if is_zone_id(group.availability_zones[0]) else ZONE_LABEL
        training = group.role == "training"
        requirements = [
            {"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": [group.instance_type]},
            {"key": CAPACITY_TYPE_LABEL, "operator": "In", "values": [CAPACITY_TYPES[group.capacity_type]]},
            {"key": zone_key, "operator": "In", "values": [group.availability_zones[0]]},
        ]
        template_spec: dict[str, Any] = {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": self.name},
            "requirements": requirements,
            "expireAfter": expire_after(group.role),
        }
        # A gate's taint and the acceptance taint are startup taints: Karpenter launches nodes for pods that don't tolerate
        # them and expects a DaemonSet to lift them (railyard-node-gates; the acceptance checker).
        gated = {gate.taint_key for gate in group.gates} | {ACCEPTANCE_KEY}
        taints = [{"key": taint.key, "value": taint.value, "effect": taint.effect} for taint in group.taints if taint.key not in gated]
        startup = [{"key": taint.key, "value": taint.value, "effect": taint.effect} for taint in group.taints if taint.key in gated]
        if taints:
            template_spec["taints"] = taints
        if startup:
            template_spec["startupTaints"] = startup
        disruption = (
            {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"}
            if training
            else {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "1m"}
        )
        return {
            "template": {"metadata": {"labels": dict(group.labels)}, "spec": template_spec},
            "limits": {"cpu": str(group.max_size * self.vcpus)},
            "disruption": {**disruption, "budgets": [{"nodes": "10%"}]},
        }

    def node_class(self, network: NodeClassNetworkRef, role: pulumi.Input[str], volume_key_arn: pulumi.Input[str]) -> dict[str, Any]:
        """The EC2NodeClass spec, with the subnet, security groups, placement group, node role and volume key filled in."""
        group = self.group
        ebs: dict[str, Any] = {
            "volumeSize": f"{group.root_volume_gib}Gi",
            "volumeType": "gp3",
            "encrypted": True,
            "kmsKeyID": volume_key_arn,
            "deleteOnTermination": True,
        }
        if group.root_volume_iops is not None:
            ebs["iops"] = group.root_volume_iops
        if group.root_volume_throughput is not None:
            ebs["throughput"] = group.root_volume_throughput
        spec: dict[str, Any] = {
            "role": role,
            "amiSelectorTerms": [{"id": group.ami_id}] if group.ami_id else [{"alias": self.ami_alias}],
            "subnetSelectorTerms": [{"id": network.subnet_id}],
            "securityGroupSelectorTerms": [{"id": group_id} for group_id in network.security_group_ids],
            "blockDeviceMappings": [{"deviceName": ROOT_DEVICE, "rootVolume": True, "ebs": ebs}],
            "metadataOptions": {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled", "httpPutResponseHopLimit": 2, "httpTokens": "required"},
            "tags": dict(self.tags),
        }
        if group.ami_id:
            spec["amiFamily"] = "AL2023"
        if group.raid0:
            spec["instanceStorePolicy"] = "RAID0"
        if group.max_pods is not None:
            spec["kubelet"] = {"maxPods": group.max_pods}
        if group.efa_interfaces:
            spec["networkInterfaces"] = [
                {"networkCardIndex": item.network_card_index, "deviceIndex": item.device_index, "interfaceType": item.interface_type}
                for item in group.interfaces
            ]
        if network.placement_group is not None:
            spec["placementGroupSelector"] = {"name": network.placement_group}
        if group.lustre_efa_interfaces:
            spec["userData"] = mime_user_data(None, boot_part(group.lustre_efa_interfaces))
        return spec


@record
class KarpenterPlan:
    """The controller's release (its values less the cluster's and queue's names) and the node classes."""

    release: ReleasePlan
    node_classes: tuple[NodeClassPlan, ...]


class NodeClassNetworkRef(Protocol):
    """Where one node class's nodes go: subnet, security groups, placement group (strings or Outputs)."""

    @property
    def subnet_id(self) -> pulumi.Input[str]: ...
    @property
    def security_group_ids(self) -> Sequence[pulumi.Input[str]]: ...
    @property
    def placement_group(self) -> pulumi.Input[str] | None: ...


@record
class NodeClassNetwork:
    """A node class's subnet, security groups and placement group, as the cluster's stack made them."""

    subnet_id: pulumi.Input[str]
    security_group_ids: Sequence[pulumi.Input[str]]
    placement_group: pulumi.Input[str] | None = None


@record
class KarpenterWiring:
    """What the cluster's stack made for Karpenter: names, the node role, the volume key, each node class's network."""

    cluster_name: pulumi.Input[str]
    queue_name: pulumi.Input[str]
    node_role_name: pulumi.Input[str]
    volume_key_arn: pulumi.Input[str]
    networks: Mapping[str, NodeClassNetworkRef] = field(default_factory=dict)
    # What the controller needs before it starts (its Pod Identity association), in the cluster's own stack.
    after: Sequence[pulumi.Resource] = ()


def plan_karpenter(blueprint: Blueprint, catalog: Catalog, node_groups: Sequence[NodeGroupPlan], cluster_name: str) -> KarpenterPlan | None:
    """The controller and a node class per Karpenter node group, or None when no pool uses Karpenter."""
    groups = [group for group in node_groups if not group.managed]
    if not groups:
        return None
    pins = load_pins()
    alias = f"{pins.image('eks_ami').image}@{pins.image('eks_ami').tag}"
    tags = {key: value for key, value in cluster_tags(blueprint, cluster_name).items() if key not in KARPENTER_OWNED_TAGS}
    node_classes = []
    for group in groups:
        spec = catalog.get(group.instance_type)
        assert spec is not None, "Karpenter pools run catalog instance types"
        node_classes.append(NodeClassPlan(group.name, group, spec.vcpus, alias, tags))
    # Two replicas spread over hosts (the chart's anti-affinity) need two system nodes.
    replicas = 2 if blueprint.kubernetes.system_nodes.min >= 2 else 1
    values = {"serviceAccount": {"create": True, "name": "karpenter"}, "replicas": replicas, "controller": {"resources": CONTROLLER_RESOURCES}}
    return KarpenterPlan(ReleasePlan("karpenter", "karpenter", charts.KARPENTER, values), tuple(node_classes))


class KarpenterNodes(pulumi.ComponentResource):
    """The Karpenter release and its node classes and pools (`railyard:kubernetes:KarpenterNodes`)."""

    def __init__(
        self,
        name: str,
        plan: KarpenterPlan,
        wiring: KarpenterWiring,
        provider: pulumi.ProviderResource,
        opts: pulumi.ResourceOptions | None = None,
        system_nodes: Sequence[pulumi.Resource] = (),
    ):
        super().__init__("railyard:kubernetes:KarpenterNodes", name, None, opts)
        missing = [node_class.name for node_class in plan.node_classes if node_class.name not in wiring.networks]
        if missing:
            raise ValueError(f"no subnet and security groups for Karpenter node class(es) {missing}; pass the cluster stack's networks")
        settings = {"settings": {"clusterName": wiring.cluster_name, "interruptionQueue": wiring.queue_name}}
        release = emit_release(
            name,
            self,
            ReleasePlan(plan.release.key, plan.release.name, plan.release.chart, {**plan.release.values, **settings}),
            provider,
            system_nodes,
        )
        after = pulumi.ResourceOptions(parent=self, provider=provider, depends_on=[release])
        self.node_pools = {}
        for node_class in plan.node_classes:
            network = wiring.networks[node_class.name]
            ec2_class = k8s.apiextensions.CustomResource(
                f"{name}-{node_class.name}-class",
                api_version=NODE_CLASS_API,
                kind="EC2NodeClass",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=node_class.name),
                spec=node_class.node_class(network, wiring.node_role_name, wiring.volume_key_arn),
                opts=after,
            )
            self.node_pools[node_class.name] = k8s.apiextensions.CustomResource(
                f"{name}-{node_class.name}-pool",
                api_version=NODE_POOL_API,
                kind="NodePool",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=node_class.name),
                spec=node_class.node_pool(),
                opts=pulumi.ResourceOptions(parent=self, provider=provider, depends_on=[release, ec2_class]),
            )
        self.register_outputs({"nodePools": sorted(self.node_pools)})
