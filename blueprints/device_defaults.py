"""A blueprint that leaves `kubernetes.device_plugins` out gets the plugin each of its pools' devices needs.

`device_plugins: []` still means "install none" (a team that brings its own). Left out, the list is
derived at load time from the pools, the same facts the cross-layer check holds a listed plugin to
(`topology.cluster.device_plugins.needs`): NVIDIA's k8s-device-plugin where a pool's instance type has
NVIDIA GPUs, the Neuron device plugin where it has Trainium or Inferentia chips, and the EFA device
plugin where a pool joins a fabric with EFA transport on a type that supports EFA
(`topology.cluster.pool_facts.pool_is_efa`). Each derived plugin serves every pool with its device,
with exactly their taints tolerated, which is the placement the model's fields recommend.

Without this, the smallest blueprint a newcomer writes fails `k8s.missing-plugin` on its first
`validate`: defaults must form a design railyard accepts.
"""

from __future__ import annotations

from blueprints.catalog import Catalog
from blueprints.models import Blueprint

# In the order the derived list is written: one entry per kind, so the plan is the same whatever the pools' order.
ORDER = ("nvidia_device_plugin", "neuron_device_plugin", "efa_device_plugin")


def needed_plugins(blueprint: Blueprint, catalog: Catalog) -> tuple[str, ...]:
    """The device-plugin kinds the blueprint's pools need, in `ORDER` (types the catalog lacks add none)."""
    fabrics = {fabric.name: fabric for fabric in blueprint.fabrics}
    kinds: set[str] = set()
    for pool in blueprint.pools:
        spec = catalog.get(pool.instance_type)
        if spec is None:
            continue
        if spec.accelerator is not None:
            kinds.add("nvidia_device_plugin" if spec.accelerator.vendor == "nvidia" else "neuron_device_plugin")
        fabric = fabrics.get(pool.fabric) if pool.fabric else None
        if fabric is not None and fabric.transport == "efa" and spec.efa_supported:
            kinds.add("efa_device_plugin")
    return tuple(kind for kind in ORDER if kind in kinds)


def with_device_plugins(blueprint: Blueprint, catalog: Catalog) -> Blueprint:
    """`blueprint`, with the plugins its pools need when it leaves `kubernetes.device_plugins` out; else itself."""
    settings = blueprint.kubernetes
    if "device_plugins" in settings.model_fields_set:
        return blueprint
    plugins = [{"kind": kind} for kind in needed_plugins(blueprint, catalog)]
    kubernetes = type(settings).model_validate({**settings.model_dump(mode="json", exclude_unset=True, by_alias=True), "device_plugins": plugins})
    return blueprint.model_copy(update={"kubernetes": kubernetes})
