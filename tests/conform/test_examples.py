"""Every shipped example a team would deploy: a hand-sketched cluster that conforms passes, and drift in it is named.

The sketches are in tests/conform/examples.py, typed from the blueprints and AWS's documentation,
never from railyard's plan; each folder is judged as `railyard conform --from` judges it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from railyard.conform import conform
from railyard.online.evidence import read_evidence
from railyard.pipeline import validate
from tests.conform import examples, fleets
from tests.conform.clusters import P5, TRN2U, Group, Sketch, instance_id, network_nodes, node_name, pod_name
from tests.conform.examples import AI_ON_EKS, EXISTING, HETEROGENEOUS, HYPERPOD
from tests.conform.fleets import INFERENCE, RAIL_131K
from tests.conform.folders import find_instance, find_node, write_folder

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "blueprints" / "examples"
Documents = dict[str, dict[str, Any]]
# The one example left out: it exists to show what `railyard validate` refuses, so nobody deploys it.
NOT_DEPLOYED = {"insecure.yaml"}
# Every sketch, by its example's file.
EXAMPLES = {sketch.blueprint: sketch for module in (examples, fleets) for sketch in vars(module).values() if isinstance(sketch, Sketch)} | {
    P5.blueprint: P5,
    TRN2U.blueprint: TRN2U,
}


def judged(sketch: Sketch, folder: Path, change: Callable[[Documents], None] | None = None, indent: int | None = 4):
    """The report `railyard conform --from` gives on the sketch's folder (changed by `change`)."""
    return conform(validate(str(FOLDER / sketch.blueprint)), read_evidence(write_folder(sketch, folder, change, indent)))


def test_every_example_a_team_would_deploy_has_a_conforming_sketch():
    assert set(EXAMPLES) == {path.name for path in FOLDER.glob("*.yaml")} - NOT_DEPLOYED


@pytest.mark.parametrize("blueprint", sorted(set(EXAMPLES) - {RAIL_131K.blueprint}))
def test_each_examples_conforming_folder_gives_no_finding(blueprint, tmp_path):
    report = judged(EXAMPLES[blueprint], tmp_path)
    assert [finding.as_json() for finding in report.findings] == []
    assert report.ok and len(report.checks) == 17


@pytest.mark.timeout(1800)  # 268 s measured on 2 cores under seven agents' load (docs/testing.md); pytest.ini's default is 600 s
def test_the_131k_rail_cluster_of_16384_nodes_conforms(tmp_path):
    # Judged once (no mutation of it): its folder is 100 MB even written on one line.
    try:
        report = judged(RAIL_131K, tmp_path / "rail-131k", indent=None)
        assert [finding.as_json() for finding in report.findings] == []
        assert report.ok and report.cluster == "rail131k-prod"
    finally:
        shutil.rmtree(tmp_path / "rail-131k", ignore_errors=True)


def drop_node(group: Group, index: int, plugin: str) -> Callable[[Documents], None]:
    def change(documents: Documents) -> None:
        nodes = documents["kubectl-get-nodes.json"]
        nodes["items"] = [item for item in nodes["items"] if item["metadata"]["name"] != node_name(group, index)]

    return change


def drop_efa(group: Group, index: int, plugin: str) -> Callable[[Documents], None]:
    def change(documents: Documents) -> None:
        instance = find_instance(documents, instance_id(group, index))
        instance["NetworkInterfaces"] = [item for item in instance["NetworkInterfaces"] if item["Attachment"]["NetworkCardIndex"] != 5]

    return change


def drop_labels(group: Group, index: int, plugin: str) -> Callable[[Documents], None]:
    def change(documents: Documents) -> None:
        labels = find_node(documents, node_name(group, index))["metadata"]["labels"]
        for layer in range(1, len(network_nodes(group, index)) + 1):
            del labels[f"topology.k8s.aws/network-node-layer-{layer}"]

    return change


def wrong_label(group: Group, index: int, plugin: str) -> Callable[[Documents], None]:
    # The node says it sits under the next leaf; DescribeInstanceTopology says it doesn't.
    def change(documents: Documents) -> None:
        nodes = network_nodes(group, index)
        other = network_nodes(group, index + group.per_leaf)[-1]
        find_node(documents, node_name(group, index))["metadata"]["labels"][f"topology.k8s.aws/network-node-layer-{len(nodes)}"] = other

    return change


def plugin_not_ready(group: Group, index: int, plugin: str) -> Callable[[Documents], None]:
    def change(documents: Documents) -> None:
        pod = next(item for item in documents["kubectl-get-pods.json"]["items"] if item["metadata"]["name"] == pod_name(plugin, group, index))
        pod["status"]["conditions"] = [{"type": "Ready", "status": "False"}]

    return change


# (the drift, its codes, whether the instance (else the node) is the one named).
DRIFTS = {
    "a node missing": (drop_node, ("conform.node-count",), True),
    "an instance missing an EFA interface": (drop_efa, ("conform.efa-interfaces",), True),
    # The network layers are Kueue Topology levels too, so Kueue can't place the node either.
    "a node without topology labels": (drop_labels, ("conform.topology-labels", "conform.kueue"), False),
    "labels that disagree with the topology API": (wrong_label, ("conform.topology-labels",), False),
    "a device-plugin pod not ready on one node": (plugin_not_ready, ("conform.daemonset",), False),
}
# (sketch, which group, which node of it, its device plugin's DaemonSet); a pool other than the first where there is one.
TARGETS = {
    "heterogeneous trainium": (HETEROGENEOUS, 1, 9, "neuron-device-plugin"),
    "hyperpod-eks-odcr": (HYPERPOD, 0, 12, "aws-efa-k8s-device-plugin"),
    "existing-infrastructure": (EXISTING, 0, 3, "nvidia-device-plugin"),
    "ai-on-eks train": (AI_ON_EKS, 0, 5, "nvidia-device-plugin-daemonset"),
    "inference-fleet us-west-2b": (INFERENCE, 2, 200, "nvidia-device-plugin"),
}
# The inference fleet has no EFA: there is no interface to lose.
CASES = sorted(
    (target, drift)
    for target in TARGETS
    for drift in DRIFTS
    if not (drift == "an instance missing an EFA interface" and not TARGETS[target][0].groups[TARGETS[target][1]].efa_cards)
)


def _pool_line(sketch: Sketch, pool: str) -> int:
    lines = (FOLDER / sketch.blueprint).read_text(encoding="utf-8").splitlines()
    start = lines.index("pools:")
    return next(number for number, line in enumerate(lines[start:], start + 1) if line.strip() == f"- name: {pool}")


@pytest.mark.parametrize(("target", "drift"), CASES, ids=[f"{target}: {drift}" for target, drift in CASES])
def test_each_drift_in_another_example_is_an_error_naming_the_pool_and_the_node_or_instance(target, drift, tmp_path):
    sketch, which, index, plugin = TARGETS[target]
    group = sketch.groups[which]
    make, codes, by_instance = DRIFTS[drift]
    report = judged(sketch, tmp_path, make(group, index, plugin))
    pool_index = next(number for number, pool in enumerate(validate(str(FOLDER / sketch.blueprint)).blueprint.pools) if pool.name == group.pool)
    assert {(finding.code, finding.path_text) for finding in report.findings if finding.is_error} == {
        (code, f"pools[{pool_index}]") for code in codes
    }
    assert all(finding.is_error for finding in report.findings)
    culprit = instance_id(group, index) if by_instance else node_name(group, index)
    for finding in report.findings:
        assert f"'{group.pool}'" in finding.message and culprit in finding.message
        assert finding.line == _pool_line(sketch, group.pool)


def test_a_daemonset_serving_two_pools_names_the_pool_of_the_node_that_lacks_it(tmp_path):
    # The GPU Operator's device plugin serves ai-on-eks's train and gpu-inference pools; the node is a Karpenter one.
    inference = AI_ON_EKS.groups[1]
    (finding,) = judged(AI_ON_EKS, tmp_path, plugin_not_ready(inference, 1, "nvidia-device-plugin-daemonset")).findings
    assert (finding.code, finding.path_text, finding.line) == ("conform.daemonset", "pools[1]", _pool_line(AI_ON_EKS, "gpu-inference"))
    assert finding.message == (
        "DaemonSet gpu-operator/nvidia-device-plugin-daemonset (NVIDIA device plugin (GPU Operator)) has no Ready pod on 1 node(s) "
        f"of pool 'gpu-inference': {node_name(inference, 1)}"
    )
    assert (finding.certificate["pool"], finding.certificate["nodes"]) == ("gpu-inference", [node_name(inference, 1)])


def test_the_nvidia_charts_mps_control_daemon_on_no_node_is_neither_judged_nor_taken_for_the_plugin(tmp_path):
    # The chart renders it in the plugin's release; it waits for nvidia.com/mps.capable=true, which no railyard node has.
    dev = examples.DEV

    def without_plugin(documents: Documents) -> None:
        items = documents["kubectl-get-daemonsets.json"]["items"]
        assert [item["metadata"]["name"] for item in items if item["metadata"]["namespace"] == "nvidia-device-plugin"] == [
            "nvidia-device-plugin",
            "nvidia-device-plugin-mps-control-daemon",
        ]
        items.remove(next(item for item in items if item["metadata"]["name"] == "nvidia-device-plugin"))

    assert judged(dev, tmp_path / "conforming").findings == []
    (finding,) = judged(dev, tmp_path / "pluginless", without_plugin).findings
    assert (finding.code, finding.path_text) == ("conform.daemonset", "pools[0]")
    assert finding.message == "the nvidia device plugin DaemonSet is not in namespace nvidia-device-plugin: pool(s) 'dev' run without it"
