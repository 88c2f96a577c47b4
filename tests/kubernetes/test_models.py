"""The Kubernetes knobs of the blueprint language: defaults, and the invariants the loader reports."""

from __future__ import annotations

import pytest

from blueprints.models.kubernetes import Kubernetes, NeuronDevicePlugin, NvidiaDevicePlugin
from tests.kubernetes.fixtures import FABRIC, line_of, load, mutate

PLUGINS = "    - kind: neuron_device_plugin\n"


def test_defaults_leave_placement_and_kueue_to_railyard():
    settings = Kubernetes()
    assert settings.topology_aware_scheduling is True
    assert settings.kueue.cluster_queue is None and settings.kueue.flavors == []
    assert settings.workload_namespace == "default"
    plugin = NvidiaDevicePlugin(kind="nvidia_device_plugin")
    assert (plugin.pools, plugin.node_selector, plugin.tolerations) == (None, {}, None)
    assert NeuronDevicePlugin(kind="neuron_device_plugin").scheduler_extension is False


@pytest.mark.parametrize(
    "old, new, code, anchor, phrase",
    [
        (
            PLUGINS,
            PLUGINS + "    - kind: neuron_device_plugin\n",
            "k8s.duplicate-plugin",
            "- kind: nvidia_device_plugin",
            "['neuron_device_plugin'] more than once",
        ),
        (
            PLUGINS,
            PLUGINS + "    - kind: gpu_operator\n",
            "k8s.plugin-conflict",
            "- kind: nvidia_device_plugin",
            "both nvidia_device_plugin and gpu_operator",
        ),
        (
            PLUGINS,
            PLUGINS + "  kueue:\n    flavors:\n      - pool: gpu\n        topology_levels: [kubernetes.io/hostname, topology.kubernetes.io/zone]\n",
            "k8s.topology-levels",
            "topology_levels:",
            "level 1 of 2",
        ),
        (
            PLUGINS,
            PLUGINS
            + "  kueue:\n    flavors:\n      - pool: gpu\n        topology_levels: [topology.kubernetes.io/zone, topology.kubernetes.io/zone]\n",
            "k8s.topology-levels",
            "topology_levels:",
            "repeats ['topology.kubernetes.io/zone']",
        ),
        (
            PLUGINS,
            PLUGINS + "  kueue:\n    flavors:\n      - pool: gpu\n      - pool: gpu\n",
            "k8s.duplicate-flavor",
            "flavors:\n",
            "['gpu'] more than once",
        ),
        (
            PLUGINS,
            "    - kind: neuron_device_plugin\n      tolerations:\n        - {key: aws.amazon.com/neuron, operator: Exists, value: 'true'}\n",
            "k8s.toleration-value",
            "operator: Exists, value",
            "uses operator Exists with value 'true'",
        ),
        (
            PLUGINS,
            PLUGINS + "  topology_aware_scheduling: false\n  kueue:\n    flavors:\n      - pool: gpu\n",
            "k8s.kueue-disabled",
            "kueue:\n",
            "topology_aware_scheduling is false",
        ),
    ],
    ids=[
        "duplicate plugin",
        "plugin conflict",
        "hostname not last",
        "repeated level",
        "duplicate flavor",
        "exists with value",
        "flavors without kueue",
    ],
)
def test_malformed_kubernetes_knob_is_reported_by_the_loader(old, new, code, anchor, phrase):
    text = mutate(old, new, FABRIC)
    loaded = load(text)
    assert loaded.blueprint is None
    (finding,) = [finding for finding in loaded.findings if finding.code == code]
    assert phrase in finding.message and finding.hint
    # A list is placed at its first item: the line after the anchor when the anchor ends the line.
    line = text.index(anchor) if anchor.endswith("\n") else None
    expected = text[:line].count("\n") + 2 if line is not None else line_of(text, anchor)
    assert (finding.file, finding.line) == ("fabric.yaml", expected)


def test_unknown_plugin_field_is_a_schema_error_with_a_suggestion():
    loaded = load(mutate(PLUGINS, "    - kind: neuron_device_plugin\n      toleration: []\n", FABRIC))
    assert loaded.blueprint is None
    assert any("tolerations" in (finding.hint + finding.message) for finding in loaded.findings)


def test_gpu_operator_takes_no_pool_selector():
    loaded = load(mutate("    - kind: nvidia_device_plugin\n", "    - kind: gpu_operator\n      pools: [gpu]\n", FABRIC))
    assert loaded.blueprint is None
