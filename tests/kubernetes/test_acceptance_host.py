"""What the checker pod takes from the host: on every example, with every pool gated, nothing it mounts can create a
path on the node, and an EFA pool's checker reads the host's sysfs, not a libfabric the EKS AMI doesn't carry."""

from __future__ import annotations

from pathlib import Path

import pytest

from blueprints.catalog import load_catalog
from blueprints.loader import load_blueprint
from components.kubernetes.acceptance import SEARCH_PATH, daemon_set
from railyard.checker_bundle import checker_bundle
from tests.kubernetes.fixtures import EXAMPLES
from tests.kubernetes.test_acceptance_gate import with_acceptance_everywhere
from topology.cluster.acceptance import plan_gates
from topology.cluster.scheduling import node_groups

CATALOG = load_catalog()
# hostPath types under which the kubelet only checks what is there (Kubernetes API, HostPathType): DirectoryOrCreate and
# FileOrCreate create the path, and no type at all skips the check, leaving containerd to create a missing bind source.
CHECKING_TYPES = {"Directory", "File", "Socket", "CharDevice", "BlockDevice"}


def _pods(example: str) -> dict[str, dict]:
    blueprint = with_acceptance_everywhere(load_blueprint(str(EXAMPLES / f"{example}.yaml")).blueprint)
    gates = plan_gates(blueprint, node_groups(blueprint, CATALOG))
    bundle = checker_bundle(blueprint, CATALOG, gates)
    return {gate.pool: daemon_set(gate, bundle)["template"]["spec"] for gate in gates}


@pytest.mark.parametrize("example", sorted(path.stem for path in EXAMPLES.glob("*.yaml")))
def test_no_host_path_the_gate_mounts_can_create_anything_on_the_node(example):
    for pool, pod in _pods(example).items():
        host_paths = [volume["hostPath"] for volume in pod["volumes"] if "hostPath" in volume]
        assert all(path.get("type") in CHECKING_TYPES for path in host_paths), (pool, host_paths)
        assert {path["path"] for path in host_paths} <= {"/sys"}


def test_an_efa_pools_checker_mounts_the_hosts_sysfs_read_only_and_looks_for_no_libfabric():
    pods = _pods("adt-eks-capacity-block")
    checker = pods["p5"]["containers"][0]
    assert [v for v in pods["p5"]["volumes"] if "hostPath" in v] == [{"name": "host-sys", "hostPath": {"path": "/sys", "type": "Directory"}}]
    assert {"name": "host-sys", "mountPath": "/host/sys", "readOnly": True} in checker["volumeMounts"]
    assert "/opt/amazon/efa" not in SEARCH_PATH
    assert {env["name"]: env.get("value") for env in checker["env"]}["PATH"] == SEARCH_PATH


def test_a_pool_without_efa_mounts_nothing_of_the_host():
    pods = _pods("inference-fleet")
    assert [volume for pod in pods.values() for volume in pod["volumes"] if "hostPath" in volume] == []


def test_a_gated_karpenter_pool_is_warned_that_a_failed_node_holds_its_pods_until_it_expires():
    from blueprints.models.acceptance import Acceptance
    from topology.cluster.kubernetes_checks import check_kubernetes

    blueprint = load_blueprint(str(EXAMPLES / "ai-on-eks.yaml")).blueprint
    karpenter = [index for index, pool in enumerate(blueprint.pools) if pool.provisioner == "karpenter"]
    assert karpenter  # the example provisions its inference pools with Karpenter
    pools = [pool.model_copy(update={"acceptance": Acceptance()}) if i in karpenter else pool for i, pool in enumerate(blueprint.pools)]
    held = [f for f in check_kubernetes(blueprint.model_copy(update={"pools": pools}), CATALOG) if f.code == "acceptance.karpenter-held"]
    assert [(f.severity, f.path) for f in held] == [("warning", ("pools", i, "acceptance")) for i in karpenter]
    first = blueprint.pools[karpenter[0]]
    expiry = "never: the pool's nodes don't expire" if first.role == "training" else "when it expires, 720h after launch"
    assert held[0].message == (
        f"pool '{first.name}' is gated and provisioned by Karpenter: a node that fails acceptance keeps its startup taint, so "
        "Karpenter (v1.14.1) never marks it initialized, counts pending pods against it as if the taint would lift, and launches "
        f"no node for them; it removes the node {expiry}. The node reports it (railyard.dev/Accepted=False)"
    )
    assert held[0].hint.startswith("watch the condition and delete a failed node's NodeClaim (kubectl delete nodeclaim <name>)")


def test_a_training_pools_nodes_never_expire_so_its_failed_node_is_never_removed():
    from topology.cluster.acceptance_karpenter import expire_after

    assert (expire_after("training"), expire_after("inference"), expire_after("dev")) == ("Never", "720h", "720h")


def test_the_dcgm_diagnostic_has_no_memory_limit_to_be_oom_killed_into_a_restart_loop_and_the_checker_keeps_its_own():
    pod = _pods("adt-eks-capacity-block")["p5"]
    [_, diagnostic] = pod["containers"]
    assert diagnostic["resources"] == {"requests": {"cpu": "100m", "memory": "128Mi"}}
    assert pod["containers"][0]["resources"]["limits"] == {"memory": "512Mi"}


def _run_waits(marker_dir: Path, minutes: int, written: bool) -> float:
    """The checker's wait for the DCGM step, run by sh with the evidence folder moved to `marker_dir`; the seconds it took."""
    import subprocess
    import time

    from components.kubernetes.acceptance import EVIDENCE, Step, _waits

    if written:
        (marker_dir / "dcgm-diag.done").touch()
    lines = [line.replace(EVIDENCE, str(marker_dir)) for line in _waits([Step("dcgm-diag", {}, minutes)])]
    start = time.monotonic()
    subprocess.run(["/bin/sh", "-c", "\n".join(lines)], check=True, timeout=30)
    return time.monotonic() - start


def test_a_step_that_never_writes_its_marker_its_image_not_pulled_holds_the_checker_only_until_its_deadline(tmp_path):
    # A DCGM image that can't be pulled writes nothing: once the step's minutes are past the checker runs anyway, and its
    # dcgmi-diag.json is missing, a failed check it publishes (tests/acceptance/test_checker.py, the missing file).
    assert _run_waits(tmp_path, minutes=0, written=False) < 5
    # A step that finished lets the checker run at once.
    assert _run_waits(tmp_path, minutes=60, written=True) < 5


def test_every_step_runs_beside_the_checker_not_before_it_so_no_step_can_hold_the_pod_in_init():
    for example in ("adt-eks-capacity-block", "heterogeneous", "trn2-ultraserver"):
        for pool, pod in _pods(example).items():
            assert "initContainers" not in pod, (example, pool)
            assert pod["containers"][0]["name"] == "checker"
            for step in pod["containers"][1:]:
                marker = f"/var/lib/railyard/evidence/{step['name']}.done"
                assert step["command"][2].split("\n")[-2:] == [f"touch {marker}", "exec sleep infinity"]
                assert f"[ ! -e {marker} ]" in pod["containers"][0]["command"][2]


@pytest.mark.parametrize(("version", "refused"), [("1.29", True), ("1.30", False), ("1.35", False)])
def test_a_gate_on_a_cluster_older_than_1_30_is_refused_since_its_checker_could_not_be_bound_to_its_node(version, refused):
    from topology.cluster.kubernetes_checks import check_kubernetes

    blueprint = load_blueprint(str(EXAMPLES / "adt-eks-capacity-block.yaml")).blueprint
    kubernetes = blueprint.kubernetes.model_copy(update={"version": version})
    findings = [f for f in check_kubernetes(blueprint.model_copy(update={"kubernetes": kubernetes}), CATALOG) if f.code == "acceptance.node-binding"]
    if not refused:
        assert findings == []
        return
    [finding] = findings
    assert (finding.severity, finding.path) == ("error", ("kubernetes", "version"))
    assert finding.message == (
        "pools ['p5'] are gated on Kubernetes 1.29, but the admission policy that holds the checker to its own node needs 1.30 or "
        "later (admissionregistration.k8s.io/v1, and the node name in the checker's token)"
    )


def test_an_ungated_cluster_older_than_1_30_is_not_refused_for_a_gate_it_does_not_have():
    from topology.cluster.kubernetes_checks import check_kubernetes

    blueprint = load_blueprint(str(EXAMPLES / "inference-fleet.yaml")).blueprint
    kubernetes = blueprint.kubernetes.model_copy(update={"version": "1.29"})
    assert [
        f for f in check_kubernetes(blueprint.model_copy(update={"kubernetes": kubernetes}), CATALOG) if f.code == "acceptance.node-binding"
    ] == []
