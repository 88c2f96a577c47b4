"""railyard/conform/nvlink.py's verdicts (as on main, before ComputeDomain status) on a few GB200 nodes built in memory:
a Ready node without its clique label (and one not Ready, which is not judged), an UltraServer carrying two cliques, a
clique over two UltraServers, a node not yet in a block, the DRA driver's kubelet plugin absent or short of a Ready
pod, and a pool whose NVLink stays inside one instance (p5), which asks for none of these files."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from railyard.conform import nvlink
from railyard.online.evidence import COMPUTE_DOMAINS, DAEMONSETS, DEPLOYMENTS, NODES, PODS, TOPOLOGY
from tests.conform.judges import finding_json, judge, node, not_checked_json, planned, resized, topology, with_groups
from topology.cluster.compute_domains import ComputeDomain

GB200 = planned("p6e-gb200-nvl72.yaml")
NVL72 = resized(GB200.groups[0], desired_size=4, max_size=4)
P5 = planned("p5-capacity-block.yaml")
CLIQUE = "nvidia.com/gpu.clique"
BLOCK_A, BLOCK_B = "cr-0aaaaaaaaaaaaaaaa", "cr-0bbbbbbbbbbbbbbbb"
SPLIT_HINT = (
    "compare `nvidia-smi -q` (Fabric: ClusterUUID, CliqueId) on the named nodes; an UltraServer whose fabric reports "
    "several cliques is degraded: open a case with AWS for its Capacity Block"
)


def _cliques(members: list[tuple[str, str | None, str | None, bool]], expected=None):
    """check_cliques on nodes (name, clique label or None, CapacityBlockId or None, Ready) of NVL72, instance i-<name>."""
    nodes = [node(name, f"i-{name}", NVL72, ready=ready, labels={CLIQUE: clique} if clique else {}) for name, clique, _, ready in members]
    placed = [(f"i-{name}", ["nn-1"], block) for name, _, block, _ in members]
    documents = {NODES: {"items": nodes}, TOPOLOGY: topology(*placed)}
    return [finding.as_json() for finding in nvlink.check_cliques(judge(expected or with_groups(GB200, NVL72), documents))]


def test_every_ready_node_in_one_clique_per_ultraserver_is_no_finding():
    assert (
        _cliques([("n-0", "u.1", BLOCK_A, True), ("n-1", "u.1", BLOCK_A, True), ("n-2", "u.2", BLOCK_B, True), ("n-3", None, BLOCK_B, False)]) == []
    )


def test_ready_nodes_without_a_clique_are_named():
    found = _cliques([("n-0", "u.1", BLOCK_A, True), ("n-2", None, BLOCK_A, True), ("n-1", "", BLOCK_A, True)])
    assert found == [
        finding_json(
            "conform.clique-missing",
            "error",
            "pools[0]",
            f"pool 'nvl72': 2 Ready node(s) carry no {CLIQUE} label: n-1, n-2; no job bound to an NVLink domain lands there, "
            "and the DRA driver can't place them in an IMEX domain",
            "see the GPU feature discovery pod on those nodes (the GPU Operator's gpu-feature-discovery) and the node's fabric state "
            "(`nvidia-smi -q`, Fabric); replace a node whose fabric never comes up",
            pool="nvl72",
            nodes=["n-1", "n-2"],
        )
    ]


def test_an_ultraserver_carrying_two_cliques_is_a_split():
    found = _cliques([("n-0", "u.1", BLOCK_A, True), ("n-1", "u.2", BLOCK_A, True), ("n-2", "u.3", BLOCK_B, True)])
    assert found == [
        finding_json(
            "conform.clique-split",
            "error",
            "pools[0]",
            f"pool 'nvl72': the nodes of UltraServer {BLOCK_A} carry 2 NVLink cliques (u.1, u.2), not one: Kueue and the DRA driver "
            "would put a job's pods on nodes with no NVLink between them",
            SPLIT_HINT,
            pool="nvl72",
            capacity_block=BLOCK_A,
            cliques=["u.1", "u.2"],
        )
    ]


def test_a_clique_over_two_ultraservers_is_a_split():
    found = _cliques([("n-0", "u.1", BLOCK_A, True), ("n-1", "u.1", BLOCK_B, True), ("n-2", "u.2", BLOCK_B, True)])
    assert [item["message"] for item in found] == [
        f"pool 'nvl72': the nodes of UltraServer {BLOCK_B} carry 2 NVLink cliques (u.1, u.2), not one: Kueue and the DRA driver "
        "would put a job's pods on nodes with no NVLink between them",
        f"pool 'nvl72': NVLink clique u.1 spans 2 UltraServers ({BLOCK_A}, {BLOCK_B}), which share no NVLink: Kueue and the DRA "
        "driver would put a job's pods on nodes with no NVLink between them",
    ]
    assert found[1]["certificate"] == {"pool": "nvl72", "clique": "u.1", "capacity_blocks": [BLOCK_A, BLOCK_B]}


def test_a_node_not_yet_in_a_block_or_not_placed_is_left_to_the_ultraserver_check():
    members = [("n-0", "u.1", BLOCK_A, True), ("n-1", "u.2", None, True)]
    assert _cliques(members) == []
    nodes = [node("n-0", "i-n-0", NVL72, labels={CLIQUE: "u.1"}), node("n-1", None, NVL72, labels={CLIQUE: "u.2"})]
    documents = {NODES: {"items": nodes}, TOPOLOGY: topology(("i-n-0", ["nn-1"], BLOCK_A))}
    assert nvlink.check_cliques(judge(with_groups(GB200, NVL72), documents)) == []


def test_only_the_nvlink_pools_nodes_are_judged():
    other = resized(NVL72, name="other", pool="other")
    nodes = [node("n-0", "i-n-0", NVL72, labels={CLIQUE: "u.1"}), node("o-0", "i-o-0", other)]
    documents = {NODES: {"items": nodes}, TOPOLOGY: topology(("i-n-0", ["nn-1"], BLOCK_A))}
    assert nvlink.check_cliques(judge(with_groups(GB200, NVL72, other), documents)) == []


def test_cliques_without_their_files_are_not_checked_and_a_pool_without_nvlink_across_instances_needs_none():
    found = [finding.as_json() for finding in nvlink.check_cliques(judge(with_groups(GB200, NVL72), {}))]
    assert found == [not_checked_json("the NVLink cliques", "pools", NODES, TOPOLOGY)]
    assert nvlink.check_cliques(judge(P5, {})) == []
    assert nvlink.check_dra_plugin(judge(P5, {})) == []


DRA = ("nvidia-dra-driver-gpu", "nvidia-dra-driver-gpu-kubelet-plugin")


def _pod(owner: tuple[str, str], on: str, ready: bool = True) -> dict[str, Any]:
    return {
        "metadata": {"namespace": owner[0], "name": f"p-{on}", "ownerReferences": [{"kind": "DaemonSet", "name": owner[1]}]},
        "spec": {"nodeName": on},
        "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }


def _dra(daemonsets: list[tuple[str, str]], pods: list[dict[str, Any]], nodes: list[dict[str, Any]] | None = None):
    listed = nodes if nodes is not None else [node("n-0", "i-0", NVL72), node("n-1", "i-1", NVL72)]
    documents = {
        NODES: {"items": listed},
        DAEMONSETS: {"items": [{"metadata": {"namespace": namespace, "name": name}} for namespace, name in daemonsets]},
        PODS: {"items": pods},
    }
    return [finding.as_json() for finding in nvlink.check_dra_plugin(judge(with_groups(GB200, NVL72), documents))]


def test_the_dra_plugin_ready_on_every_ready_node_of_the_pool_is_no_finding():
    other = resized(NVL72, name="other", pool="other")
    nodes = [node("n-0", "i-0", NVL72), node("n-1", "i-1", NVL72), node("n-2", "i-2", NVL72, ready=False), node("o-0", "i-3", other)]
    assert _dra([DRA], [_pod(DRA, "n-0"), _pod(DRA, "n-1")], nodes) == []


def test_the_dra_plugin_absent_is_named_for_its_pools():
    found = _dra([("nvidia-dra-driver-gpu", "nvidia-dra-driver-gpu-controller"), ("kube-system", DRA[1])], [])
    assert found == [
        finding_json(
            "conform.dra-plugin",
            "error",
            "pools[0]",
            f"the DRA driver's kubelet plugin DaemonSet {DRA[0]}/{DRA[1]} is absent: pool(s) ['nvl72'] can't join a ComputeDomain",
            "run `pulumi up` on the Kubernetes layer's stack",
            pools=["nvl72"],
        )
    ]


def test_the_dra_plugin_not_ready_on_a_node_names_it():
    pods = [_pod(DRA, "n-0"), _pod(DRA, "n-1", ready=False), _pod(("kube-system", "other"), "n-1")]
    assert _dra([DRA], pods) == [
        finding_json(
            "conform.dra-plugin",
            "error",
            "pools[0]",
            "the DRA driver's kubelet plugin has no Ready pod on 1 node(s) of pool(s) ['nvl72']: n-1; a job's ComputeDomain claim "
            "can't be prepared there, so its pods stay ContainerCreating",
            "see the plugin pod's log on those nodes (`kubectl logs -n nvidia-dra-driver-gpu <pod> -c compute-domains`); a host "
            "nvidia-imex service holding the IMEX channels is a known cause (kubernetes-sigs/dra-driver-nvidia-gpu#524)",
            pools=["nvl72"],
            nodes=["n-1"],
        )
    ]


def test_the_dra_plugin_without_its_files_is_not_checked_at_the_compute_domains():
    found = [finding.as_json() for finding in nvlink.check_dra_plugin(judge(with_groups(GB200, NVL72), {NODES: {"items": []}}))]
    assert found == [not_checked_json("the DRA driver's kubelet plugin", "kubernetes.compute_domains", DAEMONSETS, PODS)]


def test_a_node_not_yet_in_a_block_does_not_stop_the_next_ones_being_compared():
    found = _cliques([("n-0", "u.9", None, True), ("n-1", "u.1", BLOCK_A, True), ("n-2", "u.2", BLOCK_A, True)])
    assert [item["code"] for item in found] == ["conform.clique-split"]
    assert found[0]["certificate"] == {"pool": "nvl72", "capacity_block": BLOCK_A, "cliques": ["u.1", "u.2"]}


def test_the_dra_plugin_with_no_pod_at_all_lacks_every_ready_node():
    (found,) = _dra([DRA], [_pod(("kube-system", "other"), "n-0")])
    assert found["certificate"] == {"pools": ["nvl72"], "nodes": ["n-0", "n-1"]}


CONTROLLER = ("nvidia-dra-driver-gpu", "nvidia-dra-driver-gpu-controller")
UP_HINT = "run `pulumi up` on the Kubernetes layer's stack"
WHERE = "the DRA driver's ComputeDomain controller Deployment nvidia-dra-driver-gpu/nvidia-dra-driver-gpu-controller"


def _controller(deployment: dict[str, Any] | None) -> list[dict[str, Any]]:
    """check_dra_controller's findings on the GB200 plan with the controller Deployment `deployment` (None: absent)."""
    items = [] if deployment is None else [{"metadata": {"namespace": CONTROLLER[0], "name": CONTROLLER[1]}, **deployment}]
    items.append({"metadata": {"namespace": "kube-system", "name": "coredns"}, "spec": {"replicas": 2}, "status": {"readyReplicas": 2}})
    return [finding.as_json() for finding in nvlink.check_dra_controller(judge(GB200, {DEPLOYMENTS: {"items": items}}))]


def test_the_dra_controller_absent_is_an_error_at_the_pool_with_the_fix():
    message = f"{WHERE} is absent: no ComputeDomain of pool(s) ['nvl72'] gets its IMEX daemons or channel template"
    assert _controller(None) == [finding_json("conform.dra-controller", "error", "pools[0]", message, UP_HINT, pools=["nvl72"])]


@pytest.mark.parametrize(
    ("deployment", "ready", "wanted"),
    [
        ({"spec": {"replicas": 3}, "status": {"readyReplicas": 2}}, 2, 3),
        # The API leaves readyReplicas out at 0, and a Deployment without spec.replicas asks for one.
        ({}, 0, 1),
        ({"spec": {}, "status": {}}, 0, 1),
    ],
)
def test_the_dra_controller_short_of_ready_replicas_says_how_many_of_how_many(deployment, ready, wanted):
    message = f"{WHERE} has {ready} of {wanted} replica(s) Ready: new ComputeDomains of pool(s) ['nvl72'] are not reconciled and get no status"
    hint = (
        "see the controller pod's events and log "
        "(`kubectl -n nvidia-dra-driver-gpu describe deployment/nvidia-dra-driver-gpu-controller`, `kubectl logs`)"
    )
    assert _controller(deployment) == [
        finding_json("conform.dra-controller", "error", "pools[0]", message, hint, pools=["nvl72"], ready=ready, replicas=wanted)
    ]


@pytest.mark.parametrize(
    "deployment",
    [
        {"spec": {}, "status": {"readyReplicas": 1}},
        {"spec": {"replicas": 2}, "status": {"readyReplicas": 2}},
        {"spec": {"replicas": 2}, "status": {"readyReplicas": 3}},
    ],
)
def test_the_dra_controller_with_every_replica_it_asks_ready_conforms(deployment):
    assert _controller(deployment) == []


def _domains(items: list[dict[str, Any]], *namespaces: str) -> list[dict[str, Any]]:
    """check_compute_domains' findings on the GB200 plan with one nvl72 ComputeDomain planned in each of `namespaces`."""
    layout = GB200.plan.kubernetes.compute_domains
    assert layout is not None
    domains = tuple(ComputeDomain("nvl72", namespace) for namespace in namespaces)
    kubernetes = dataclasses.replace(GB200.plan.kubernetes, compute_domains=dataclasses.replace(layout, domains=domains))
    expected = dataclasses.replace(GB200, plan=dataclasses.replace(GB200.plan, kubernetes=kubernetes))
    return [finding.as_json() for finding in nvlink.check_compute_domains(judge(expected, {COMPUTE_DOMAINS: {"items": items}}))]


def _domain(namespace: str, status: dict[str, Any] | None) -> dict[str, Any]:
    found: dict[str, Any] = {"metadata": {"namespace": namespace, "name": "nvl72-nvlink"}, "spec": {"numNodes": 2}}
    if status is not None:
        found["status"] = status
    return found


IMEX_HINT = (
    "read the IMEX daemon pods' logs on those nodes (namespace nvidia-dra-driver-gpu, label resource.nvidia.com/computeDomain=<the domain's uid>) "
    "and `nvidia-smi -q` (Fabric) there; a node whose fabric is degraded can't join"
)


def test_each_planned_compute_domain_is_judged_one_absent_then_one_not_ready_are_two_errors():
    lagging = {"status": "NotReady", "nodes": [{"name": "n-0", "status": "Ready"}, {"name": "n-1", "status": "NotReady"}]}
    found = _domains([_domain("training", lagging)], "default", "training")
    absent = (
        "pool 'nvl72': ComputeDomain default/nvl72-nvlink is absent: no ResourceClaimTemplate nvl72-nvlink-channel is made, "
        "so no job can claim the pool's NVLink"
    )
    not_ready = (
        "pool 'nvl72': ComputeDomain training/nvl72-nvlink is NotReady, not Ready: the IMEX daemon is not Ready on 1 node(s): n-1; "
        "a job's pods on those nodes can't share GPU memory over NVLink"
    )
    assert found == [
        finding_json("conform.compute-domain", "error", "pools[0]", absent, UP_HINT, pool="nvl72", compute_domain="nvl72-nvlink"),
        finding_json("conform.compute-domain", "error", "pools[0]", not_ready, IMEX_HINT, pool="nvl72", compute_domain="nvl72-nvlink", nodes=["n-1"]),
    ]


def test_a_compute_domain_without_status_names_itself_in_the_certificate():
    [found] = _domains([_domain("default", None)], "default")
    assert (found["code"], found["path"], found["certificate"]) == (
        "conform.compute-domain",
        "pools[0]",
        {"pool": "nvl72", "compute_domain": "nvl72-nvlink"},
    )
    assert found["hint"] == (
        "see the controller's log (`kubectl logs -n nvidia-dra-driver-gpu deployment/nvidia-dra-driver-gpu-controller`) and that its pod is Ready"
    )
