"""What the checker pod takes from the host: on every example, with every pool gated, nothing it mounts can create a
path on the node, and an EFA pool's checker reads the host's sysfs, not a libfabric the EKS AMI doesn't carry."""

from __future__ import annotations

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
