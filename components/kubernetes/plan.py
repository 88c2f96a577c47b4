"""The whole Kubernetes layer as one pure plan: the single source of truth for emission and checks.

`plan_kubernetes(blueprint, catalog)` is what `KubernetesLayer` emits and
what `check_kubernetes` checks; neither recomputes any part of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from blueprints.catalog import Catalog
from blueprints.models import Blueprint
from components.kubernetes.device_plugins import PluginPlan, plan_device_plugins
from components.kubernetes.kueue import KueuePlan, plan_kueue
from components.kubernetes.nodes import NodeGroupView, node_groups
from components.kubernetes.storage import StoragePlan, plan_storage


@dataclass(frozen=True)
class KubernetesPlan:
    """The node groups as Kubernetes sees them, and everything planned onto them."""

    nodes: tuple[NodeGroupView, ...]
    plugins: tuple[PluginPlan, ...]
    storage: StoragePlan
    kueue: KueuePlan | None
    workload_namespace: str = "default"

    def releases(self) -> list:
        """Every Helm release planned, plugins first, as `ReleasePlan`s."""
        found = [plugin.release for plugin in self.plugins if plugin.release is not None]
        if self.storage.release is not None:
            found.append(self.storage.release)
        if self.kueue is not None:
            found.append(self.kueue.release)
        return found


def plan_kubernetes(blueprint: Blueprint, catalog: Catalog, planned_node_groups=None) -> KubernetesPlan:
    """Plan device plugins, storage and Kueue for a validated blueprint (on node groups already planned, if given)."""
    views = node_groups(blueprint, catalog, planned_node_groups)
    return KubernetesPlan(
        nodes=tuple(views),
        plugins=tuple(plan_device_plugins(blueprint, views)),
        storage=plan_storage(blueprint, views),
        kueue=plan_kueue(blueprint, views),
        workload_namespace=blueprint.kubernetes.workload_namespace,
    )
