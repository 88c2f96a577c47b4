"""The nodes the Kubernetes layer targets, and how a pod's placement is matched against them.

A `NodeGroupView` is one EKS managed node group (from the compute plan) as
Kubernetes will see its nodes: the labels the node group sets, the
labels AWS sets by itself for that instance type and zone, and the taints.
`Placement` is a pod's node selector, required node affinity and tolerations,
with the same matching rules the kube-scheduler applies. Device plugins, the
FSx CSI node plugin and Kueue flavors are all planned as placements, and the
cross-layer check evaluates those placements against these views, so what is
emitted and what is checked are the same objects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any, Literal

from blueprints.catalog import Catalog, InstanceType
from blueprints.models import Blueprint
from blueprints.models.base import is_zone_id
from blueprints.records import record
from topology.cluster.labels import (
    HOSTNAME_LABEL,
    INSTANCE_TYPE_LABEL,
    NETWORK_LAYER_LABEL,
    NVLINK_CLIQUE_LABEL,
    ZONE_LABEL,
    NodeTaint,
    ultraserver_labels,
)
from topology.cluster.node_groups import NodeGroupPlan, plan_node_groups

# A label whose key is always set but whose value is known only once the node
# exists (its hostname, its network-node ids). It can't equal any real value:
# '<' is not legal in a label value.
RUNTIME_VALUE = "<set at runtime>"

REGION_LABEL = "topology.kubernetes.io/region"
ARCH_LABEL = "kubernetes.io/arch"
OS_LABEL = "kubernetes.io/os"
ZONE_ID_LABEL = "topology.k8s.aws/zone-id"
NODEGROUP_LABEL = "eks.amazonaws.com/nodegroup"
# Set by node-feature-discovery (deployed by the GPU Operator) on nodes with an
# NVIDIA PCI device (vendor id 10de); the operator places its operands by it.
NFD_NVIDIA_LABEL = "feature.node.kubernetes.io/pci-10de.present"

# Taint effects that keep a pod off a node; PreferNoSchedule only discourages.
BLOCKING_EFFECTS = frozenset({"NoSchedule", "NoExecute"})


@record
class NodeGroupView:
    """One managed node group (a pool in one failure domain) as its nodes look to Kubernetes."""

    pool: str
    pool_index: int
    domain: str
    availability_zone: str
    spec: InstanceType
    labels: Mapping[str, str]
    taints: tuple[NodeTaint, ...]
    max_nodes: int
    efa: bool
    efa_interfaces: int
    mounts: tuple[str, ...] = ()
    region: str = ""
    feature_discovery: bool = False
    neuron_plugin: bool = False
    ephemeral_gib: int = 0

    @property
    def vendor(self) -> str | None:
        """`nvidia`, `aws` (Neuron) or None: whose device plugin the nodes need."""
        return self.spec.accelerator.vendor if self.spec.accelerator else None

    @property
    def name(self) -> str:
        """`pool/domain`, the way messages name a node group."""
        return f"{self.pool}/{self.domain}"

    def aws_labels(self) -> dict[str, str]:
        """Labels EKS, the kubelet and the AWS cloud provider set on every node of this group.

        The network-node layers appear only on instance types AWS reports a
        topology for, as many as the type has (aws-facts.md 4.6).
        """
        # A blueprint names zones one way; the label of the other form is known only on the node.
        by_id = is_zone_id(self.availability_zone)
        labels = {
            INSTANCE_TYPE_LABEL: self.spec.name,
            ZONE_LABEL: RUNTIME_VALUE if by_id else self.availability_zone,
            REGION_LABEL: self.region or RUNTIME_VALUE,
            ARCH_LABEL: "arm64" if self.spec.architecture == "arm64" else "amd64",
            OS_LABEL: "linux",
            HOSTNAME_LABEL: RUNTIME_VALUE,
            ZONE_ID_LABEL: self.availability_zone if by_id else RUNTIME_VALUE,
            NODEGROUP_LABEL: RUNTIME_VALUE,
        }
        for layer in range(1, self.spec.topology_layers + 1):
            labels[NETWORK_LAYER_LABEL.format(layer)] = RUNTIME_VALUE
        return labels

    def plugin_labels(self) -> dict[str, str]:
        """Labels the blueprint's cluster add-ons set on this group's nodes.

        With `feature_discovery` (the GPU Operator deploys node-feature-discovery),
        NVIDIA nodes get NFD's PCI label. With `neuron_plugin` (the Neuron device
        plugin runs), the nodes of an instance type whose NeuronLink domain spans
        hosts (trn2u: 4) get the UltraServer ids; with `feature_discovery`, those
        of a type whose NVLink domain spans hosts (p6e-gb200: 18) the NVLink clique.
        """
        labels: dict[str, str] = {}
        if self.vendor == "nvidia" and self.feature_discovery:
            labels[NFD_NVIDIA_LABEL] = "true"
        labels.update(dict.fromkeys(self.scale_up_levels(), RUNTIME_VALUE))
        return labels

    def scale_up_levels(self) -> tuple[str, ...]:
        """The labels naming the multi-host scale-up domain a node is in, broadest first; none for a one-host domain.

        A Trn2 UltraServer's ids, once the Neuron device plugin runs; a GB200
        UltraServer's NVLink clique (`nvidia.com/gpu.clique`), once GPU feature
        discovery runs (the GPU Operator deploys it).
        """
        scale_up = self.spec.scale_up
        if scale_up is None or scale_up.instances_per_domain == 1:
            return ()
        if self.vendor == "aws" and self.neuron_plugin:
            return ultraserver_labels(scale_up.instances_per_domain)
        if self.vendor == "nvidia" and self.feature_discovery:
            return (NVLINK_CLIQUE_LABEL,)
        return ()

    def all_labels(self) -> dict[str, str]:
        """Every label a node of this group carries: AWS's, the add-ons', then the node group's."""
        return {**self.aws_labels(), **self.plugin_labels(), **self.labels}


def node_groups(blueprint: Blueprint, catalog: Catalog, planned: Sequence[NodeGroupPlan] | None = None) -> list[NodeGroupView]:
    """Every accelerator node group the blueprint makes, as Kubernetes sees its nodes, in blueprint order.

    The node groups, their labels, taints, sizes and EFA interfaces are the
    node-group plan's (`topology.cluster.node_groups.plan_node_groups`), so the
    layer selects exactly what the node groups set. The untainted system
    group is left out: no plugin, volume or flavor targets it. A caller that
    has already planned the node groups (the cluster plan) passes them as
    `planned`, so they are planned once.
    """
    if planned is None:
        planned = plan_node_groups(blueprint, catalog)

    tiers = {tier.name: tier.kind for tier in blueprint.storage}
    discovery = any(plugin.kind == "gpu_operator" for plugin in blueprint.kubernetes.device_plugins)
    # The Neuron device plugin labels only the nodes it runs on: its `pools`, else every pool with its device.
    neuron_pools = [plugin.pools for plugin in blueprint.kubernetes.device_plugins if plugin.kind == "neuron_device_plugin"]
    pools = {pool.name: (index, pool) for index, pool in enumerate(blueprint.pools)}
    views: list[NodeGroupView] = []
    for group in planned:
        if group.system or group.pool not in pools:
            continue
        index, pool = pools[group.pool]
        spec = catalog.get(group.instance_type)
        assert spec is not None, f"{group.instance_type}: pools' node groups are planned only for catalog instance types"
        views.append(
            NodeGroupView(
                pool=group.pool,
                pool_index=index,
                domain=group.domain,
                availability_zone=group.availability_zones[0],
                spec=spec,
                labels=dict(group.labels),
                taints=tuple(group.taints),
                max_nodes=group.max_size,
                efa=group.efa_interfaces > 0,
                efa_interfaces=group.efa_interfaces,
                ephemeral_gib=group.ephemeral_gib,
                # Both FSx kinds are mounted by the driver's node plugin: a tier's static volume, a class's claims.
                mounts=tuple(use.tier for use in pool.storage if tiers.get(use.tier) in ("fsx_lustre", "fsx_lustre_class")),
                region=blueprint.cloud.region,
                feature_discovery=discovery,
                neuron_plugin=any(served is None or pool.name in served for served in neuron_pools),
            )
        )
    return views


@record
class Match:
    """One node-affinity match expression."""

    key: str
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist"]
    values: tuple[str, ...] = ()

    def holds(self, labels: Mapping[str, str]) -> bool:
        """True when a node with `labels` satisfies the expression (runtime values match only Exists)."""
        if self.operator == "Exists":
            return self.key in labels
        if self.operator == "DoesNotExist":
            return self.key not in labels
        present = labels.get(self.key)
        if self.operator == "In":
            return present in self.values
        return present not in self.values

    def describe(self) -> str:
        """The expression as users read it: `railyard.dev/pool in [a, b]`."""
        if self.operator in ("Exists", "DoesNotExist"):
            return f"{self.key} {self.operator.lower()}"
        return f"{self.key} {'in' if self.operator == 'In' else 'not in'} [{', '.join(self.values)}]"

    def as_k8s(self) -> dict[str, Any]:
        """The `matchExpressions` entry."""
        entry: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            entry["values"] = list(self.values)
        return entry


@record
class Toleration:
    """A pod toleration; `effect` None tolerates every effect."""

    key: str
    operator: Literal["Equal", "Exists"] = "Equal"
    value: str = ""
    effect: str | None = None

    @classmethod
    def of_taint(cls, taint: NodeTaint) -> Toleration:
        """The narrowest toleration of one taint: its key, value and effect."""
        if taint.value:
            return cls(taint.key, "Equal", taint.value, taint.effect)
        return cls(taint.key, "Exists", "", taint.effect)

    def tolerates(self, taint: NodeTaint) -> bool:
        """The kube-scheduler's rule: key (empty = any with Exists), value unless Exists, effect unless unset."""
        if self.key and self.key != taint.key:
            return False
        if self.effect is not None and self.effect != taint.effect:
            return False
        return self.operator == "Exists" or self.value == taint.value

    def describe(self) -> str:
        """`key=value:Effect` or `key:Effect` (Exists)."""
        value = f"={self.value}" if self.operator == "Equal" else ""
        return f"{self.key or '*'}{value}:{self.effect or '*'}"

    def as_k8s(self) -> dict[str, Any]:
        """The pod-spec `tolerations` entry."""
        entry: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.operator == "Equal":
            entry["value"] = self.value
        if self.effect is not None:
            entry["effect"] = self.effect
        return entry


def tolerations_for(views: list[NodeGroupView]) -> tuple[Toleration, ...]:
    """Exactly the tolerations the taints of `views` need, deduplicated, in first-seen order."""
    found: dict[Toleration, None] = {}
    for view in views:
        for taint in view.taints:
            found.setdefault(Toleration.of_taint(taint), None)
    return tuple(found)


@record
class Placement:
    """Where a pod may run: node selector AND (any affinity term), and the taints it tolerates."""

    node_selector: Mapping[str, str] = field(default_factory=dict)
    terms: tuple[tuple[Match, ...], ...] = ()
    tolerations: tuple[Toleration, ...] = ()

    def selects(self, labels: Mapping[str, str]) -> bool:
        """True when a node with `labels` passes the node selector and the required affinity."""
        return not self.unmet(labels)

    def unmet(self, labels: Mapping[str, str]) -> list[str]:
        """The requirements a node with `labels` fails, as users read them; empty when it passes."""
        unmet = [f"{key}={value}" for key, value in self.node_selector.items() if labels.get(key) != value]
        if self.terms and not any(all(match.holds(labels) for match in term) for term in self.terms):
            failing = [match.describe() for term in self.terms for match in term if not match.holds(labels)]
            unmet += failing
        return unmet

    def untolerated(self, taints: tuple[NodeTaint, ...]) -> list[NodeTaint]:
        """The blocking taints (NoSchedule, NoExecute) no toleration matches."""
        return [
            taint for taint in taints if taint.effect in BLOCKING_EFFECTS and not any(toleration.tolerates(taint) for toleration in self.tolerations)
        ]

    def lands_on(self, view: NodeGroupView) -> bool:
        """True when the pod can be scheduled on the group's nodes: selected and every blocking taint tolerated."""
        return self.selects(view.all_labels()) and not self.untolerated(view.taints)

    def affinity(self) -> dict[str, Any] | None:
        """The `affinity` value for a pod spec, or None without affinity terms."""
        if not self.terms:
            return None
        terms = [{"matchExpressions": [match.as_k8s() for match in term]} for term in self.terms]
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}

    def tolerations_k8s(self) -> list[dict[str, Any]]:
        """The `tolerations` value for a pod spec."""
        return [toleration.as_k8s() for toleration in self.tolerations]
