"""Accelerator metrics, scrape-ready: the DCGM exporter on GPU pools and neuron-monitor on Neuron pools.

`topology.cluster.health` decides which exporter serves which pools and where
its pods run; here that becomes the DCGM exporter chart's values (its
`affinity` and `tolerations` keys, `podAnnotations` for Prometheus's
kubernetes-pods discovery, and `serviceMonitor.enabled: false`, since the
chart's default ServiceMonitor fails on a cluster without the Prometheus
Operator's CRDs) and a neuron-monitor DaemonSet written out here, because the
Neuron chart (1.9.0) ships no monitor. Its spec follows AWS's own manifest
(aws-neuron-sdk `src/k8/k8s-neuron-monitor-daemonset.yml` @ 81ce03ae:
privileged, port 8000, the entrypoint and config path, its resources),
placed on the pools instead of an instance-type list that lacks trn2.

What the manifest leaves open is closed where nothing the monitor does
depends on it: the pod mounts no service-account token (the monitor calls no
Kubernetes API; its EKS pod-info helper is off by default), the kubelet
probes its metrics port, and a NetworkPolicy admits only that port and no
egress. It stays privileged and root: AWS's manifest runs it so, and neither
it nor the Neuron documentation says which devices, files or capabilities the
monitor needs, so a narrower set would be a guess that could leave the
metrics empty. docs/policies.md (Checkov, Kubernetes objects) records each
remaining Checkov finding and why. With the GPU Operator the operator's own
exporter is used (`components.kubernetes.device_plugins`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from blueprints.catalog.pins import load_pins
from blueprints.records import record
from components.kubernetes import charts
from components.kubernetes.releases import ReleasePlan, emit_release
from topology.cluster.health import ExporterPlacement
from topology.cluster.scheduling import Placement

DCGM_PORT = 9400
NEURON_MONITOR_PORT = 8000
NEURON_MONITOR = "neuron-monitor"
NEURON_MONITOR_NAMESPACE = "kube-system"
# The DCGM exporter needs the host's kubelet pod-resources socket and GPU devices: a privileged namespace under Pod Security.
PRIVILEGED = {"pod-security.kubernetes.io/enforce": "privileged"}


def scrape_annotations(port: int) -> dict[str, str]:
    """The annotations Prometheus's kubernetes-pods discovery reads."""
    return {"prometheus.io/scrape": "true", "prometheus.io/port": str(port)}


@record
class MetricsPlan:
    """The DCGM exporter release (None without it) and the neuron-monitor DaemonSet's placement (None without it)."""

    dcgm_release: ReleasePlan | None = None
    neuron_monitor: Placement | None = None
    neuron_pools: tuple[str, ...] = ()


def plan_metrics(exporters: Sequence[ExporterPlacement]) -> MetricsPlan:
    """The releases and DaemonSets that render the exporters' placements."""
    dcgm: ReleasePlan | None = None
    neuron: Placement | None = None
    neuron_pools: tuple[str, ...] = ()
    for exporter in exporters:
        if exporter.exporter == "dcgm_exporter" and exporter.placement is not None:
            values = {
                "affinity": exporter.placement.affinity(),
                "tolerations": exporter.placement.tolerations_k8s(),
                "podAnnotations": scrape_annotations(DCGM_PORT),
                "serviceMonitor": {"enabled": False},
            }
            dcgm = ReleasePlan("dcgm-exporter", "dcgm-exporter", charts.DCGM_EXPORTER, values, PRIVILEGED)
        elif exporter.exporter == "neuron_monitor" and exporter.placement is not None:
            neuron, neuron_pools = exporter.placement, exporter.pools
    return MetricsPlan(dcgm, neuron, neuron_pools)


def _metrics_probe(failures: int) -> dict[str, Any]:
    """A TCP probe of the metrics port, which the exporter opens once neuron-monitor streams (the image's entrypoint)."""
    return {"tcpSocket": {"port": NEURON_MONITOR_PORT}, "initialDelaySeconds": 15, "periodSeconds": 30, "failureThreshold": failures}


def neuron_monitor_policy() -> dict[str, Any]:
    """The NetworkPolicy spec of the monitor's pods: ingress to the metrics port only, no egress (it reads the node alone)."""
    return {
        "podSelector": {"matchLabels": {"app.kubernetes.io/name": NEURON_MONITOR}},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [{"ports": [{"protocol": "TCP", "port": NEURON_MONITOR_PORT}]}],
        "egress": [],
    }


def neuron_monitor_spec(placement: Placement) -> dict[str, Any]:
    """The neuron-monitor DaemonSet's pod template spec (AWS's manifest, placed by `placement`)."""
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": NEURON_MONITOR,
                "image": load_pins().image("neuron_monitor").reference,
                "command": ["/opt/bin/entrypoint.sh"],
                "args": ["--port", str(NEURON_MONITOR_PORT), "--neuron-monitor-config", "/opt/aws/neuron/bin/neuron-monitor.conf"],
                "ports": [{"name": "metrics", "containerPort": NEURON_MONITOR_PORT}],
                "env": [{"name": "GOMEMLIMIT", "value": "160MiB"}],
                "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "256m", "memory": "128Mi"}},
                "securityContext": {"privileged": True},
                "livenessProbe": _metrics_probe(failures=3),
                "readinessProbe": _metrics_probe(failures=1),
            }
        ],
        "automountServiceAccountToken": False,
        "tolerations": placement.tolerations_k8s(),
    }
    affinity = placement.affinity()
    if affinity is not None:
        spec["affinity"] = affinity
    return spec


class AcceleratorMetrics(pulumi.ComponentResource):
    """The accelerator exporters of one cluster (`railyard:kubernetes:AcceleratorMetrics`)."""

    def __init__(
        self,
        name: str,
        plan: MetricsPlan,
        provider: pulumi.ProviderResource,
        opts: pulumi.ResourceOptions | None = None,
        system_nodes: Sequence[pulumi.Resource] = (),
    ):
        super().__init__("railyard:kubernetes:AcceleratorMetrics", name, None, opts)
        self.dcgm = emit_release(name, self, plan.dcgm_release, provider, system_nodes) if plan.dcgm_release else None
        self.neuron_monitor = self._neuron_monitor(name, plan.neuron_monitor, provider) if plan.neuron_monitor else None
        self.neuron_monitor_policy = self._neuron_monitor_policy(name, provider) if plan.neuron_monitor else None
        self.register_outputs({"dcgmExporter": self.dcgm is not None, "neuronMonitor": self.neuron_monitor is not None})

    def _neuron_monitor(self, name: str, placement: Placement, provider: pulumi.ProviderResource) -> k8s.apps.v1.DaemonSet:
        labels = {"app.kubernetes.io/name": NEURON_MONITOR}
        return k8s.apps.v1.DaemonSet(
            f"{name}-{NEURON_MONITOR}",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=NEURON_MONITOR, namespace=NEURON_MONITOR_NAMESPACE, labels=labels),
            spec={
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels, "annotations": scrape_annotations(NEURON_MONITOR_PORT)},
                    "spec": neuron_monitor_spec(placement),
                },
            },
            opts=pulumi.ResourceOptions(parent=self, provider=provider),
        )

    def _neuron_monitor_policy(self, name: str, provider: pulumi.ProviderResource) -> k8s.networking.v1.NetworkPolicy:
        # Enforced where the cluster runs a policy engine (the VPC CNI's network policy agent, off by default, or another).
        return k8s.networking.v1.NetworkPolicy(
            f"{name}-{NEURON_MONITOR}",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=NEURON_MONITOR, namespace=NEURON_MONITOR_NAMESPACE),
            spec=neuron_monitor_policy(),
            opts=pulumi.ResourceOptions(parent=self, provider=provider),
        )
