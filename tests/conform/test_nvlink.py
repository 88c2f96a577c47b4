"""The GB200 example's cluster after apply: NVLink cliques that match the UltraServers, and the DRA plugin Ready.

The conforming folder is the GB200 sketch (tests/conform/examples.py): two UltraServers of 18 (CapacityBlockIds cb-...0 and
cb-...1), each node labelled with its UltraServer's clique by GPU feature discovery, the DRA driver's kubelet plugin Ready
on all 36. Each drift below is one a real cluster shows, and each gives its own named error.
"""

from __future__ import annotations

import pytest

from tests.conform.clusters import node_name, pod_name
from tests.conform.examples import DRA_PLUGIN, GB200
from tests.conform.folders import find_node
from tests.conform.test_examples import Documents, judged

GROUP = GB200.groups[0]
CLIQUE = "nvidia.com/gpu.clique"


def _errors(report) -> list:
    return [finding for finding in report.findings if finding.is_error]


def test_the_conforming_gb200_folder_gives_no_clique_or_dra_finding(tmp_path):
    report = judged(GB200, tmp_path)
    assert report.ok and report.findings == [] and {"nvlink-cliques", "dra-plugin"} <= set(report.checks)


def test_a_node_without_its_clique_label_is_named(tmp_path):
    def change(documents: Documents) -> None:
        del find_node(documents, node_name(GROUP, 7))["metadata"]["labels"][CLIQUE]

    errors = _errors(judged(GB200, tmp_path, change))
    # Kueue's topology has the clique as a level, so its check names the node too.
    (missing,) = [finding for finding in errors if finding.code == "conform.clique-missing"]
    assert missing.path_text == "pools[0]" and missing.certificate == {"pool": "nvl72", "nodes": [node_name(GROUP, 7)]}
    assert missing.message.startswith(f"pool 'nvl72': 1 Ready node(s) carry no {CLIQUE} label: {node_name(GROUP, 7)}")
    assert {finding.code for finding in errors} <= {"conform.clique-missing", "conform.kueue"}


def test_an_ultraserver_whose_nodes_carry_two_cliques_is_a_split(tmp_path):
    def change(documents: Documents) -> None:
        labels = find_node(documents, node_name(GROUP, 3))["metadata"]["labels"]
        labels[CLIQUE] = labels[CLIQUE].rsplit(".", 1)[0] + ".9"

    errors = _errors(judged(GB200, tmp_path, change))
    (split,) = [finding for finding in errors if finding.code == "conform.clique-split"]
    assert split.path_text == "pools[0]" and split.certificate["capacity_block"] == "cb-07b00000000000000"
    assert len(split.certificate["cliques"]) == 2 and split.message.startswith(
        "pool 'nvl72': the nodes of UltraServer cb-07b00000000000000 carry 2 NVLink cliques"
    )
    assert [finding.code for finding in errors] == ["conform.clique-split"]


def test_one_clique_over_both_ultraservers_is_a_split(tmp_path):
    def change(documents: Documents) -> None:
        first = find_node(documents, node_name(GROUP, 0))["metadata"]["labels"][CLIQUE]
        for index in range(18, 36):
            find_node(documents, node_name(GROUP, index))["metadata"]["labels"][CLIQUE] = first

    (split,) = _errors(judged(GB200, tmp_path, change))
    assert split.code == "conform.clique-split"
    assert split.certificate["capacity_blocks"] == ["cb-07b00000000000000", "cb-07b00000000000001"]
    assert "spans 2 UltraServers" in split.message


def test_the_dra_plugin_not_ready_on_one_node_is_named(tmp_path):
    namespace, daemonset, _ = DRA_PLUGIN

    def change(documents: Documents) -> None:
        pod = next(item for item in documents["kubectl-get-pods.json"]["items"] if item["metadata"]["name"] == pod_name(daemonset, GROUP, 30))
        pod["status"]["conditions"] = [{"type": "Ready", "status": "False"}]

    (finding,) = _errors(judged(GB200, tmp_path, change))
    assert (finding.code, finding.path_text) == ("conform.dra-plugin", "pools[0]")
    assert finding.certificate == {"pools": ["nvl72"], "nodes": [node_name(GROUP, 30)]}
    assert finding.message.startswith(f"the DRA driver's kubelet plugin has no Ready pod on 1 node(s) of pool(s) ['nvl72']: {node_name(GROUP, 30)}")
    assert namespace == "nvidia-dra-driver-gpu"


def test_the_dra_plugin_absent_is_named(tmp_path):
    def change(documents: Documents) -> None:
        items = documents["kubectl-get-daemonsets.json"]["items"]
        items[:] = [item for item in items if item["metadata"]["name"] != DRA_PLUGIN[1]]

    (finding,) = [finding for finding in _errors(judged(GB200, tmp_path, change)) if finding.code == "conform.dra-plugin"]
    assert finding.message.startswith(
        "the DRA driver's kubelet plugin DaemonSet nvidia-dra-driver-gpu/nvidia-dra-driver-gpu-kubelet-plugin is absent"
    )


def _domain(documents: Documents) -> dict:
    (domain,) = documents["kubectl-get-computedomains.json"]["items"]
    return domain


def test_the_conforming_folder_holds_a_ready_compute_domain_with_a_job_on_the_first_ultraserver(tmp_path):
    report = judged(GB200, tmp_path)
    assert "compute-domains" in report.checks and report.findings == []


def test_an_absent_compute_domain_is_named(tmp_path):
    def change(documents: Documents) -> None:
        documents["kubectl-get-computedomains.json"]["items"] = []

    (finding,) = _errors(judged(GB200, tmp_path, change))
    assert (finding.code, finding.path_text) == ("conform.compute-domain", "pools[0]")
    assert finding.certificate == {"pool": "nvl72", "compute_domain": "nvl72-nvlink"}
    assert finding.message == (
        "pool 'nvl72': ComputeDomain default/nvl72-nvlink is absent: no ResourceClaimTemplate nvl72-nvlink-channel is made, "
        "so no job can claim the pool's NVLink"
    )


def test_a_compute_domain_in_another_namespace_is_absent_from_the_planned_one(tmp_path):
    def change(documents: Documents) -> None:
        _domain(documents)["metadata"]["namespace"] = "training"

    (finding,) = _errors(judged(GB200, tmp_path, change))
    assert finding.code == "conform.compute-domain" and "default/nvl72-nvlink is absent" in finding.message


def test_a_compute_domain_the_controller_never_reconciled_has_no_status(tmp_path):
    # kubernetes-sigs/dra-driver-nvidia-gpu#767: `kubectl get computedomain -o yaml` shows spec and finalizer, no status.
    def change(documents: Documents) -> None:
        del _domain(documents)["status"]

    (finding,) = _errors(judged(GB200, tmp_path, change))
    assert (finding.code, finding.path_text) == ("conform.compute-domain", "pools[0]")
    assert finding.message == (
        "pool 'nvl72': ComputeDomain default/nvl72-nvlink has no status: the driver's controller "
        "(nvidia-dra-driver-gpu/nvidia-dra-driver-gpu-controller) never reconciled it, so no job's pods are released into it"
    )
    assert "kubectl logs -n nvidia-dra-driver-gpu deployment/nvidia-dra-driver-gpu-controller" in finding.hint


def test_a_not_ready_compute_domain_names_the_nodes_whose_imex_daemon_is_not_ready(tmp_path):
    def change(documents: Documents) -> None:
        status = _domain(documents)["status"]
        status["status"] = "NotReady"
        status["nodes"][4]["status"] = "NotReady"
        del status["nodes"][11]["status"]  # the CRD's default for a node's status is NotReady

    (finding,) = _errors(judged(GB200, tmp_path, change))
    lagging = [node_name(GROUP, 4), node_name(GROUP, 11)]
    assert (finding.code, finding.path_text) == ("conform.compute-domain", "pools[0]")
    assert finding.certificate == {"pool": "nvl72", "compute_domain": "nvl72-nvlink", "nodes": sorted(lagging)}
    assert finding.message == (
        f"pool 'nvl72': ComputeDomain default/nvl72-nvlink is NotReady, not Ready: the IMEX daemon is not Ready on 2 node(s): "
        f"{', '.join(sorted(lagging))}; a job's pods on those nodes can't share GPU memory over NVLink"
    )


def test_a_not_ready_compute_domain_with_every_listed_node_ready_says_how_many_joined(tmp_path):
    def change(documents: Documents) -> None:
        domain = _domain(documents)
        domain["spec"]["numNodes"] = 36
        domain["status"]["status"] = "NotReady"

    (finding,) = _errors(judged(GB200, tmp_path, change))
    assert finding.certificate["nodes"] == []
    assert "is NotReady, not Ready: 18 node(s) joined of the 36 its spec.numNodes asks" in finding.message


def test_an_idle_ready_compute_domain_with_no_nodes_conforms(tmp_path):
    # numNodes 0: the controller marks a domain with no IMEX daemon yet Ready (calculateGlobalStatus at v25.12.0).
    def change(documents: Documents) -> None:
        del _domain(documents)["status"]["nodes"]

    assert judged(GB200, tmp_path, change).findings == []


@pytest.mark.parametrize(
    ("file", "check"),
    [("kubectl-get-computedomains.json", "the ComputeDomains"), ("kubectl-get-deployments.json", "the DRA driver's ComputeDomain controller")],
)
def test_a_dra_file_missing_is_not_a_pass_where_the_driver_is_installed(tmp_path, file, check):
    def change(documents: Documents) -> None:
        del documents[file]

    (finding,) = _errors(judged(GB200, tmp_path, change))
    assert (finding.code, finding.path_text) == ("conform.not-checked", "kubernetes.compute_domains")
    assert finding.certificate == {"check": check, "files": [file]}


CONTROLLER = ("nvidia-dra-driver-gpu", "nvidia-dra-driver-gpu-controller")


def _controller(documents: Documents) -> dict:
    items = documents["kubectl-get-deployments.json"]["items"]
    return next(item for item in items if (item["metadata"]["namespace"], item["metadata"]["name"]) == CONTROLLER)


def test_the_dra_controller_absent_is_named(tmp_path):
    def change(documents: Documents) -> None:
        items = documents["kubectl-get-deployments.json"]["items"]
        items[:] = [item for item in items if item["metadata"]["name"] != CONTROLLER[1]]

    (finding,) = _errors(judged(GB200, tmp_path, change))
    assert (finding.code, finding.path_text, finding.certificate) == ("conform.dra-controller", "pools[0]", {"pools": ["nvl72"]})
    assert finding.message == (
        "the DRA driver's ComputeDomain controller Deployment nvidia-dra-driver-gpu/nvidia-dra-driver-gpu-controller is absent: "
        "no ComputeDomain of pool(s) ['nvl72'] gets its IMEX daemons or channel template"
    )


def test_the_dra_controller_with_no_ready_replica_is_named(tmp_path):
    # The API leaves readyReplicas out when it is 0.
    def change(documents: Documents) -> None:
        del _controller(documents)["status"]["readyReplicas"]

    (finding,) = _errors(judged(GB200, tmp_path, change))
    assert finding.code == "conform.dra-controller"
    assert finding.certificate == {"pools": ["nvl72"], "ready": 0, "replicas": 1}
    assert finding.message.startswith(
        "the DRA driver's ComputeDomain controller Deployment nvidia-dra-driver-gpu/nvidia-dra-driver-gpu-controller has 0 of 1 "
        "replica(s) Ready: new ComputeDomains of pool(s) ['nvl72'] are not reconciled"
    )


def test_the_dra_controller_with_as_many_ready_replicas_as_it_asks_conforms(tmp_path):
    def change(documents: Documents) -> None:
        controller = _controller(documents)
        controller["spec"]["replicas"] = controller["status"]["readyReplicas"] = 2

    assert judged(GB200, tmp_path, change).findings == []
