"""railyard/conform/cluster.py's verdicts on a few objects built in memory against p5's plan: the EKS cluster's status and
version, each field of a managed node group drifted (and a Karpenter group, which has none), each DaemonSet the design
places absent, short of a Ready node, on a node outside its pools (and the node monitoring agent, which may be), the
agent beside the GPU Operator's host engine, a node held behind its gate, each Kueue object absent or other, and a
file system absent, not AVAILABLE or existing, a volume Failed and a claim not Bound.

Each finding is compared whole (code, severity, path, message, hint and certificate), or by its message where a test
holds only which finding it is."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from railyard.conform import cluster
from railyard.online.evidence import CLAIMS, CLUSTER, DAEMONSETS, FILE_SYSTEMS, KUEUE_FLAVORS, KUEUE_TOPOLOGIES, NODES, PODS, VOLUMES, nodegroup_file
from tests.conform.judges import finding_json, judge, node, not_checked_json, planned, resized, with_groups

P5 = planned("p5-capacity-block.yaml")
TRAIN = resized(P5.groups[0], desired_size=2, max_size=2)
WHERE = "pool 'train' (node group train-use1a, us-east-1a)"


def _json(findings) -> list[dict[str, Any]]:
    return [finding.as_json() for finding in findings]


def _cluster(answer: dict[str, Any] | None) -> list[dict[str, Any]]:
    documents = {} if answer is None else {CLUSTER: answer}
    return _json(cluster.check_cluster(judge(with_groups(P5, TRAIN), documents)))


def test_an_active_cluster_on_the_blueprints_version_is_nofinding_json():
    assert _cluster({"cluster": {"status": "ACTIVE", "version": "1.35"}}) == []


def test_a_cluster_not_active_and_on_another_version_is_two_errors():
    assert _cluster({"cluster": {"status": "UPDATING", "version": "1.34"}}) == [
        finding_json("conform.cluster", "error", "kubernetes.version", "cluster p5-train-prod is UPDATING, not ACTIVE", observed="UPDATING"),
        finding_json(
            "conform.cluster",
            "error",
            "kubernetes.version",
            "cluster p5-train-prod runs Kubernetes 1.34, the blueprint says 1.35",
            "finish or start the upgrade with `pulumi up`",
            expected="1.35",
            observed="1.34",
        ),
    ]


def test_an_answer_without_its_cluster_is_neither_active_nor_on_a_version():
    assert [finding["message"] for finding in _cluster({})] == [
        "cluster p5-train-prod is None, not ACTIVE",
        "cluster p5-train-prod runs Kubernetes None, the blueprint says 1.35",
    ]


def test_no_cluster_file_is_not_checked_at_the_version():
    assert _cluster(None) == [not_checked_json("the EKS cluster", "kubernetes.version", CLUSTER)]


def _nodegroup(group, **changes: Any) -> dict[str, Any]:
    """DescribeNodegroup's answer for `group` as compiled, with `changes` made."""
    answer = {
        "status": "ACTIVE",
        "labels": dict(group.labels),
        "taints": [{"key": taint.key, "value": taint.value, "effect": taint.eks_effect} for taint in group.taints],
        "capacityType": group.capacity_type,
        "nodeRepairConfig": {"enabled": True},
        "scalingConfig": {"minSize": 0, "maxSize": group.max_size, "desiredSize": group.desired_size},
        "version": "1.35",
    }
    answer.update(changes)
    return {"nodegroup": answer}


def _node_groups(expected, documents) -> list[dict[str, Any]]:
    return _json(cluster.check_node_groups(judge(expected, documents)))


def test_a_node_group_as_compiled_is_nofinding_json():
    assert _node_groups(with_groups(P5, TRAIN), {nodegroup_file(TRAIN.name): _nodegroup(TRAIN)}) == []


def test_each_drifted_field_of_a_node_group_is_its_own_error():
    labels = {**TRAIN.labels, "railyard.dev/role": "serving"}
    answer = _nodegroup(
        TRAIN,
        status="DEGRADED",
        labels=labels,
        taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}],
        capacityType="ON_DEMAND",
        nodeRepairConfig={"enabled": False},
        scalingConfig={"maxSize": 3},
        version="1.34",
    )
    found = _node_groups(with_groups(P5, TRAIN), {nodegroup_file(TRAIN.name): answer})
    taints = [("nvidia.com/gpu", "true", "NO_SCHEDULE"), ("railyard.dev/lnet", "pending", "NO_SCHEDULE")]
    assert [(item["certificate"]["field"], item["certificate"]["expected"], item["certificate"]["observed"]) for item in found] == [
        ("status", "ACTIVE", "DEGRADED"),
        ("labels", dict(TRAIN.labels), labels),
        ("taints", taints, [("nvidia.com/gpu", "true", "NO_SCHEDULE")]),
        ("capacityType", "CAPACITY_BLOCK", "ON_DEMAND"),
        ("nodeRepairConfig.enabled", True, False),
        ("scalingConfig.maxSize", 2, 3),
        ("version", "1.35", "1.34"),
    ]
    assert found[0] == finding_json(
        "conform.nodegroup",
        "error",
        "pools[0]",
        f"node group train-use1a of {WHERE}: status is 'DEGRADED', compiled as 'ACTIVE'",
        "the node group drifted from the program: run `pulumi up` (or `pulumi refresh` to see who changed it)",
        pool="train",
        node_group="train-use1a",
        field="status",
        expected="ACTIVE",
        observed="DEGRADED",
    )
    assert found[5]["message"] == f"node group train-use1a of {WHERE}: scalingConfig.maxSize is 3, compiled as 2"


def test_an_answer_without_its_fields_reads_as_none_and_node_repair_off():
    found = _node_groups(with_groups(P5, TRAIN), {nodegroup_file(TRAIN.name): {}})
    assert [(item["certificate"]["field"], item["certificate"]["observed"]) for item in found] == [
        ("status", None),
        ("labels", {}),
        ("taints", []),
        ("capacityType", None),
        ("nodeRepairConfig.enabled", False),
        ("scalingConfig.maxSize", None),
        ("version", None),
    ]


def test_a_group_on_a_custom_ami_is_not_held_to_a_version():
    group = resized(TRAIN, kubernetes_version=None)
    assert _node_groups(with_groups(P5, group), {nodegroup_file(group.name): _nodegroup(group, version="1.30")}) == []


def test_a_karpenter_group_has_no_node_group_and_a_missing_answer_does_not_stop_the_next_group():
    karpenter = resized(TRAIN, name="burst-use1a", provisioner="karpenter")
    missing = resized(TRAIN, name="gone-use1a")
    expected = with_groups(P5, karpenter, missing, TRAIN)
    found = _node_groups(expected, {nodegroup_file(TRAIN.name): _nodegroup(TRAIN, status="CREATING")})
    assert found[0] == not_checked_json("node group gone-use1a", "pools[0]", nodegroup_file("gone-use1a"))
    assert [item["message"] for item in found[1:]] == [f"node group train-use1a of {WHERE}: status is 'CREATING', compiled as 'ACTIVE'"]


def _node_repair_off():
    blueprint = P5.blueprint
    kubernetes = blueprint.kubernetes.model_copy(update={"node_auto_repair": False})
    return dataclasses.replace(with_groups(P5, TRAIN), blueprint=blueprint.model_copy(update={"kubernetes": kubernetes}))


def test_node_repair_left_off_is_held_off():
    expected = _node_repair_off()
    assert _node_groups(expected, {nodegroup_file(TRAIN.name): _nodegroup(TRAIN, nodeRepairConfig={"enabled": False})}) == []
    (found,) = _node_groups(expected, {nodegroup_file(TRAIN.name): _nodegroup(TRAIN)})
    assert found["message"] == f"node group train-use1a of {WHERE}: nodeRepairConfig.enabled is True, compiled as False"


# The DaemonSets p5's plan places on pool train: (namespace, name, Helm release).
PLACED = (
    ("nvidia-device-plugin", "nvidia-device-plugin", "nvidia-device-plugin"),
    ("kube-system", "aws-efa-k8s-device-plugin", "aws-efa-k8s-device-plugin"),
    ("dcgm-exporter", "dcgm-exporter", "dcgm-exporter"),
    ("kube-system", "railyard-node-gates", None),
    ("kube-system", "fsx-csi-node", None),
    ("kube-system", "eks-node-monitoring-agent", None),
)


def _daemonset(namespace: str, name: str, release: str | None) -> dict[str, Any]:
    annotations = {"meta.helm.sh/release-name": release} if release else {}
    return {"metadata": {"namespace": namespace, "name": name, "annotations": annotations}}


def _pod(namespace: str, owner: str, on: str, ready: bool = True) -> dict[str, Any]:
    return {
        "metadata": {"namespace": namespace, "name": f"{owner}-{on}", "ownerReferences": [{"kind": "DaemonSet", "name": owner}]},
        "spec": {"nodeName": on},
        "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }


def _daemonsets(placed=PLACED, pods: list[dict[str, Any]] | None = None, nodes: list[dict[str, Any]] | None = None, expected=None):
    listed = nodes if nodes is not None else [node("n-0", "i-0", TRAIN), node("n-1", "i-1", TRAIN)]
    names = [item["metadata"]["name"] for item in listed if item["status"]["conditions"][0]["status"] == "True"]
    pods = pods if pods is not None else [_pod(namespace, name, on) for namespace, name, _ in placed for on in names]
    documents = {
        NODES: {"items": listed},
        DAEMONSETS: {"items": [_daemonset(*item) for item in placed]},
        PODS: {"items": pods},
    }
    return _json(cluster.check_daemonsets(judge(expected or with_groups(P5, TRAIN), documents)))


def test_every_daemonset_ready_on_every_node_of_its_pool_is_nofinding_json():
    assert _daemonsets() == []


def test_a_node_not_ready_needs_no_pod():
    nodes = [node("n-0", "i-0", TRAIN), node("n-1", "i-1", TRAIN, ready=False)]
    assert _daemonsets(nodes=nodes) == []


def test_a_daemonset_absent_from_its_namespace_is_an_error_at_its_pool():
    placed = tuple(item for item in PLACED if item[1] != "nvidia-device-plugin") + (("kube-system", "nvidia-device-plugin", "nvidia-device-plugin"),)
    assert _daemonsets(placed) == [
        finding_json(
            "conform.daemonset",
            "error",
            "pools[0]",
            "the nvidia device plugin DaemonSet is not in namespace nvidia-device-plugin: pool(s) 'train' run without it",
            "run `pulumi up` on the Kubernetes layer's stack",
            daemonset="nvidia device plugin",
            pools=["train"],
        )
    ]


def test_a_daemonset_of_another_release_is_not_the_one_placed():
    placed = tuple(item if item[1] != "dcgm-exporter" else ("dcgm-exporter", "dcgm-exporter", "someone-elses") for item in PLACED)
    (found,) = _daemonsets(placed)
    assert found["message"] == "the DCGM exporter DaemonSet is not in namespace dcgm-exporter: pool(s) 'train' run without it"


def test_a_daemonset_without_a_ready_pod_on_a_node_names_the_node():
    pods = [
        _pod(namespace, name, on, ready=not (name == "aws-efa-k8s-device-plugin" and on == "n-1"))
        for namespace, name, _ in PLACED
        for on in ("n-0", "n-1")
    ]
    assert _daemonsets(pods=pods) == [
        finding_json(
            "conform.daemonset",
            "error",
            "pools[0]",
            "DaemonSet kube-system/aws-efa-k8s-device-plugin (efa device plugin) has no Ready pod on 1 node(s) of pool 'train': n-1",
            "see the pod's events on those nodes (`kubectl describe pod`); its devices or metrics are missing there",
            daemonset="kube-system/aws-efa-k8s-device-plugin",
            pool="train",
            nodes=["n-1"],
        )
    ]


def test_a_daemonset_on_a_node_outside_its_pools_is_a_warning_but_the_node_monitoring_agent_may_run_anywhere():
    nodes = [node("n-0", "i-0", TRAIN), node("n-1", "i-1", TRAIN), node("sys-0", "i-9", None, labels={"eks.amazonaws.com/nodegroup": "system"})]
    pods = [_pod(namespace, name, on) for namespace, name, _ in PLACED for on in ("n-0", "n-1")]
    pods += [_pod("dcgm-exporter", "dcgm-exporter", "sys-0"), _pod("kube-system", "eks-node-monitoring-agent", "sys-0")]
    pods += [_pod("kube-system", "fsx-csi-node", "gone-node")]  # a node the list no longer has
    assert _daemonsets(pods=pods, nodes=nodes) == [
        finding_json(
            "conform.daemonset",
            "warning",
            "pools[0]",
            "DaemonSet dcgm-exporter/dcgm-exporter (DCGM exporter) runs on node(s) outside pool(s) 'train': sys-0",
            "its node affinity is wider than the design's: run `pulumi up` on the Kubernetes layer",
            daemonset="dcgm-exporter/dcgm-exporter",
            nodes=["sys-0"],
        )
    ]


def test_a_daemonset_serving_two_pools_is_placed_at_the_kubernetes_layer_and_names_the_pool_short_of_it():
    other = resized(TRAIN, name="other-use1a", pool="other")
    nodes = [node("n-0", "i-0", TRAIN), node("o-0", "i-5", other)]
    pods = [_pod(namespace, name, "n-0") for namespace, name, _ in PLACED]
    found = _daemonsets(pods=pods, nodes=nodes, expected=with_groups(P5, TRAIN, other))
    assert found == [
        finding_json(
            "conform.daemonset",
            "error",
            "pools",
            "DaemonSet kube-system/eks-node-monitoring-agent (EKS node monitoring agent) has no Ready pod on 1 node(s) of pool 'other': o-0",
            "see the pod's events on those nodes (`kubectl describe pod`); its devices or metrics are missing there",
            daemonset="kube-system/eks-node-monitoring-agent",
            pool="other",
            nodes=["o-0"],
        )
    ]
    absent = _daemonsets(placed=PLACED[:5], nodes=nodes, pods=pods, expected=with_groups(P5, TRAIN, other))
    assert absent[-1]["path"] == "kubernetes"
    assert absent[-1]["message"] == (
        "the EKS node monitoring agent DaemonSet is not in namespace kube-system: pool(s) 'other', 'train' run without it"
    )


def test_the_node_monitoring_agent_beside_the_gpu_operators_host_engine_is_an_error():
    placed = (*PLACED, ("gpu-operator", "nvidia-dcgm", None))
    assert _daemonsets(placed)[-1] == finding_json(
        "conform.nma-dcgm-conflict",
        "error",
        "kubernetes.addons.node_monitoring_agent",
        "the EKS node monitoring agent (kube-system/eks-node-monitoring-agent) runs beside the GPU Operator's DCGM host engine "
        "(gpu-operator/nvidia-dcgm): the agent can't reach DCGM, reports AcceleratedHardwareReady=False, and node auto repair "
        "replaces healthy nodes",
        "turn the GPU Operator's standalone DCGM off (`dcgm.enabled: false`) so the exporter uses the agent's, or turn the agent off",
        daemonsets=["kube-system/eks-node-monitoring-agent", "gpu-operator/nvidia-dcgm"],
    )


def test_the_host_engine_without_the_agent_is_no_conflict():
    placed = (*PLACED[:5], ("gpu-operator", "nvidia-dcgm", None))
    found = _daemonsets(placed)
    assert [item["code"] for item in found] == ["conform.daemonset"]


def test_daemonsets_without_their_files_say_each_is_missing():
    found = _json(cluster.check_daemonsets(judge(with_groups(P5, TRAIN), {})))
    assert found == [not_checked_json("the DaemonSets", "kubernetes", NODES, DAEMONSETS, PODS)]


def _gates(group, nodes: list[dict[str, Any]] | None):
    documents = {} if nodes is None else {NODES: {"items": nodes}}
    return _json(cluster.check_gates(judge(with_groups(P5, group), documents)))


def test_a_ready_node_still_behind_its_gate_is_an_error_and_others_are_not():
    nodes = [
        node("n-0", "i-0", TRAIN, taints=("nvidia.com/gpu", "railyard.dev/lnet")),
        node("n-1", "i-1", TRAIN, taints=("nvidia.com/gpu",)),
        node("n-2", "i-2", TRAIN, ready=False, taints=("railyard.dev/lnet",)),
    ]
    assert _gates(TRAIN, nodes) == [
        finding_json(
            "conform.gate-held",
            "error",
            "pools[0]",
            f"node n-0 (i-0) of {WHERE} is still held behind railyard.dev/lnet: no job can run on it",
            "read the gate's file on the node (/run/railyard/gates/) and the railyard-node-gates pod's log there",
            node="n-0",
            gates=["railyard.dev/lnet"],
        )
    ]


def test_gates_need_the_node_list_only_where_a_pool_is_gated():
    assert _gates(TRAIN, None) == [not_checked_json("the node gates", "pools", NODES)]
    ungated = resized(TRAIN, lustre_efa_interfaces=0)
    assert ungated.gates == ()
    assert _gates(ungated, None) == []


KUEUE = P5.plan.kubernetes.kueue
FLAVOR = KUEUE.flavors[0]
LEVELS = list(FLAVOR.topology.levels)
KUEUE_PATH = "kubernetes.topology_aware_scheduling"


def _kueue(flavors: list[str], levels: list[str] | None, nodes: list[dict[str, Any]], expected=None):
    topologies = (
        [] if levels is None else [{"metadata": {"name": FLAVOR.topology.name}, "spec": {"levels": [{"nodeLabel": level} for level in levels]}}]
    )
    documents = {
        NODES: {"items": nodes},
        KUEUE_TOPOLOGIES: {"items": topologies},
        KUEUE_FLAVORS: {"items": [{"metadata": {"name": name}} for name in flavors]},
    }
    return _json(cluster.check_kueue(judge(expected or with_groups(P5, TRAIN), documents)))


LABELLED = {level: "x" for level in LEVELS}


def test_kueues_objects_as_planned_and_every_level_labelled_are_nofinding_json():
    assert (FLAVOR.topology.name, LEVELS[-1]) == ("aws-network-3", "kubernetes.io/hostname")
    assert _kueue([FLAVOR.name], LEVELS, [node("n-0", "i-0", TRAIN, labels=LABELLED), node("n-1", "i-1", TRAIN, ready=False)]) == []


def test_an_absent_flavor_and_topology_are_each_an_error_at_the_pool():
    assert _kueue(["someone-elses"], None, []) == [
        finding_json(
            "conform.kueue",
            "error",
            "pools[0]",
            f"ResourceFlavor {FLAVOR.name} of pool 'train' is not in the cluster",
            "run `pulumi up` on the Kubernetes layer's stack",
            flavor=FLAVOR.name,
        ),
        finding_json(
            "conform.kueue",
            "error",
            "pools[0]",
            f"Topology aws-network-3 of pool 'train' has levels none (absent), the plan {LEVELS}",
            "run `pulumi up` on the Kubernetes layer's stack",
            expected=LEVELS,
            observed=[],
        ),
    ]


def test_a_topology_with_other_levels_and_a_node_lacking_a_level_label_are_errors():
    nodes = [node("n-0", "i-0", TRAIN, labels={LEVELS[0]: "x", LEVELS[2]: "y"}), node("n-1", "i-1", TRAIN, labels=LABELLED)]
    found = _kueue([FLAVOR.name], LEVELS[:2], nodes)
    assert [item["message"] for item in found] == [
        f"Topology aws-network-3 of pool 'train' has levels {LEVELS[:2]}, the plan {LEVELS}",
        f"node n-0 of {WHERE} lacks Topology aws-network-3's level label(s) {LEVELS[1]}, {LEVELS[3]}: Kueue won't place topology-aware jobs on it",
    ]
    assert found[1] == finding_json(
        "conform.kueue",
        "error",
        "pools[0]",
        found[1]["message"],
        "label the node (or replace it) so every level is set",
        node="n-0",
        missing=[LEVELS[1], LEVELS[3]],
    )


def test_kueue_without_its_files_is_not_checked_and_without_kueue_is_not_asked():
    assert _json(cluster.check_kueue(judge(with_groups(P5, TRAIN), {}))) == [
        not_checked_json("Kueue's Topologies", KUEUE_PATH, NODES, KUEUE_TOPOLOGIES, KUEUE_FLAVORS)
    ]
    without = dataclasses.replace(P5.plan, node_groups=(TRAIN,), kubernetes=dataclasses.replace(P5.plan.kubernetes, kueue=None))
    assert cluster.check_kueue(judge(dataclasses.replace(P5, plan=without), {})) == []


def test_only_the_flavors_pools_nodes_need_its_labels():
    other = resized(TRAIN, name="other-use1a", pool="other")
    nodes = [node("n-0", "i-0", TRAIN, labels=LABELLED), node("o-0", "i-5", other)]
    assert _kueue([FLAVOR.name], LEVELS, nodes, expected=with_groups(P5, TRAIN, other)) == []


TAGS = [{"Key": "railyard:cluster", "Value": "p5-train-prod"}, {"Key": "Name", "Value": "p5-train-prod-lustre"}]


def _storage(systems: list[dict[str, Any]], volumes=(), claims=(), expected=None):
    documents = {
        FILE_SYSTEMS: {"FileSystems": systems},
        VOLUMES: {"items": list(volumes)},
        CLAIMS: {"items": list(claims)},
    }
    return _json(cluster.check_storage(judge(expected or with_groups(P5, TRAIN), documents)))


def test_the_tiers_file_system_available_and_claims_bound_are_nofinding_json():
    volumes = [{"metadata": {"name": "pv-1"}, "status": {"phase": "Bound"}}]
    claims = [{"metadata": {"namespace": "ml", "name": "data"}, "status": {"phase": "Bound"}}]
    assert _storage([{"FileSystemId": "fs-1", "Lifecycle": "AVAILABLE", "Tags": TAGS}], volumes, claims) == []


@pytest.mark.parametrize(
    "tags",
    [
        [{"Key": "railyard:cluster", "Value": "another-cluster"}, {"Key": "Name", "Value": "p5-train-prod-lustre"}],
        [{"Key": "railyard:cluster", "Value": "p5-train-prod"}, {"Key": "Name", "Value": "p5-train-prod-lustre-old"}],
        [{"Key": "railyard:cluster", "Value": "p5-train-prod"}],
    ],
    ids=["another-clusters", "another-name", "no-name"],
)
def test_a_file_system_not_tagged_for_the_tier_is_not_its_and_the_tier_is_absent(tags):
    assert _storage([{"FileSystemId": "fs-1", "Lifecycle": "AVAILABLE", "Tags": tags}]) == [
        finding_json(
            "conform.fsx",
            "error",
            "storage[0]",
            "no FSx file system of tier 'lustre' is in the account",
            "run `pulumi up`, or check the tier's `existing.id`",
            tier="lustre",
        )
    ]


def test_a_file_system_not_available_is_an_error_naming_its_state():
    assert _storage([{"FileSystemId": "fs-1", "Lifecycle": "CREATING", "Tags": TAGS}]) == [
        finding_json(
            "conform.fsx",
            "error",
            "storage[0]",
            "FSx fs-1 of tier 'lustre' is CREATING, not AVAILABLE",
            "see the file system's FailureDetails in the FSx console",
            tier="lustre",
            observed="CREATING",
        )
    ]


def test_an_existing_file_system_is_found_by_its_id():
    existing = planned("existing-infrastructure.yaml")
    group = existing.groups[0]
    expected = with_groups(existing, group)
    assert _storage([{"FileSystemId": "fs-0a1b2c3d4e5f60718", "Lifecycle": "AVAILABLE"}], expected=expected) == []
    (found,) = _storage([{"FileSystemId": "fs-0ffffffffffffffff", "Lifecycle": "AVAILABLE", "Tags": TAGS}], expected=expected)
    assert found["message"] == "no FSx file system of tier 'lustre' is in the account"


def test_a_failed_volume_and_a_claim_not_bound_are_errors_at_storage():
    volumes = [{"metadata": {"name": "pv-1"}, "status": {"phase": "Failed"}}, {"metadata": {"name": "pv-2"}, "status": {"phase": "Released"}}]
    claims = [
        {"metadata": {"namespace": "ml", "name": "data"}, "status": {"phase": "Pending"}},
        {"metadata": {"namespace": "ml", "name": "ok"}, "status": {"phase": "Bound"}},
    ]
    assert _storage([{"FileSystemId": "fs-1", "Lifecycle": "AVAILABLE", "Tags": TAGS}], volumes, claims) == [
        finding_json(
            "conform.fsx",
            "error",
            "storage",
            "volume pv-1 is Failed: its claim can't bind to it",
            "`kubectl describe pv` names the reason",
            volume="pv-1",
            observed="Failed",
        ),
        finding_json(
            "conform.fsx",
            "error",
            "storage",
            "claim ml/data is Pending, not Bound: pods that mount it stay Pending",
            "`kubectl describe pvc` names the reason",
            claim="ml/data",
            observed="Pending",
        ),
    ]


def test_storage_without_its_files_is_not_checked_and_without_a_lustre_tier_is_not_asked():
    assert _json(cluster.check_storage(judge(with_groups(P5, TRAIN), {}))) == [
        not_checked_json("the file systems", "storage", FILE_SYSTEMS, CLAIMS, VOLUMES)
    ]
    blueprint = P5.blueprint.model_copy(update={"storage": [tier for tier in P5.blueprint.storage if tier.name != "lustre"]})
    assert cluster.check_storage(judge(dataclasses.replace(with_groups(P5, TRAIN), blueprint=blueprint), {})) == []


def test_a_missing_answer_after_a_drifted_group_keeps_the_drift():
    missing = resized(TRAIN, name="gone-use1a")
    found = _node_groups(with_groups(P5, TRAIN, missing), {nodegroup_file(TRAIN.name): _nodegroup(TRAIN, status="CREATING")})
    assert [item["code"] for item in found] == ["conform.nodegroup", "conform.not-checked"]


def test_a_daemonset_with_no_pod_at_all_lacks_every_node():
    pods = [_pod(namespace, name, on) for namespace, name, _ in PLACED if name != "fsx-csi-node" for on in ("n-0", "n-1")]
    (found,) = _daemonsets(pods=pods)
    assert found["message"] == "DaemonSet kube-system/fsx-csi-node (FSx CSI node plugin) has no Ready pod on 2 node(s) of pool 'train': n-0, n-1"


def test_a_daemonset_listed_without_namespace_or_name_is_named_as_listed():
    items = [_daemonset(*item) for item in PLACED]
    del items[2]["metadata"]["name"]  # the DCGM exporter, found by its Helm release
    items.append({"metadata": {"name": "eks-node-monitoring-agent"}})
    items.append(_daemonset("gpu-operator", "nvidia-dcgm", None))
    pods = [_pod(namespace, name, on) for namespace, name, _ in PLACED for on in ("n-0", "n-1")]
    documents = {NODES: {"items": [node("n-0", "i-0", TRAIN), node("n-1", "i-1", TRAIN)]}, DAEMONSETS: {"items": items}, PODS: {"items": pods}}
    found = _json(cluster.check_daemonsets(judge(with_groups(P5, TRAIN), documents)))
    assert [item["message"] for item in found] == [
        "DaemonSet dcgm-exporter/ (DCGM exporter) has no Ready pod on 2 node(s) of pool 'train': n-0, n-1",
        "the EKS node monitoring agent (kube-system/eks-node-monitoring-agent) runs beside the GPU Operator's DCGM host engine "
        "(gpu-operator/nvidia-dcgm): the agent can't reach DCGM, reports AcceleratedHardwareReady=False, and node auto repair "
        "replaces healthy nodes",
    ]
    assert found[1]["certificate"]["daemonsets"] == [
        "kube-system/eks-node-monitoring-agent",
        "/eks-node-monitoring-agent",
        "gpu-operator/nvidia-dcgm",
    ]


def test_a_lustre_tier_after_another_kind_of_tier_is_still_judged_at_its_index():
    tiers = [tier for tier in P5.blueprint.storage if tier.name != "lustre"] + [tier for tier in P5.blueprint.storage if tier.name == "lustre"]
    blueprint = P5.blueprint.model_copy(update={"storage": tiers})
    (found,) = _storage([], expected=dataclasses.replace(with_groups(P5, TRAIN), blueprint=blueprint))
    assert (found["path"], found["message"]) == (f"storage[{len(tiers) - 1}]", "no FSx file system of tier 'lustre' is in the account")
