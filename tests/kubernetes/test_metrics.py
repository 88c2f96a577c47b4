"""Accelerator metrics: the DCGM exporter on exactly the GPU pools, neuron-monitor on exactly the Neuron pools, scrape-ready."""

from __future__ import annotations

from pathlib import Path

from blueprints.catalog import load_catalog
from blueprints.loader import load_text
from components.kubernetes import plan_kubernetes
from components.kubernetes.metrics import neuron_monitor_spec
from tests.kubernetes.fixtures import example, example_path
from topology.cluster.kubernetes_checks import check_kubernetes
from topology.cluster.node_groups import plan_node_groups
from topology.cluster.scheduling import Toleration

CATALOG = load_catalog()
HETEROGENEOUS = Path(example_path("heterogeneous")).read_text()


def taints_of(blueprint, pools) -> list[dict]:
    """The tolerations the node groups of `pools` need, as Kubernetes writes them, first seen first."""
    found: dict[Toleration, None] = {}
    for group in plan_node_groups(blueprint, CATALOG):
        if group.pool in pools:
            for taint in group.taints:
                found.setdefault(Toleration.of_taint(taint), None)
    return [toleration.as_k8s() for toleration in found]


def pools_of(affinity: dict) -> list[str]:
    [term] = affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    [expression] = term["matchExpressions"]
    assert (expression["key"], expression["operator"]) == ("railyard.dev/pool", "In")
    return expression["values"]


def test_the_dcgm_exporter_runs_on_exactly_the_gpu_pools_tolerating_exactly_their_taints_and_is_scrape_ready():
    blueprint = example("heterogeneous")
    release = plan_kubernetes(blueprint, CATALOG).metrics.dcgm_release
    assert release is not None and (release.chart.chart, release.chart.version) == ("dcgm-exporter", "4.8.2")
    assert pools_of(release.values["affinity"]) == ["h200"]
    assert release.values["tolerations"] == taints_of(blueprint, {"h200"})
    assert release.values["podAnnotations"] == {"prometheus.io/scrape": "true", "prometheus.io/port": "9400"}
    assert release.values["serviceMonitor"] == {"enabled": False}


def test_neuron_monitor_runs_on_exactly_the_neuron_pools_from_the_pinned_image():
    blueprint = example("heterogeneous")
    metrics = plan_kubernetes(blueprint, CATALOG).metrics
    assert metrics.neuron_pools == ("trainium", "serve")
    spec = neuron_monitor_spec(metrics.neuron_monitor)
    assert pools_of(spec["affinity"]) == ["trainium", "serve"]
    assert spec["tolerations"] == taints_of(blueprint, {"trainium", "serve"})
    [container] = spec["containers"]
    assert container["image"] == "public.ecr.aws/neuron/neuron-monitor:1.3.0"
    assert container["ports"] == [{"name": "metrics", "containerPort": 8000}] and container["securityContext"] == {"privileged": True}


def test_metrics_off_installs_no_exporter():
    text = HETEROGENEOUS.replace("kubernetes:\n", "kubernetes:\n  accelerator_metrics: false\n", 1)
    metrics = plan_kubernetes(load_text(text, "h.yaml").blueprint, CATALOG).metrics
    assert (metrics.dcgm_release, metrics.neuron_monitor) == (None, None)


def test_a_pool_nothing_watches_is_a_warning_and_either_signal_is_enough():
    silent = HETEROGENEOUS.replace(
        "kubernetes:\n", "kubernetes:\n  accelerator_metrics: false\n  addons:\n    node_monitoring_agent: {enabled: false}\n", 1
    )
    found = [f for f in check_kubernetes(load_text(silent, "h.yaml").blueprint, CATALOG) if f.code == "k8s.no-health-signal"]
    assert sorted((f.path, f.severity) for f in found) == [(("pools", 0), "warning"), (("pools", 1), "warning"), (("pools", 2), "warning")]
    agent_only = HETEROGENEOUS.replace("kubernetes:\n", "kubernetes:\n  accelerator_metrics: false\n", 1)
    assert not [f for f in check_kubernetes(load_text(agent_only, "h.yaml").blueprint, CATALOG) if f.code == "k8s.no-health-signal"]


def test_the_neuron_monitor_holds_the_checkov_rows_docs_policies_marks_compiled():
    """docs/policies.md, "Checkov (Kubernetes objects)": probes (CKV_K8S_8, 9), no token (38), a NetworkPolicy (CKV2_K8S_6)."""
    from tests.preview.conftest import preview_of

    result = preview_of("trn2-ultraserver")
    [daemon_set] = result.of_type("kubernetes:apps/v1:DaemonSet")
    [policy] = result.of_type("kubernetes:networking.k8s.io/v1:NetworkPolicy")
    pod = daemon_set.inputs["spec"]["template"]
    [container] = pod["spec"]["containers"]
    assert pod["spec"]["automountServiceAccountToken"] is False
    assert container["livenessProbe"]["tcpSocket"] == container["readinessProbe"]["tcpSocket"] == {"port": 8000}
    assert daemon_set.inputs["metadata"]["namespace"] == policy.inputs["metadata"]["namespace"] == "kube-system"
    spec = policy.inputs["spec"]
    assert spec["podSelector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    assert spec["ingress"] == [{"ports": [{"port": 8000, "protocol": "TCP"}]}] and spec["egress"] == []
    assert set(spec["policyTypes"]) == {"Ingress", "Egress"}
    # The accepted deviation: privileged, as AWS's manifest runs it (the docs name nothing narrower).
    assert container["securityContext"] == {"privileged": True}
