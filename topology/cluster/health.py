"""Health and metrics for accelerator pools: who watches each pool's devices, and where the exporters run.

Two signals, from two places. EKS node auto repair acts on node conditions,
and GPU and Neuron faults become node conditions only through the EKS node
monitoring agent (`kubernetes.addons.node_monitoring_agent`). Metrics a
Prometheus can scrape come from an exporter on each accelerator node
(`kubernetes.accelerator_metrics`): the NVIDIA DCGM exporter on GPU pools
(the GPU Operator's own when the operator is listed, else its chart), and
neuron-monitor on Neuron pools. Each exporter's pods are placed like a
device plugin's: required affinity on the pools' label, tolerating exactly
their taints, so an exporter runs on every node of its pools and no other.

A pool with neither signal gets `k8s.no-health-signal`: its devices could
fail without anything seeing it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from blueprints.findings import Finding, warning
from blueprints.models import Blueprint
from blueprints.records import record
from topology.cluster.labels import POOL_LABEL
from topology.cluster.scheduling import Match, NodeGroupView, Placement, tolerations_for

CODES = ("k8s.no-health-signal",)
Exporter = Literal["dcgm_exporter", "gpu_operator_dcgm", "neuron_monitor"]


@record
class ExporterPlacement:
    """One metrics exporter: which, the pools it serves and where its pods run (None: the GPU Operator places it)."""

    exporter: Exporter
    pools: tuple[str, ...]
    placement: Placement | None


def _pools(views: Sequence[NodeGroupView], vendor: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(view.pool for view in views if view.vendor == vendor))


def _placed(views: Sequence[NodeGroupView], pools: tuple[str, ...]) -> Placement:
    served = [view for view in views if view.pool in pools]
    return Placement({}, ((Match(POOL_LABEL, "In", pools),),), tolerations_for(served))


def place_exporters(blueprint: Blueprint, views: Sequence[NodeGroupView]) -> tuple[ExporterPlacement, ...]:
    """The exporters the blueprint's accelerator pools get (none when accelerator_metrics is off)."""
    if not blueprint.kubernetes.accelerator_metrics:
        return ()
    exporters = []
    gpus = _pools(views, "nvidia")
    if gpus:
        operator = any(plugin.kind == "gpu_operator" for plugin in blueprint.kubernetes.device_plugins)
        exporters.append(
            ExporterPlacement("gpu_operator_dcgm", gpus, None) if operator else ExporterPlacement("dcgm_exporter", gpus, _placed(views, gpus))
        )
    neuron = _pools(views, "aws")
    if neuron:
        exporters.append(ExporterPlacement("neuron_monitor", neuron, _placed(views, neuron)))
    return tuple(exporters)


def health_findings(blueprint: Blueprint, views: Sequence[NodeGroupView]) -> Iterable[Finding]:
    """A warning for each accelerator pool that nothing watches: no monitoring agent and no exporter."""
    kubernetes = blueprint.kubernetes
    if kubernetes.accelerator_metrics or kubernetes.addons.node_monitoring_agent.enabled:
        return
    for pool in dict.fromkeys(view.pool for view in views if view.vendor is not None):
        index = next(view.pool_index for view in views if view.pool == pool)
        yield warning(
            "k8s.no-health-signal",
            ("pools", index),
            f"pool '{pool}' has no health signal: with accelerator_metrics off and no node monitoring agent, "
            "nothing reports its GPU or Neuron devices failing",
            "turn on kubernetes.accelerator_metrics (DCGM exporter, neuron-monitor) or kubernetes.addons.node_monitoring_agent",
            pool=pool,
        )
