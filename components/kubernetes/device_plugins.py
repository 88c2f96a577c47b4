"""Device plugins: the Helm release of each plugin, rendered from where the check stage placed it.

`topology.cluster.device_plugins` decides which pools each listed plugin
serves and its pods' `Placement`; here that placement becomes the chart's own
value keys. The NVIDIA chart's default affinity (`nvidia.com/gpu.present`)
and the EFA and Neuron charts' instance-type lists are replaced by the pool
selector, so a plugin lands on exactly its pools (aws-facts.md section 5).
`DevicePlugins` emits the releases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi

from blueprints.models import Blueprint
from components.kubernetes import charts
from components.kubernetes.releases import ReleasePlan, emit_release
from topology.cluster.device_plugins import CRITICAL_ADDONS_ONLY, PluginPlacement
from topology.cluster.labels import POOL_LABEL
from topology.cluster.scheduling import NodeGroupView, Placement


def _values(kind: str, plugin, pools: tuple[str, ...], placement: Placement, views: Sequence[NodeGroupView], metrics: bool = True) -> dict:
    """The chart values that render `placement` (and the few non-placement settings railyard owns)."""
    tolerations = placement.tolerations_k8s()
    selector = dict(placement.node_selector)
    if kind == "nvidia_device_plugin":
        values: dict[str, Any] = {"affinity": placement.affinity(), "tolerations": tolerations}
    elif kind == "gpu_operator":
        # EKS NVIDIA AMIs ship the driver and the container toolkit (aws-facts.md 5.2). The operator's DCGM
        # exporter is the GPU metrics source (`kubernetes.accelerator_metrics`), without a ServiceMonitor (no
        # Prometheus Operator assumed; v26.7 turned that default on).
        return {
            "driver": {"enabled": False},
            "toolkit": {"enabled": False},
            "dcgmExporter": {"enabled": metrics, "serviceMonitor": {"enabled": False}},
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


def plugin_releases(blueprint: Blueprint, placements: Sequence[PluginPlacement], views: Sequence[NodeGroupView]) -> dict[str, ReleasePlan]:
    """The Helm release of each placed plugin, by kind, in the order listed.

    A plugin that serves no pool gets no release (the cross-layer check
    reports it as unused).
    """
    releases = {}
    for placed in placements:
        if placed.pools:
            name, chart, namespace_labels = _RELEASES[placed.kind]
            plugin = blueprint.kubernetes.device_plugins[placed.index]
            values = _values(placed.kind, plugin, placed.pools, placed.placement, views, blueprint.kubernetes.accelerator_metrics)
            releases[placed.kind] = ReleasePlan(name, name, chart, values, namespace_labels)
    return releases


class DevicePlugins(pulumi.ComponentResource):
    """The device-plugin releases of one cluster (`railyard:kubernetes:DevicePlugins`)."""

    def __init__(
        self,
        name: str,
        releases: Mapping[str, ReleasePlan],
        provider: pulumi.ProviderResource,
        opts: pulumi.ResourceOptions | None = None,
        system_nodes: Sequence[pulumi.Resource] = (),
    ):
        super().__init__("railyard:kubernetes:DevicePlugins", name, None, opts)
        self.releases = {kind: emit_release(name, self, release, provider, system_nodes) for kind, release in releases.items()}
        self.register_outputs({"releases": {kind: release.name for kind, release in self.releases.items()}})
