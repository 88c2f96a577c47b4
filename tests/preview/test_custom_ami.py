"""A pool on a custom AMI (`pools[].ami_id`): the launch template names the image and the user data joins the node.

EKS merges no bootstrap into a custom AMI's user data and rejects an AMI
type beside an image id (EKS user guide, launch-templates; botocore eks
CreateNodegroup `amiType`), and nodeadm refuses a NodeConfig without the
cluster's name, endpoint, CA and service CIDR (amazon-eks-ami nodeadm
`ValidateNodeConfig`).
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from railyard.mocked import run_preview
from railyard.pipeline import validate
from tests.preview.conftest import ROOT, preview_of
from tests.yaml_text import edited_copy

EXAMPLE = ROOT / "blueprints" / "examples" / "dev-g6e.yaml"
AMI = "ami-0123456789abcdef0"
CUSTOM = ("    instance_type: g6e.xlarge\n", f"    instance_type: g6e.xlarge\n    ami_id: {AMI}\n")
TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


def _written(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    return edited_copy(EXAMPLE, tmp_path, *edits)


def _user_data(template) -> str:
    return base64.b64decode(template.inputs["userData"]).decode()


@pytest.fixture(scope="module")
def custom(tmp_path_factory):
    result = run_preview(str(_written(tmp_path_factory.mktemp("ami"), CUSTOM)), project_dir=ROOT)
    assert result.ok, [finding.message for finding in result.findings if finding.is_error]
    return result


def _pool_parts(result):
    [template] = [item for item in result.of_type(TEMPLATE) if item.name.endswith("-dev-dev-usw2a-template")]
    [group] = [item for item in result.of_type(NODE_GROUP) if item.inputs["nodeGroupName"] == "dev-usw2a"]
    return template, group


def test_the_template_names_the_image_and_the_node_group_no_ami_type(custom):
    template, group = _pool_parts(custom)
    assert template.inputs["imageId"] == AMI
    assert "amiType" not in group.inputs and "releaseVersion" not in group.inputs and "version" not in group.inputs


def test_the_user_data_joins_the_node_with_the_clusters_name_endpoint_ca_and_service_cidr(custom):
    template, group = _pool_parts(custom)
    text = _user_data(template)
    assert "Content-Type: application/node.eks.aws" in text
    [cluster] = custom.of_type("aws:eks/cluster:Cluster")
    assert f"    name: {cluster.inputs['name']}\n" in text
    assert "    apiServerEndpoint: https://" in text and ".eks.amazonaws.com\n" in text
    assert "    certificateAuthority: TU9DSy1DRVJUSUZJQ0FURS1BVVRIT1JJVFk=\n" in text
    assert "    cidr: 172.20.0.0/16\n" in text  # EKS's pick, read back from the cluster
    # The labels and taints the node group declares, on the kubelet's command line so the node registers with them.
    labels = ",".join(f"{key}={value}" for key, value in sorted(group.inputs["labels"].items()))
    assert f"      - --node-labels={labels}\n" in text
    assert "      - --register-with-taints=nvidia.com/gpu=true:NoSchedule\n" in text


def test_the_system_nodes_and_pools_without_a_custom_ami_keep_the_eks_ami(custom):
    system = [item for item in custom.of_type(NODE_GROUP) if item.inputs["nodeGroupName"] != "dev-usw2a"]
    assert system and all(item.inputs["amiType"].startswith("AL2023_") for item in system)
    untouched = [item for item in custom.of_type(TEMPLATE) if not item.name.endswith("-dev-dev-usw2a-template")]
    assert untouched and all("imageId" not in item.inputs for item in untouched)
    assert all("apiServerEndpoint" not in _user_data(item) for item in untouched if item.inputs.get("userData"))


def test_a_pool_on_the_eks_ami_keeps_its_ami_type_and_no_cluster_in_its_user_data():
    template, group = _pool_parts(preview_of("dev-g6e"))  # the session's preview of the example
    assert group.inputs["amiType"] == "AL2023_x86_64_NVIDIA" and "imageId" not in template.inputs
    assert "cluster:" not in _user_data(template)


def test_validate_says_what_the_image_must_hold(tmp_path):
    [note] = [f for f in validate(str(_written(tmp_path, CUSTOM))).findings if f.code == "pool.custom-ami-contents"]
    assert (note.severity, note.path_text) == ("info", "pools[0].ami_id")
    assert "the NVIDIA driver" in note.message and "x86_64" in note.message and AMI in note.message


@pytest.mark.parametrize(
    ("label", "refused"),
    [
        ("node-role.kubernetes.io/gpu", True),  # the kubelet refuses kubernetes.io labels outside its own set
        ("example.k8s.io/team", True),
        ("node.kubernetes.io/lifecycle", False),  # [*.]node.kubernetes.io is the kubelet's to set
        ("kubernetes.io/arch", False),
        ("example.com/team", False),
    ],
)
def test_a_label_the_kubelet_may_not_set_is_an_error_on_a_custom_ami(tmp_path, label, refused):
    path = _written(tmp_path, CUSTOM, ("    role: dev\n", f"    role: dev\n    labels: {{{label}: x}}\n"))
    found = [f for f in validate(str(path)).findings if f.code == "pool.custom-ami-label"]
    assert [f.path_text for f in found] == ([f"pools[0].labels.{label}"] if refused else [])


def test_the_same_label_on_the_eks_ami_is_left_to_eks(tmp_path):
    path = _written(tmp_path, ("    role: dev\n", "    role: dev\n    labels: {node-role.kubernetes.io/gpu: x}\n"))
    assert [f for f in validate(str(path)).findings if f.code == "pool.custom-ami-label"] == []


@pytest.mark.parametrize("ami", ["ami-123", "ami-0123456789ABCDEF0", "img-0123456789abcdef0"])
def test_an_ami_id_of_the_wrong_shape_is_a_schema_error(tmp_path, ami):
    path = _written(tmp_path, (CUSTOM[0], f"    instance_type: g6e.xlarge\n    ami_id: {ami}\n"))
    validation = validate(str(path))
    assert not validation.ok
    assert [f.path_text for f in validation.findings if f.is_error] == ["pools[0].ami_id"]


def test_a_custom_ami_pool_carries_the_pod_limit_eks_would_otherwise_decide(tmp_path):
    """EKS merges nothing into a custom AMI's user data, so railyard's maxPods (pods_per_node + aws-node, kube-proxy) holds there."""
    limit = ('  version: "1.35"\n', '  version: "1.35"\n  pod_networking:\n    pods_per_node: 20\n')
    result = run_preview(str(_written(tmp_path, CUSTOM, limit)), project_dir=ROOT)
    assert result.ok, [finding.message for finding in result.findings if finding.is_error]
    template, _ = _pool_parts(result)
    assert "      maxPods: 22\n" in _user_data(template)
    eks_ami = [item for item in result.of_type(TEMPLATE) if not item.name.endswith("-dev-dev-usw2a-template") and item.inputs.get("userData")]
    assert all("maxPods" not in _user_data(item) for item in eks_ami)
    (note,) = [finding for finding in result.findings if finding.code == "network.max-pods-by-eks"]
    assert note.certificate["pools"] == ["system"]
