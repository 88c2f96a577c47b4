"""The emitted layer's plan on the examples: which releases, their chart values, the volumes."""

from __future__ import annotations

from pathlib import Path

from blueprints.catalog import load_catalog
from blueprints.loader import load_text
from components.kubernetes import plan_kubernetes
from tests.kubernetes.fixtures import example, example_path
from topology.cluster.labels import POOL_LABEL

CATALOG = load_catalog()


def plan_of(name: str):
    return plan_kubernetes(example(name), CATALOG)


def test_heterogeneous_gets_nvidia_efa_and_neuron_plugins_and_nothing_else():
    plan = plan_of("heterogeneous")
    assert [plugin.kind for plugin in plan.layout.plugins] == ["nvidia_device_plugin", "efa_device_plugin", "neuron_device_plugin"]
    assert {release.name for release in plan.releases()} == {
        "nvidia-device-plugin",
        "aws-efa-k8s-device-plugin",
        "neuron-helm-chart",
        "dcgm-exporter",
        "aws-fsx-csi-driver",
        "kueue",
    }
    assert {plugin.kind: plugin.pools for plugin in plan.layout.plugins} == {
        "nvidia_device_plugin": ("h200",),
        "efa_device_plugin": ("h200", "trainium"),
        "neuron_device_plugin": ("trainium", "serve"),
    }


def test_dev_example_gets_no_efa_plugin():
    plan = plan_of("dev-g6e")
    assert [plugin.kind for plugin in plan.layout.plugins] == ["nvidia_device_plugin"]
    assert all(not view.efa for view in plan.layout.nodes)
    assert "aws-efa-k8s-device-plugin" not in {release.name for release in plan.releases()}


def test_heterogeneous_chart_values_select_the_pool_label_and_tolerate_the_vendor_taints():
    values = {release.name: release.values for release in plan_of("heterogeneous").releases()}
    nvidia = values["nvidia-device-plugin"]
    terms = nvidia["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": ["h200"]}]}]
    assert nvidia["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]
    efa = values["aws-efa-k8s-device-plugin"]
    assert efa["supportedInstanceLabels"] == {"keys": [POOL_LABEL], "values": ["h200", "trainium"]}
    assert [toleration["key"] for toleration in efa["tolerations"]] == ["nvidia.com/gpu", "aws.amazon.com/neuron"]
    neuron = values["neuron-helm-chart"]
    assert neuron["neuronInstances"] == ["inf2.48xlarge", "trn2.48xlarge"]
    assert neuron["devicePlugin"]["tolerations"] == [{"key": "aws.amazon.com/neuron", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]
    assert neuron["scheduler"] == {"enabled": False}
    fsx = values["aws-fsx-csi-driver"]["node"]
    assert fsx["tolerateAllTaints"] is False
    assert fsx["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"][0][
        "values"
    ] == ["h200"]


def test_only_mounted_fsx_tiers_get_volumes_in_the_workload_namespace():
    storage = plan_of("heterogeneous").storage
    assert [(volume.tier, volume.volume_name, volume.claim_name, volume.namespace) for volume in storage.volumes] == [
        ("lustre", "fsx-lustre", "lustre", "default")
    ]
    assert plan_of("dev-g6e").storage.release is None


def test_topology_aware_scheduling_off_plans_no_kueue():
    text = Path(example_path("dev-g6e")).read_text().replace('version: "1.35"', 'version: "1.35"\n  topology_aware_scheduling: false')
    loaded = load_text(text, "dev.yaml")
    plan = plan_kubernetes(loaded.blueprint, CATALOG)
    assert plan.kueue is None
    assert "kueue" not in {release.name for release in plan.releases()}
