"""The Kubernetes layer as emitted: the check stage's layout plus the Helm releases that render it.

`plan_kubernetes(blueprint, catalog)` takes the layout the cross-layer check
proved (`topology.cluster.kubernetes.lay_out_kubernetes`) and adds only what
installing it needs: each chart's release and values, and the volumes.
`KubernetesLayer` emits this plan and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from blueprints.catalog import Catalog
from blueprints.models import Blueprint
from blueprints.records import record
from blueprints.rules.names import cluster_name
from components.kubernetes.acceptance import AcceptanceBundle
from components.kubernetes.compute_domains import dra_driver_release
from components.kubernetes.device_plugins import plugin_releases
from components.kubernetes.karpenter import KarpenterPlan, plan_karpenter
from components.kubernetes.kueue import KUEUE_RELEASE
from components.kubernetes.metrics import MetricsPlan, plan_metrics
from components.kubernetes.releases import ReleasePlan
from components.kubernetes.storage import StoragePlan, plan_storage
from topology.cluster.kubernetes import KubernetesLayout, lay_out_kubernetes
from topology.cluster.node_groups import NodeGroupPlan, plan_node_groups


@record
class KubernetesPlan:
    """The layout, each placed plugin's release (by kind), the storage driver and volumes, and the accelerator exporters."""

    layout: KubernetesLayout
    plugin_releases: Mapping[str, ReleasePlan]
    storage: StoragePlan
    metrics: MetricsPlan = MetricsPlan()
    # The Karpenter controller and its node classes, when a pool uses Karpenter.
    karpenter: KarpenterPlan | None = None
    # What the acceptance checkers of gated pools carry (`railyard.checker_bundle`); None: no pool is gated.
    checker_bundle: AcceptanceBundle | None = None

    @property
    def kueue(self):
        """Kueue's Topologies, flavors and queues (None when topology-aware scheduling is off)."""
        return self.layout.kueue

    @property
    def workload_namespace(self) -> str:
        """The namespace the claims and the LocalQueue live in."""
        return self.layout.workload_namespace

    def releases(self) -> list[ReleasePlan]:
        """Every Helm release planned, plugins first, as `ReleasePlan`s."""
        found = list(self.plugin_releases.values())
        if self.metrics.dcgm_release is not None:
            found.append(self.metrics.dcgm_release)
        if self.storage.release is not None:
            found.append(self.storage.release)
        if self.layout.kueue is not None:
            found.append(KUEUE_RELEASE)
        if self.karpenter is not None:
            found.append(self.karpenter.release)
        if self.layout.compute_domains is not None:
            found.append(dra_driver_release(self.layout.compute_domains))
        return found


def plan_kubernetes(
    blueprint: Blueprint, catalog: Catalog, planned: Sequence[NodeGroupPlan] | None = None, layout: KubernetesLayout | None = None
) -> KubernetesPlan:
    """Plan the releases and volumes of a validated blueprint's layer, on `layout` when the caller has it."""
    groups = planned if planned is not None else plan_node_groups(blueprint, catalog)  # planned once, for the layout and Karpenter
    layout = layout or lay_out_kubernetes(blueprint, catalog, groups)
    return KubernetesPlan(
        layout,
        plugin_releases(blueprint, layout.plugins, layout.nodes),
        plan_storage(blueprint, layout.mounts),
        plan_metrics(layout.exporters),
        plan_karpenter(blueprint, catalog, groups, cluster_name(blueprint)),
    )
