"""Device plugins: which chart runs where, planned from the pools that have each device.

Each plugin the blueprint lists becomes a `PluginPlan`: the pools it serves,
the `Placement` of its DaemonSet pods (required affinity on the pool label,
tolerations equal to those pools' taints) and the Helm release that renders
that placement into the chart's own value keys. `DevicePlugins` emits the
releases. The NVIDIA chart's default affinity (`nvidia.com/gpu.present`) and
the EFA and Neuron charts' instance-type lists are replaced by the pool
selector, so a plugin lands on exactly its pools (aws-facts.md section 5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import pulumi

from blueprints.models import Blueprint
from components.kubernetes import charts
from components.kubernetes.nodes import NFD_NVIDIA_LABEL, Match, NodeGroupView, Placement, Toleration, tolerations_for
from components.kubernetes.releases import ReleasePlan, emit_release
from components.labels import POOL_LABEL

# The EFA chart's template always adds this toleration before the user's.
CRITICAL_ADDONS_ONLY = Toleration("CriticalAddonsOnly", "Exists")
# The EFA chart (0.5.x) ANDs this expression into every affinity term: never on EKS Auto Mode nodes.
NOT_AUTO_MODE = Match("eks.amazonaws.com/compute-type", "NotIn", ("auto",))

PLUGIN_RESOURCES = {
    "nvidia_device_plugin": "nvidia.com/gpu",
    "gpu_operator": "nvidia.com/gpu",
    "efa_device_plugin": "vpc.amazonaws.com/efa",
    "neuron_device_plugin": "aws.amazon.com/neuron",
}


def needs(kind: str, view: NodeGroupView) -> bool:
    """True when nodes of `view` have the device the plugin of `kind` advertises."""
    if kind in ("nvidia_device_plugin", "gpu_operator"):
        return view.vendor == "nvidia"
    if kind == "neuron_device_plugin":
        return view.vendor == "aws"
    return view.efa


@dataclass(frozen=True)
class PluginPlan:
    """One listed plugin: where it runs, and the release that puts it there (None when it serves no pool)."""

    kind: str
    index: int
    pools: tuple[str, ...]
    placement: Placement
    release: ReleasePlan | None
    overridden: frozenset[str]

    @property
    def resource(self) -> str:
        """The extended resource the plugin advertises."""
        return PLUGIN_RESOURCES[self.kind]


def _target_pools(kind: str, plugin, views: Sequence[NodeGroupView]) -> tuple[str, ...]:
    """The pools a plugin serves: the ones listed, else every pool with its device, in blueprint order."""
    listed = getattr(plugin, "pools", None)
    if listed is not None:
        return tuple(dict.fromkeys(listed))
    return tuple(dict.fromkeys(view.pool for view in views if needs(kind, view)))


def _placement(kind: str, plugin, pools: tuple[str, ...], views: Sequence[NodeGroupView]) -> Placement:
    """The DaemonSet pods' placement, exactly as the chart will render it."""
    served = [view for view in views if view.pool in pools]
    listed = getattr(plugin, "tolerations", None)
    tolerations = tuple(Toleration(t.key, t.operator, t.value, t.effect) for t in listed) if listed is not None else tolerations_for(served)
    if kind == "gpu_operator":
        # The operator deploys operands on every node NFD finds an NVIDIA PCI device on.
        return Placement({NFD_NVIDIA_LABEL: "true"}, (), tolerations)
    selector = dict(getattr(plugin, "node_selector", {}))
    pool_term = Match(POOL_LABEL, "In", pools)
    if kind == "efa_device_plugin":
        return Placement(selector, ((pool_term, NOT_AUTO_MODE),), (CRITICAL_ADDONS_ONLY, *tolerations))
    return Placement(selector, ((pool_term,),), tolerations)


def _values(kind: str, plugin, pools: tuple[str, ...], placement: Placement, views: Sequence[NodeGroupView]) -> dict:
    """The chart values that render `placement` (and the few non-placement settings railyard owns)."""
    tolerations = placement.tolerations_k8s()
    selector = dict(placement.node_selector)
    if kind == "nvidia_device_plugin":
        values = {"affinity": placement.affinity(), "tolerations": tolerations}
    elif kind == "gpu_operator":
        # EKS NVIDIA AMIs ship the driver and the container toolkit (aws-facts.md 5.2).
        return {
            "driver": {"enabled": False},
            "toolkit": {"enabled": False},
            "daemonsets": {"tolerations": tolerations},
            "node-feature-discovery": {"worker": {"tolerations": tolerations}},
        }
    elif kind == "efa_device_plugin":
        # The chart ORs one `<key> In <values>` term per key; keying it on the pool
        # label instead of the instance type selects exactly the EFA pools. Its
        # template adds CriticalAddonsOnly itself.
        own = [toleration.as_k8s() for toleration in placement.tolerations if toleration != CRITICAL_ADDONS_ONLY]
        values = {"supportedInstanceLabels": {"keys": [POOL_LABEL], "values": list(pools)}, "tolerations": own}
    else:
        served = {view.spec.name for view in views if view.pool in pools}
        values = {
            "neuronInstances": sorted(served),
            "devicePlugin": {"affinity": placement.affinity(), "tolerations": tolerations},
            "scheduler": {"enabled": plugin.scheduler_extension},
        }
        if selector:
            values["devicePlugin"]["nodeSelector"] = selector
        return values
    if selector:
        values["nodeSelector"] = selector
    return values


_RELEASES = {
    "nvidia_device_plugin": ("nvidia-device-plugin", charts.NVIDIA_DEVICE_PLUGIN, None),
    "gpu_operator": ("gpu-operator", charts.GPU_OPERATOR, {"pod-security.kubernetes.io/enforce": "privileged"}),
    "efa_device_plugin": ("aws-efa-k8s-device-plugin", charts.EFA_DEVICE_PLUGIN, None),
    "neuron_device_plugin": ("neuron-helm-chart", charts.NEURON, None),
}


def plan_device_plugins(blueprint: Blueprint, views: Sequence[NodeGroupView]) -> list[PluginPlan]:
    """One plan per plugin the blueprint lists, in the order listed.

    A plugin that serves no pool gets no release (the cross-layer check
    reports it as unused); everything else is derived from `views`.
    """
    plans = []
    for index, plugin in enumerate(blueprint.kubernetes.device_plugins):
        kind = plugin.kind
        pools = _target_pools(kind, plugin, views)
        placement = _placement(kind, plugin, pools, views)
        release = None
        if pools:
            name, chart, namespace_labels = _RELEASES[kind]
            release = ReleasePlan(name, name, chart, _values(kind, plugin, pools, placement, views), namespace_labels)
        overridden = frozenset(key for key in ("pools", "node_selector", "tolerations") if key in plugin.model_fields_set)
        plans.append(PluginPlan(kind, index, pools, placement, release, overridden))
    return plans


class DevicePlugins(pulumi.ComponentResource):
    """The device-plugin releases of one cluster (`railyard:kubernetes:DevicePlugins`)."""

    def __init__(self, name: str, plans: Sequence[PluginPlan], provider: pulumi.ProviderResource, opts: pulumi.ResourceOptions | None = None,
                 system_nodes: Sequence[pulumi.Resource] = ()):
        super().__init__("railyard:kubernetes:DevicePlugins", name, None, opts)
        self.releases = {
            plan.kind: emit_release(name, self, plan.release, provider, system_nodes) for plan in plans if plan.release is not None
        }
        self.register_outputs({"releases": {kind: release.name for kind, release in self.releases.items()}})
