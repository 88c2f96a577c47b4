"""Where each device plugin runs: the pools it serves and its pods' placement, decided from the pools.

Each plugin the blueprint lists becomes a `PluginPlacement`: the pools it
serves (the ones listed, else every pool with its device), and the
`Placement` of its DaemonSet pods exactly as the chart will render it -
required affinity on the pool label, tolerations equal to those pools'
taints, plus what each chart adds by itself (the EFA chart's
`CriticalAddonsOnly` toleration and its "not on EKS Auto Mode" expression).
The cross-layer check proves these placements against the node groups; the
compiler (`components.kubernetes.device_plugins`) renders them into the
charts' value keys, so what is checked is what is installed (aws-facts.md
section 5).
"""

from __future__ import annotations

from collections.abc import Sequence

from blueprints.models import Blueprint
from blueprints.models.kubernetes import DevicePlugin
from blueprints.records import record
from topology.cluster.labels import POOL_LABEL
from topology.cluster.scheduling import NFD_NVIDIA_LABEL, Match, NodeGroupView, Placement, Toleration, tolerations_for

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


@record
class PluginPlacement:
    """One listed plugin (`index` in `kubernetes.device_plugins`): the pools it serves and where its pods may run.

    `overridden` names the placement fields the user wrote (`pools`,
    `node_selector`, `tolerations`), so a finding points at their line.
    """

    kind: str
    index: int
    pools: tuple[str, ...]
    placement: Placement
    overridden: frozenset[str]

    @property
    def resource(self) -> str:
        """The extended resource the plugin advertises."""
        return PLUGIN_RESOURCES[self.kind]


def _target_pools(kind: str, plugin: DevicePlugin, views: Sequence[NodeGroupView]) -> tuple[str, ...]:
    """The pools a plugin serves: the ones listed, else every pool with its device, in blueprint order."""
    listed = getattr(plugin, "pools", None)
    if listed is not None:
        return tuple(dict.fromkeys(listed))
    return tuple(dict.fromkeys(view.pool for view in views if needs(kind, view)))


def _placement(kind: str, plugin: DevicePlugin, pools: tuple[str, ...], views: Sequence[NodeGroupView]) -> Placement:
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


def place_device_plugins(blueprint: Blueprint, views: Sequence[NodeGroupView]) -> list[PluginPlacement]:
    """One placement per plugin the blueprint lists, in the order listed, derived from `views`."""
    placements = []
    for index, plugin in enumerate(blueprint.kubernetes.device_plugins):
        pools = _target_pools(plugin.kind, plugin, views)
        overridden = frozenset(key for key in ("pools", "node_selector", "tolerations") if key in plugin.model_fields_set)
        placements.append(PluginPlacement(plugin.kind, index, pools, _placement(plugin.kind, plugin, pools, views), overridden))
    return placements
