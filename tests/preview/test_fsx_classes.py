"""An `fsx_lustre_class` tier: a StorageClass whose claims each get a new FSx for Lustre file system.

The FSx CSI driver makes the file systems, so its controller needs FSx
permissions (a Pod Identity role bound to the chart's controller account),
a subnet and a security group that lets the nodes speak LNET to what it
makes. The StorageClass's parameters are the driver's own names and string
values (aws-fsx-csi-driver v1.9.0 pkg/driver/controller.go).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from railyard.mocked import mock_id, run_preview
from railyard.pipeline import validate
from tests.preview.conftest import ROOT, preview_of
from tests.yaml_text import edited_copy

EXAMPLE = ROOT / "blueprints" / "examples" / "p5-capacity-block.yaml"  # its Kubernetes layer is a separate stack
CLASS = "  - kind: fsx_lustre_class\n    name: scratch\n    deployment_type: PERSISTENT_2\n    throughput_mbps_per_tib: 250\n    efa: true\n"
WITH_CLASS = (("      - tier: nvme\nstorage:\n", f"      - tier: nvme\n      - tier: scratch\nstorage:\n{CLASS}"),)
STORAGE_CLASS = "kubernetes:storage.k8s.io/v1:StorageClass"


def _written(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    return edited_copy(EXAMPLE, tmp_path, *edits)


@pytest.fixture(scope="module")
def with_class(tmp_path_factory):
    result = run_preview(str(_written(tmp_path_factory.mktemp("fsx-class"), *WITH_CLASS)), project_dir=ROOT)
    assert result.ok, [finding.message for finding in result.findings if finding.is_error]
    return result


def test_the_storage_class_carries_the_drivers_parameters_and_the_clusters_network(with_class):
    (scratch,) = [item for item in with_class.of_type(STORAGE_CLASS) if item.inputs["metadata"]["name"] == "scratch"]
    parameters = scratch.inputs["parameters"]
    assert {key: value for key, value in parameters.items() if key not in ("subnetId", "securityGroupIds")} == {
        "deploymentType": "PERSISTENT_2",
        "perUnitStorageThroughput": "250",
        "fileSystemTypeVersion": "2.15",
        "dataCompressionType": "LZ4",
        "efaEnabled": "true",
        "metadataConfigurationMode": "AUTOMATIC",
        "extraTags": "railyard:cluster=p5-train-prod,railyard:storage-class=scratch",
    }
    assert (scratch.inputs["provisioner"], scratch.inputs["reclaimPolicy"], scratch.inputs["mountOptions"]) == (
        "fsx.csi.aws.com",
        "Retain",
        ["flock"],
    )
    # EFA traffic stays in one subnet: the class's file systems go in the EFA subnet of the pool that claims them.
    (efa_subnet,) = [subnet for subnet in with_class.of_type("aws:ec2/subnet:Subnet") if subnet.name.endswith("efa-ultra-use1a")]
    assert parameters["subnetId"] == with_class.outputs["fsxClasses"]["scratch"]["subnetId"]
    assert parameters["subnetId"] == mock_id(efa_subnet.type, efa_subnet.name)
    group = with_class.named("p5-train-prod-storage-class-scratch-sg")
    assert parameters["securityGroupIds"] == with_class.outputs["fsxClasses"]["scratch"]["securityGroupId"]
    ports = sorted((rule["protocol"], rule["fromPort"], rule["toPort"]) for rule in group.inputs["ingress"])
    assert ports == [("-1", 0, 0), ("tcp", 988, 988), ("tcp", 1018, 1023)]


def test_the_controller_gets_fsx_permissions_through_pod_identity_on_the_charts_account(with_class):
    (association,) = with_class.of_type("aws:eks/podIdentityAssociation:PodIdentityAssociation")
    assert (association.inputs["namespace"], association.inputs["serviceAccount"]) == ("kube-system", "fsx-csi-controller-sa")
    role = with_class.named("p5-train-prod-storage-fsx-csi-role")
    trust = json.loads(role.inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    attachment = with_class.named("p5-train-prod-storage-fsx-csi-role-policy")
    assert attachment.inputs["policyArn"] == "arn:aws:iam::aws:policy/AmazonFSxFullAccess"
    assert role.urn in association.dependencies or attachment.urn in association.dependencies
    release = with_class.named("p5-train-prod-k8s-storage-fsx-csi-driver")
    assert release.inputs["values"]["controller"]["serviceAccount"] == {"create": True, "name": "fsx-csi-controller-sa"}


def test_without_a_class_the_controller_gets_no_role():
    plain = preview_of("p5-capacity-block")  # the session's preview of the example
    assert plain.of_type("aws:eks/podIdentityAssociation:PodIdentityAssociation") == []
    assert "controller" not in plain.named("p5-train-prod-k8s-storage-fsx-csi-driver").inputs["values"]
    assert plain.outputs["fsxClasses"] == {}


def test_a_pool_that_lists_only_the_class_runs_the_drivers_node_plugin(tmp_path):
    # The pool mounts no static tier, only claims from the class: the node plugin must still run on it.
    path = _written(
        tmp_path,
        *WITH_CLASS,
        ("      - tier: lustre\n        read_mbps_per_accelerator: 40\n        checkpoint: {size_gib: 2000, max_write_seconds: 600}\n", ""),
    )
    result = run_preview(str(path), project_dir=ROOT)
    assert result.ok, [finding.message for finding in result.findings if finding.is_error]
    release = result.named("p5-train-prod-k8s-storage-fsx-csi-driver")
    terms = release.inputs["values"]["node"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": "railyard.dev/pool", "operator": "In", "values": ["train"]}]}]
    assert result.of_type("kubernetes:core/v1:PersistentVolume") == []


@pytest.mark.parametrize(
    ("edit", "code", "path_text"),
    [
        (
            (
                "    deployment_type: PERSISTENT_2\n    throughput_mbps_per_tib: 250\n    efa",
                "    deployment_type: PERSISTENT_1\n    throughput_mbps_per_tib: 200\n    efa",
            ),
            "fsx.feature-unsupported",
            "storage[0].efa",
        ),
        (
            ("    throughput_mbps_per_tib: 250\n    efa", "    throughput_mbps_per_tib: 300\n    efa"),
            "fsx.throughput-value",
            "storage[0].throughput_mbps_per_tib",
        ),
        (("    name: scratch\n", "    name: gp3\n"), "ref.class-name-taken", "storage[0].name"),
    ],
)
def test_an_illegal_class_is_an_error_at_its_field(tmp_path, edit, code, path_text):
    path = _written(tmp_path, *WITH_CLASS, edit)
    found = [f for f in validate(str(path)).findings if f.code == code]
    assert [f.path_text for f in found] == [path_text]
    assert found[0].severity == "error"


def test_a_class_no_pool_lists_is_a_warning(tmp_path):
    path = _written(tmp_path, ("storage:\n  - kind: fsx_lustre\n", f"storage:\n{CLASS}  - kind: fsx_lustre\n"))
    [finding] = [f for f in validate(str(path)).findings if f.code == "ref.class-unclaimed"]
    assert (finding.severity, finding.path_text) == ("warning", "storage[0].name")
