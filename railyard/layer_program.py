"""A layer stack's program: the Kubernetes layer alone, for a cluster another stack built, read through a StackReference.

A stack whose file says `railyard:clusterStack: <stack>` runs `build_layer` (docs/endpoint-access.md): it reads the
cluster's name, endpoint, file systems, FSx classes and Karpenter wiring from that stack's outputs (the names
`railyard.program.export` writes) and emits `components.kubernetes.KubernetesLayer` with them.
"""

from __future__ import annotations

from typing import Any

import pulumi

from blueprints.records import record
from components.kubernetes import KubernetesLayer, KubernetesLayerArgs
from components.kubernetes.karpenter import KarpenterWiring, NodeClassNetwork, NodeClassNetworkRef
from components.plan.compile import CompilePlan
from components.plan.kubeconfig import render_kubeconfig
from components.storage import ClassNetwork
from railyard.deployment import Deployment
from topology.cluster.node_groups import NodeGroupPlan


@record
class ReferencedFileSystem:
    """A file system the cluster's stack made, as its stack outputs name it (for the layer stack's volumes)."""

    id: pulumi.Output[str]
    dns_name: pulumi.Output[str]
    mount_name: pulumi.Output[str]


def _at(output: pulumi.Output[Any], *keys: str | int) -> pulumi.Output[Any]:
    """The value under `keys` (dict keys, list indexes) of a stack output of the cluster's stack."""

    def walk(value: Any) -> Any:
        for key in keys:
            value = value[key]
        return value

    return output.apply(walk)


def _referenced(systems: pulumi.Output[Any], tier: str) -> ReferencedFileSystem:
    """One tier's file system from the cluster stack's `fileSystems` output."""
    return ReferencedFileSystem(*(_at(systems, tier, key).apply(str) for key in ("id", "dnsName", "mountName")))


def _referenced_class(classes: pulumi.Output[Any], name: str) -> ClassNetwork:
    """One FSx StorageClass's subnet and security group from the cluster stack's `fsxClasses` output."""
    return ClassNetwork(_at(classes, name, "subnetId").apply(str), _at(classes, name, "securityGroupId").apply(str))


def in_placement_group(plan: CompilePlan, group: NodeGroupPlan) -> bool:
    """True when railyard makes a placement group for the group's pool and zone (the Placement component's `group_names`)."""
    return any(decision.key == group.placement_key and decision.strategy is not None for decision in plan.placements)


def _referenced_karpenter(reference: pulumi.StackReference, plan: CompilePlan, cluster_name: pulumi.Output[Any]) -> KarpenterWiring | None:
    """Karpenter's wiring from the cluster stack's `karpenter` output, when the plan has Karpenter pools."""
    if plan.kubernetes.karpenter is None:
        return None
    found = reference.require_output("karpenter")

    def read(*keys: str | int) -> pulumi.Output[Any]:
        return _at(found, *keys)

    networks: dict[str, NodeClassNetworkRef] = {
        node_class.name: NodeClassNetwork(
            read("nodeClasses", node_class.name, "subnetId"),
            # The cluster security group, and the EFA group on EFA nodes (as `_karpenter` lists them).
            [read("nodeClasses", node_class.name, "securityGroupIds", index) for index in range(2 if node_class.group.efa_interfaces else 1)],
            read("nodeClasses", node_class.name, "placementGroup") if in_placement_group(plan, node_class.group) else None,
        )
        for node_class in plan.kubernetes.karpenter.node_classes
    }
    return KarpenterWiring(cluster_name, read("queueName"), read("nodeRoleName"), read("volumeKeyArn"), networks)


def qualified_stack(stack: str) -> str:
    """`prod` -> `<organization>/<project>/prod`, the name a StackReference needs; a qualified name stays."""
    return stack if "/" in stack else f"{pulumi.get_organization()}/{pulumi.get_project()}/{stack}"


def build_layer(plan: CompilePlan, deployment: Deployment) -> KubernetesLayer:
    """Emit the Kubernetes layer alone, for a cluster another stack built, read through a StackReference.

    The kubeconfig is rendered here, with this stack's identity: the runner
    inside the VPC signs its own token. Nothing waits for node groups: the
    cluster's stack has finished before this one runs.
    """
    assert deployment.cluster_stack is not None
    reference = pulumi.StackReference(f"{plan.cluster_name}-cluster-stack", stack_name=qualified_stack(deployment.cluster_stack))
    cluster_name = reference.require_output("clusterName")
    endpoint = reference.require_output("clusterEndpoint")
    authority = reference.require_output("certificateAuthority")
    kubeconfig: pulumi.Output[str] = pulumi.Output.secret(
        pulumi.Output.all(cluster_name, endpoint, authority).apply(
            lambda values: render_kubeconfig(values[0], values[1], values[2], plan.region, deployment.identity)
        )
    )
    systems = reference.require_output("fileSystems")
    file_systems = {volume.tier: _referenced(systems, volume.tier) for volume in plan.kubernetes.storage.volumes}
    karpenter = _referenced_karpenter(reference, plan, cluster_name)
    classes = reference.require_output("fsxClasses") if plan.kubernetes.storage.classes else None
    networks = {fsx_class.name: _referenced_class(classes, fsx_class.name) for fsx_class in plan.kubernetes.storage.classes} if classes else {}
    layer = KubernetesLayer(
        f"{plan.cluster_name}-k8s",
        KubernetesLayerArgs(plan.kubernetes, kubeconfig=kubeconfig, file_systems=file_systems, class_networks=networks, karpenter=karpenter),
    )
    pulumi.export("clusterName", cluster_name)
    pulumi.export(
        "kubernetes",
        {
            "releases": sorted(release.name for release in plan.kubernetes.releases()),
            "claims": sorted(layer.storage.claims),
            "clusterQueue": plan.kubernetes.kueue.cluster_queue if plan.kubernetes.kueue else None,
        },
    )
    return layer
