"""The Kubernetes layer as decided: node groups as Kubernetes sees them, and what is placed on them.

`lay_out_kubernetes` is the one place the layer's decisions are made: which
node groups exist (`scheduling.node_groups`), where each device plugin and
the FSx node plugin run, Kueue's Topologies, flavors and quotas, the node gates'
keeper (`topology.cluster.node_gates`), the acceptance checkers of gated pools and the DRA driver's
ComputeDomains (`topology.cluster.compute_domains`). The
cross-layer check (`kubernetes_checks`) proves this layout; the compiler
(`components.kubernetes`) renders and emits it, and never decides again.
"""

from __future__ import annotations

from collections.abc import Sequence

from blueprints.catalog import Catalog
from blueprints.models import Blueprint
from blueprints.records import record
from topology.cluster.acceptance import AcceptanceGate, plan_gates
from topology.cluster.compute_domains import ComputeDomainLayout, lay_out_compute_domains
from topology.cluster.device_plugins import PluginPlacement, place_device_plugins
from topology.cluster.health import ExporterPlacement, place_exporters
from topology.cluster.kueue import KueuePlan, plan_kueue
from topology.cluster.mounts import MountPlacement, place_fsx_mounts
from topology.cluster.node_gates import GateLayout, place_gate_keeper
from topology.cluster.node_groups import NodeGroupPlan
from topology.cluster.scheduling import NodeGroupView, node_groups


@record
class KubernetesLayout:
    """The accelerator node groups as Kubernetes sees them, and everything placed onto them."""

    nodes: tuple[NodeGroupView, ...]
    plugins: tuple[PluginPlacement, ...]
    mounts: MountPlacement
    kueue: KueuePlan | None
    workload_namespace: str = "default"
    exporters: tuple[ExporterPlacement, ...] = ()
    gates: GateLayout = GateLayout()
    acceptance: tuple[AcceptanceGate, ...] = ()
    # NVIDIA's DRA driver and the ComputeDomains of pools whose NVLink domain spans instances; None: not installed.
    compute_domains: ComputeDomainLayout | None = None

    def by_pool(self) -> dict[str, list[NodeGroupView]]:
        """The node groups by pool, in blueprint order."""
        found: dict[str, list[NodeGroupView]] = {}
        for view in self.nodes:
            found.setdefault(view.pool, []).append(view)
        return found


def lay_out_kubernetes(blueprint: Blueprint, catalog: Catalog, planned: Sequence[NodeGroupPlan] | None = None) -> KubernetesLayout:
    """Decide the layer for a validated blueprint, on its node groups (planned here unless given as `planned`)."""
    views = node_groups(blueprint, catalog, planned)
    return KubernetesLayout(
        nodes=tuple(views),
        plugins=tuple(place_device_plugins(blueprint, views)),
        mounts=place_fsx_mounts(blueprint, views),
        kueue=plan_kueue(blueprint, views),
        workload_namespace=blueprint.kubernetes.workload_namespace,
        exporters=place_exporters(blueprint, views),
        gates=place_gate_keeper(views),
        acceptance=plan_gates(blueprint, views),
        compute_domains=lay_out_compute_domains(blueprint, catalog, views),
    )
