"""`railyard conform --from`: a conforming folder passes, and each way a running cluster drifts is caught and named."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from railyard.cli import main
from railyard.conform import conform
from railyard.conform.fabric import worst_hops
from railyard.conform.observed import Placed
from railyard.online.evidence import read_evidence
from railyard.pipeline import validate
from tests.conform.clusters import P5, TRN2U, Sketch, block_of, instance_id, node_name, pod_name
from tests.conform.examples import GB200
from tests.conform.folders import find_instance, find_node, write_folder

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "blueprints" / "examples"
Documents = dict[str, dict[str, Any]]


def judged(sketch: Sketch, folder: Path, change: Callable[[Documents], None] | None = None):
    """The report on the sketch's folder (changed by `change`)."""
    return conform(validate(str(EXAMPLES / sketch.blueprint)), read_evidence(write_folder(sketch, folder, change)))


def errors(report) -> set[tuple[str, str]]:
    return {(finding.code, finding.path_text) for finding in report.findings if finding.is_error}


def _placed(documents: Documents, wanted: str) -> dict[str, Any]:
    return next(item for item in documents["ec2-describe-instance-topology.json"]["Instances"] if item["InstanceId"] == wanted)


P5_GROUP, TRN_GROUP, GB200_GROUP = P5.groups[0], TRN2U.groups[0], GB200.groups[0]


def drop_node(documents: Documents) -> None:
    documents["kubectl-get-nodes.json"]["items"] = [
        item for item in documents["kubectl-get-nodes.json"]["items"] if item["metadata"]["name"] != node_name(P5_GROUP, 5)
    ]


def drop_efa(documents: Documents) -> None:
    instance = find_instance(documents, instance_id(P5_GROUP, 3))
    instance["NetworkInterfaces"] = [item for item in instance["NetworkInterfaces"] if item["Attachment"]["NetworkCardIndex"] != 7]


def drop_labels(documents: Documents) -> None:
    labels = find_node(documents, node_name(P5_GROUP, 9))["metadata"]["labels"]
    for layer in (1, 2, 3):
        del labels[f"topology.k8s.aws/network-node-layer-{layer}"]


def wrong_label(documents: Documents) -> None:
    find_node(documents, node_name(P5_GROUP, 10))["metadata"]["labels"]["topology.k8s.aws/network-node-layer-3"] = "nn-p5-2-leaf3"


def second_spine(documents: Documents) -> None:
    straggler = instance_id(P5_GROUP, 20)
    _placed(documents, straggler)["NetworkNodes"] = ["nn-p5-1", "nn-p5-2b", "nn-p5-2b-leaf0"]
    labels = find_node(documents, node_name(P5_GROUP, 20))["metadata"]["labels"]
    labels.update({"topology.k8s.aws/network-node-layer-2": "nn-p5-2b", "topology.k8s.aws/network-node-layer-3": "nn-p5-2b-leaf0"})


def outside_block(documents: Documents) -> None:
    find_instance(documents, instance_id(P5_GROUP, 30))["CapacityReservationId"] = "cr-0ffffffffffffffff"


def plugin_not_ready(documents: Documents) -> None:
    pods = documents["kubectl-get-pods.json"]["items"]
    pod = next(item for item in pods if item["metadata"]["name"] == pod_name("aws-efa-k8s-device-plugin", P5_GROUP, 11))
    pod["status"]["conditions"] = [{"type": "Ready", "status": "False"}]


def interconnect_impaired(documents: Documents) -> None:
    documents["ec2-describe-capacity-block-status.json"]["CapacityBlockStatuses"][0]["InterconnectStatus"] = "impaired"


MUTATIONS = {
    "a node missing": (P5, drop_node, "conform.node-count", instance_id(P5_GROUP, 5)),
    "an instance missing an EFA interface": (P5, drop_efa, "conform.efa-interfaces", instance_id(P5_GROUP, 3)),
    # Its network layers are also Kueue's Topology levels, so Kueue can't place topology-aware jobs on it either.
    "a node without topology labels": (P5, drop_labels, ("conform.topology-labels", "conform.kueue"), node_name(P5_GROUP, 9)),
    "labels that disagree with the topology API": (P5, wrong_label, "conform.topology-labels", node_name(P5_GROUP, 10)),
    "a pool over more spines than its hop bound": (P5, second_spine, "conform.placement", instance_id(P5_GROUP, 20)),
    "an instance outside its Capacity Block": (P5, outside_block, "conform.capacity", instance_id(P5_GROUP, 30)),
    "a device-plugin pod not ready on one node": (P5, plugin_not_ready, "conform.daemonset", node_name(P5_GROUP, 11)),
    "an UltraServer interconnect impaired": (TRN2U, interconnect_impaired, "conform.ultraserver", block_of(TRN_GROUP, 0)),
}


# The conforming folders of every example, p5's and trn2u's among them, are judged in test_examples.py.


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_each_drift_is_one_error_naming_the_pool_and_the_node_or_instance(case, tmp_path):
    sketch, change, codes, culprit = MUTATIONS[case]
    report = judged(sketch, tmp_path, change)
    pool = sketch.groups[0].pool
    assert errors(report) == {(code, "pools[0]") for code in ((codes,) if isinstance(codes, str) else codes)}
    assert len(report.findings) == len(errors(report))
    for finding in report.findings:
        assert f"'{pool}'" in finding.message and culprit in finding.message
        assert finding.line == _pool_line(EXAMPLES / sketch.blueprint)


def _pool_line(path: Path) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.startswith("  - name:") and lines[number - 2].strip() == "pools:")


def test_the_spine_drift_quotes_the_hops_and_the_bound(tmp_path):
    (finding,) = judged(P5, tmp_path, second_spine).findings
    assert finding.certificate == {
        "pool": "train",
        "instances": [instance_id(P5_GROUP, 0), instance_id(P5_GROUP, 20)],
        "expected": 3,
        "observed": 5,
        "distinct": {"layer-1": 1, "layer-2": 2, "layer-3": 5},
    }


def test_the_missing_efa_interface_names_its_network_card(tmp_path):
    (finding,) = judged(P5, tmp_path, drop_efa).findings
    assert (finding.certificate["expected"], finding.certificate["observed"], finding.certificate["missing_cards"]) == (32, 31, [7])


def test_a_gb200_node_with_its_efa_on_a_card_outside_awss_layout_is_named(tmp_path):
    def moved(documents: Documents) -> None:
        instance = find_instance(documents, instance_id(GB200_GROUP, 4))
        efa = next(item for item in instance["NetworkInterfaces"] if item["Attachment"]["NetworkCardIndex"] == 5)
        efa["Attachment"]["NetworkCardIndex"] = 3  # the same GPU's other card: AWS's layout has it on 5

    (finding,) = judged(GB200, tmp_path, moved).findings
    assert finding.code == "conform.efa-interfaces" and finding.certificate["missing_cards"] == [5]


def test_a_gb200_node_without_its_nvlink_clique_label_is_named(tmp_path):
    def unlabelled(documents: Documents) -> None:
        del find_node(documents, node_name(GB200_GROUP, 20))["metadata"]["labels"]["nvidia.com/gpu.clique"]

    kueue, missing = sorted(judged(GB200, tmp_path, unlabelled).findings, key=lambda finding: finding.code, reverse=True)
    assert (kueue.code, kueue.certificate["node"], kueue.certificate["missing"]) == (
        "conform.kueue",
        node_name(GB200_GROUP, 20),
        ["nvidia.com/gpu.clique"],
    )
    # The NVLink check names it too, in its own words (railyard/conform/nvlink.py).
    assert (missing.code, missing.certificate["nodes"]) == ("conform.clique-missing", [node_name(GB200_GROUP, 20)])


def test_a_gb200_ultraserver_short_of_its_18_instances_is_an_error(tmp_path):
    def moved(documents: Documents) -> None:
        _placed(documents, instance_id(GB200_GROUP, 35))["CapacityBlockId"] = block_of(GB200_GROUP, 0)

    report = judged(GB200, tmp_path, moved)
    ultraservers = [finding for finding in report.findings if finding.code == "conform.ultraserver"]
    # The moved node keeps its own UltraServer's clique, so the cliques no longer match the UltraServers either.
    assert {finding.code for finding in report.findings} == {"conform.ultraserver", "conform.clique-split"}
    assert sorted((finding.certificate["capacity_block"], finding.certificate["observed"]) for finding in ultraservers) == [
        (block_of(GB200_GROUP, 0), 19),
        (block_of(GB200_GROUP, 18), 17),
    ]


def test_a_missing_file_makes_its_checks_report_they_did_not_run(tmp_path):
    folder = write_folder(P5, tmp_path / "folder")
    (folder / "ec2-describe-instance-topology.json").unlink()
    report = conform(validate(str(EXAMPLES / P5.blueprint)), read_evidence(folder))
    not_run = sorted(finding.certificate["check"] for finding in report.findings if finding.code == "conform.not-checked")
    assert not_run == ["the placement", "the topology labels"]
    assert not report.ok and all("ec2-describe-instance-topology.json is missing" in finding.message for finding in report.findings)


def test_an_unreadable_file_is_a_finding_not_a_traceback(tmp_path):
    folder = write_folder(P5, tmp_path / "folder")
    (folder / "kubectl-get-nodes.json").write_text('{"items": [', encoding="utf-8")
    report = conform(validate(str(EXAMPLES / P5.blueprint)), read_evidence(folder))
    assert {finding.code for finding in report.findings} == {"conform.not-checked"}
    assert all("kubectl-get-nodes.json is not JSON" in finding.message for finding in report.findings)
    assert sorted(finding.certificate["check"] for finding in report.findings) == [
        "Kueue's Topologies",
        "the DaemonSets",
        "the node count",
        "the node gates",
        "the nodes' allocatable devices",
        "the topology labels",
    ]


def test_an_empty_folder_passes_no_check(tmp_path):
    report = conform(validate(str(EXAMPLES / P5.blueprint)), read_evidence(tmp_path))
    assert {finding.code for finding in report.findings} == {"conform.not-checked"}
    # Every check but the UltraServer one, which the p5 pool doesn't need.
    assert len(report.findings) == 12


def test_the_json_of_one_folder_is_byte_identical_twice(tmp_path, capsys):
    folder = write_folder(P5, tmp_path / "folder", drop_node)
    outputs = []
    for _ in range(2):
        assert main(["conform", str(EXAMPLES / P5.blueprint), "--from", str(folder), "--json"]) == 1
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])["summary"] == {"error": 1, "warning": 0, "info": 0}


def test_the_markdown_names_the_verdict_and_each_finding(tmp_path, capsys):
    folder = write_folder(P5, tmp_path / "folder", outside_block)
    assert main(["conform", str(EXAMPLES / P5.blueprint), "--from", str(folder), "--markdown"]) == 1
    text = capsys.readouterr().out
    assert text.startswith("### railyard conform: `p5-train-prod` differs\n")
    assert "| error | `conform.capacity` |" in text


def test_a_conforming_folder_exits_zero(tmp_path, capsys):
    assert main(["conform", str(EXAMPLES / TRN2U.blueprint), "--from", str(write_folder(TRN2U, tmp_path))]) == 0
    assert "ok: the cluster conforms" in capsys.readouterr().out


def test_the_node_monitoring_agent_beside_the_operators_host_engine_is_an_error(tmp_path):
    def host_engine(documents: Documents) -> None:
        engine = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "nvidia-dcgm", "namespace": "gpu-operator"}}
        documents["kubectl-get-daemonsets.json"]["items"].append(engine)

    report = judged(P5, tmp_path, host_engine)
    assert errors(report) == {("conform.nma-dcgm-conflict", "kubernetes.addons.node_monitoring_agent")}


def test_a_node_short_of_gpus_is_named_with_the_catalog_count(tmp_path):
    def seven(documents: Documents) -> None:
        find_node(documents, node_name(P5_GROUP, 2))["status"]["allocatable"]["nvidia.com/gpu"] = "7"

    (finding,) = judged(P5, tmp_path, seven).findings
    assert (finding.code, finding.certificate["expected"], finding.certificate["observed"]) == ("conform.allocatable", 8, "7")


def test_a_node_group_whose_taint_was_removed_is_drift(tmp_path):
    def untainted(documents: Documents) -> None:
        documents["eks-describe-nodegroup-train-use1a.json"]["nodegroup"]["taints"] = []

    (finding,) = judged(P5, tmp_path, untainted).findings
    assert (finding.code, finding.certificate["field"], finding.certificate["observed"]) == ("conform.nodegroup", "taints", [])


def test_a_kueue_level_missing_on_a_node_is_named(tmp_path):
    def unlabelled(documents: Documents) -> None:
        del find_node(documents, node_name(TRN_GROUP, 1))["metadata"]["labels"]["neuron.amazonaws.com/ultraserver-server-id-2"]

    (finding,) = judged(TRN2U, tmp_path, unlabelled).findings
    assert (finding.code, finding.certificate["node"], finding.certificate["missing"]) == (
        "conform.kueue",
        node_name(TRN_GROUP, 1),
        ["neuron.amazonaws.com/ultraserver-server-id-2"],
    )


def test_a_file_system_not_available_and_a_pending_claim_are_errors(tmp_path):
    def broken(documents: Documents) -> None:
        documents["fsx-describe-file-systems.json"]["FileSystems"][0]["Lifecycle"] = "MISCONFIGURED"
        documents["kubectl-get-persistentvolumeclaims.json"]["items"][0]["status"]["phase"] = "Pending"
        documents["kubectl-get-persistentvolumes.json"]["items"][0]["status"]["phase"] = "Failed"

    assert {finding.message for finding in judged(P5, tmp_path, broken).findings} == {
        "FSx fs-0123456789abcdef0 of tier 'lustre' is MISCONFIGURED, not AVAILABLE",
        "claim default/lustre is Pending, not Bound: pods that mount it stay Pending",
        "volume fsx-lustre is Failed: its claim can't bind to it",
    }


def test_an_incomplete_ultraserver_is_an_error(tmp_path):
    def moved(documents: Documents) -> None:
        _placed(documents, instance_id(TRN_GROUP, 7))["CapacityBlockId"] = block_of(TRN_GROUP, 0)

    report = judged(TRN2U, tmp_path, moved)
    assert sorted((finding.certificate["capacity_block"], finding.certificate["observed"]) for finding in report.findings) == [
        (block_of(TRN_GROUP, 0), 5),
        (block_of(TRN_GROUP, 4), 3),
    ]


def _tree_hops(paths: dict[str, tuple[str, ...]]) -> int:
    """The most switches between two instances of a tree built from their network nodes (top first), by networkx."""
    graph = nx.Graph()
    for instance, nodes in paths.items():
        chain = ["root", *nodes, instance]
        graph.add_edges_from(zip(chain, chain[1:], strict=False))
    names = sorted(paths)
    # A path's switches are its vertices less the two instances (and the root above layer 1 counts as one more switch).
    return max(len(nx.shortest_path(graph, a, b)) - 2 for index, a in enumerate(names) for b in names[index + 1 :])


@pytest.mark.parametrize(
    "paths",
    [
        {"i-1": ("a", "b", "c"), "i-2": ("a", "b", "c")},
        {"i-1": ("a", "b", "c"), "i-2": ("a", "b", "d")},
        {"i-1": ("a", "b", "c"), "i-2": ("a", "e", "f"), "i-3": ("a", "b", "d")},
        {"i-1": ("a", "b", "c"), "i-2": ("x", "y", "z")},
        {"i-1": ("a", "b", "c", "d"), "i-2": ("a", "b", "e", "f")},
    ],
)
def test_worst_hops_equals_the_longest_path_in_the_observed_tree(paths):
    hops, _ = worst_hops([Placed(instance, nodes, None) for instance, nodes in paths.items()])
    assert hops == _tree_hops(paths)


def test_the_daemonsets_conform_looks_for_are_named_as_the_compiler_installs_them():
    from blueprints.catalog.pins import load_pins
    from components.kubernetes import metrics, node_gates
    from components.kubernetes.device_plugins import _RELEASES
    from railyard.conform import expected

    pins = load_pins()
    assert {kind: pins.chart(pin).chart.rsplit("/", 1)[-1] for kind, pin in expected.PLUGIN_PINS.items()} == {
        kind: release[0] for kind, release in _RELEASES.items() if kind != "gpu_operator"
    }
    assert (expected.NEURON_MONITOR, pins.chart("dcgm_exporter").chart) == (metrics.NEURON_MONITOR, "dcgm-exporter")
    assert expected.GATE_KEEPER == node_gates.NAME and node_gates.NAMESPACE == "kube-system"


def _nodegroup(documents: Documents) -> dict[str, Any]:
    return documents["eks-describe-nodegroup-train-use1a.json"]["nodegroup"]


def _daemonsets(documents: Documents) -> list[dict[str, Any]]:
    return documents["kubectl-get-daemonsets.json"]["items"]


# (the change, the one finding's code, severity, and the certificate fields it must carry)
MORE_DRIFTS: dict[str, tuple[Callable[[Documents], None], str, str, dict[str, Any]]] = {
    "an instance of another type": (
        lambda d: find_instance(d, instance_id(P5_GROUP, 4)).update(InstanceType="p5e.48xlarge"),
        "conform.instance-type",
        "error",
        {"instance": instance_id(P5_GROUP, 4)},
    ),
    "an On-Demand instance in a Capacity Block pool": (
        lambda d: find_instance(d, instance_id(P5_GROUP, 6)).pop("InstanceLifecycle"),
        "conform.market",
        "error",
        {"expected": "capacity-block", "observed": None},
    ),
    "the cluster on an older Kubernetes": (
        lambda d: d["eks-describe-cluster.json"]["cluster"].update(version="1.34"),
        "conform.cluster",
        "error",
        {"expected": "1.35", "observed": "1.34"},
    ),
    "node repair turned off by hand": (
        lambda d: _nodegroup(d).update(nodeRepairConfig={"enabled": False}),
        "conform.nodegroup",
        "error",
        {"field": "nodeRepairConfig.enabled", "expected": True, "observed": False},
    ),
    "a node group label removed": (
        lambda d: _nodegroup(d)["labels"].pop("railyard.dev/role"),
        "conform.nodegroup",
        "error",
        {"field": "labels"},
    ),
    "the EFA device plugin not installed": (
        lambda d: d["kubectl-get-daemonsets.json"].update(
            items=[item for item in _daemonsets(d) if item["metadata"]["name"] != "aws-efa-k8s-device-plugin"]
        ),
        "conform.daemonset",
        "error",
        {"daemonset": "efa device plugin", "pools": ["train"]},
    ),
    "a Kueue Topology missing": (
        lambda d: d["kubectl-get-topologies.json"].update(items=[]),
        "conform.kueue",
        "error",
        {"observed": []},
    ),
    "a node group scaled past the design": (
        lambda d: _scale_past(d),
        "conform.node-count",
        "warning",
        {"expected": 64, "observed": 65},
    ),
    "a reservation not active yet": (
        lambda d: d["ec2-describe-capacity-reservations.json"]["CapacityReservations"][0].update(State="scheduled"),
        "conform.node-count",
        "info",
        {},
    ),
}


def _scale_past(documents: Documents) -> None:
    """A 65th Ready node in the p5 group, with every DaemonSet's pod Ready on it."""
    extra = json.loads(json.dumps(find_node(documents, node_name(P5_GROUP, 0))))
    extra["metadata"]["name"] = "ip-10-10-9-9.ec2.internal"
    extra["spec"]["providerID"] = "aws:///us-east-1a/i-0a0000000000000ff"
    documents["kubectl-get-nodes.json"]["items"].append(extra)
    pods = documents["kubectl-get-pods.json"]["items"]
    for pod in [pod for pod in pods if pod["spec"]["nodeName"] == node_name(P5_GROUP, 0)]:
        pods.append({**pod, "spec": {"nodeName": extra["metadata"]["name"]}})


@pytest.mark.parametrize("case", sorted(MORE_DRIFTS))
def test_each_other_drift_is_one_finding_with_its_evidence(case, tmp_path):
    change, code, severity, certificate = MORE_DRIFTS[case]
    report = judged(P5, tmp_path, change)
    assert [(finding.code, finding.severity) for finding in report.findings] == [(code, severity)]
    (finding,) = report.findings
    assert {key: finding.certificate[key] for key in certificate} == certificate


def test_with_the_gpu_operator_its_own_daemonsets_are_the_ones_looked_for(tmp_path):
    from tests.yaml_text import edited_copy

    blueprint = edited_copy(EXAMPLES / P5.blueprint, tmp_path, ("    - kind: nvidia_device_plugin", "    - kind: gpu_operator"))
    operated = dataclasses.replace(
        P5,
        daemonsets=(
            ("gpu-operator", "nvidia-device-plugin-daemonset", None),
            ("gpu-operator", "nvidia-dcgm-exporter", None),
            *(entry for entry in P5.daemonsets if entry[0] not in ("nvidia-device-plugin", "dcgm-exporter")),
        ),
    )
    validation = validate(str(blueprint))
    assert conform(validation, read_evidence(write_folder(operated, tmp_path / "conforming"))).findings == []
    unoperated = conform(validation, read_evidence(write_folder(P5, tmp_path / "plain")))
    assert sorted(finding.certificate["daemonset"] for finding in unoperated.findings) == [
        "DCGM exporter (GPU Operator)",
        "NVIDIA device plugin (GPU Operator)",
    ]


def test_karpenter_nodes_are_tied_to_their_pool_by_zone_and_their_groups_have_no_size_to_miss():
    from blueprints.catalog import load_catalog
    from railyard.conform.base import Judge
    from railyard.conform.expected import expect
    from railyard.conform.nodes import check_counts
    from railyard.online.evidence import Evidence
    from topology.cluster import plan_cluster

    blueprint = validate(str(EXAMPLES / "ai-on-eks.yaml")).blueprint
    catalog = load_catalog()
    node = {
        "metadata": {"name": "ip-10-0-1-1", "labels": {"railyard.dev/pool": "gpu-inference", "topology.kubernetes.io/zone": "us-west-2b"}},
        "spec": {"providerID": "aws:///us-west-2b/i-0c0000000000000001"},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }
    judge = Judge(expect(blueprint, catalog, plan_cluster(blueprint, catalog)), Evidence("folder", {"kubectl-get-nodes.json": {"items": [node]}}))
    (group,) = [group for group in judge.expected.groups if [found.name for found in judge.ready_nodes(group)] == ["ip-10-0-1-1"]]
    assert (group.name, group.managed) == ("gpu-inference-usw2b-serve", False)
    assert [(finding.code, finding.certificate["node_group"]) for finding in check_counts(judge)] == [("conform.node-count", "train-usw2a-train")]


def test_a_timestamp_botocore_parsed_is_written_as_the_aws_cli_prints_it(tmp_path):
    from datetime import UTC, datetime

    from railyard.online.evidence import dumps

    assert dumps({"LaunchTime": datetime(2026, 12, 1, 11, 30, tzinfo=UTC)}) == '{\n    "LaunchTime": "2026-12-01T11:30:00+00:00"\n}\n'


def test_a_blueprint_with_errors_is_reported_as_it_is_and_nothing_is_compared(tmp_path, capsys):
    from tests.yaml_text import edited_copy

    broken = edited_copy(EXAMPLES / P5.blueprint, tmp_path, ("    instance_type: p5.48xlarge\n    role", "    instance_type: p5.96xlarge\n    role"))
    assert main(["conform", str(broken), "--from", str(write_folder(P5, tmp_path / "folder")), "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert (document["cluster"], document["checks"]) == (None, [])
    assert {finding["code"] for finding in document["findings"] if finding["severity"] == "error"} == {
        "capacity.type-mismatch",
        "pool.unknown-instance-type",
    }


def test_a_file_in_another_shape_is_a_finding_not_a_traceback(tmp_path):
    def mangled(documents: Documents) -> None:
        documents["kubectl-get-nodes.json"]["items"] = ["not a node"]
        documents["ec2-describe-instance-topology.json"]["Instances"] = [{"InstanceType": "p5.48xlarge"}]

    # Written past the botocore check write_folder makes: a hand-made file can be anything.
    folder = write_folder(P5, tmp_path / "mangled")
    for name, document in documents_of(mangled).items():
        (folder / name).write_text(json.dumps(document), encoding="utf-8")
    report = conform(validate(str(EXAMPLES / P5.blueprint)), read_evidence(folder))
    assert {finding.code for finding in report.findings} == {"conform.not-checked"}
    # The instance checks too: the system group's instances are tied to a group through their nodes.
    assert sorted(finding.certificate["check"] for finding in report.findings) == [
        "allocatable",
        "daemonsets",
        "efa-interfaces",
        "instances",
        "kueue",
        "node-count",
        "node-gates",
        "placement",
        "topology-labels",
    ]


def documents_of(change: Callable[[Documents], None]) -> Documents:
    from tests.conform.folders import documents

    found = documents(P5)
    change(found)
    return found


def test_a_node_still_behind_its_lnet_gate_is_named(tmp_path):
    def held(documents: Documents) -> None:
        find_node(documents, node_name(P5_GROUP, 12))["spec"]["taints"].append(
            {"key": "railyard.dev/lnet", "value": "pending", "effect": "NoSchedule"}
        )

    (finding,) = judged(P5, tmp_path, held).findings
    assert (finding.code, finding.certificate["node"], finding.certificate["gates"]) == (
        "conform.gate-held",
        node_name(P5_GROUP, 12),
        ["railyard.dev/lnet"],
    )
