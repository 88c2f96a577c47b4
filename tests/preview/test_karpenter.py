"""Karpenter pools (`provisioner: karpenter`): a NodePool and an EC2NodeClass per failure domain, and Karpenter's AWS side.

Field names and rules are Karpenter v1.14.1's CRDs (karpenter.sh/v1 NodePool,
karpenter.k8s.aws/v1 EC2NodeClass); the controller's IAM, queue and event
rules follow that release's getting-started CloudFormation template.
"""

from __future__ import annotations

import json

import pytest

from policies.runner import run_policies
from railyard.mocked import run_preview
from railyard.pipeline import validate
from tests.preview.conftest import ROOT, preview_of
from tests.yaml_text import edited_copy

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
HETEROGENEOUS = ROOT / "blueprints" / "examples" / "heterogeneous.yaml"
# trn2 training on Karpenter, on an EFA fabric, in a cluster placement group (no rack spread).
TRAINIUM = (
    "    nodes: 16\n    placement:\n      domains: [use2b-trn]\n      spread: racks\n      max_failure_share: 0.25\n",
    "    nodes: 16\n    provisioner: karpenter\n    placement:\n      domains: [use2b-trn]\n",
)


@pytest.fixture(scope="module")
def ai_on_eks():
    result = preview_of("ai-on-eks")
    assert result.ok
    return result


def _named(result, kind: str, name: str):
    [found] = [item for item in result.of_type(kind) if item.inputs["metadata"]["name"] == name]
    return found.inputs["spec"]


def test_karpenter_pools_get_node_pools_and_no_managed_node_groups(ai_on_eks):
    groups = {group.inputs["nodeGroupName"] for group in ai_on_eks.of_type("aws:eks/nodeGroup:NodeGroup")}
    assert not any(name.startswith(("gpu-inference", "neuron-inference")) for name in groups)
    assert {"train-usw2a-train", "system"} <= groups
    pools = sorted(item.inputs["metadata"]["name"] for item in ai_on_eks.of_type(NODE_POOL))
    assert pools == ["gpu-inference-usw2a-serve", "gpu-inference-usw2b-serve", "neuron-inference-usw2a-serve", "neuron-inference-usw2b-serve"]
    assert sorted(item.inputs["metadata"]["name"] for item in ai_on_eks.of_type(NODE_CLASS)) == pools


def test_a_node_pool_launches_exactly_its_node_groups_nodes(ai_on_eks):
    spec = _named(ai_on_eks, NODE_POOL, "gpu-inference-usw2b-serve")
    template = spec["template"]["spec"]
    assert template["requirements"] == [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6e.12xlarge"]},
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-west-2b"]},
    ]
    assert template["nodeClassRef"] == {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu-inference-usw2b-serve"}
    assert template["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
    labels = spec["template"]["metadata"]["labels"]
    assert (labels["railyard.dev/pool"], labels["railyard.dev/failure-domain"]) == ("gpu-inference", "usw2b-serve")
    # 16 nodes at most over two zones: 8 here, at 48 vCPUs each.
    assert spec["limits"] == {"cpu": "384"}
    assert spec["disruption"]["consolidationPolicy"] == "WhenEmptyOrUnderutilized" and template["expireAfter"] == "720h"


def test_a_node_class_uses_the_clusters_role_subnet_group_key_and_a_pinned_ami_release(ai_on_eks):
    spec = _named(ai_on_eks, NODE_CLASS, "gpu-inference-usw2a-serve")
    assert spec["amiSelectorTerms"] == [{"alias": "al2023@v20260724"}]
    [role] = [role for role in ai_on_eks.of_type("aws:iam/role:Role") if role.name.endswith("-eks-node-role")]
    assert spec["role"] == role.name
    exported = ai_on_eks.outputs["karpenter"]["nodeClasses"]["gpu-inference-usw2a-serve"]
    assert spec["subnetSelectorTerms"] == [{"id": exported["subnetId"]}]
    assert spec["securityGroupSelectorTerms"] == [{"id": group} for group in exported["securityGroupIds"]]
    assert len(exported["securityGroupIds"]) == 1 and "placementGroupSelector" not in spec
    [ebs] = [mapping["ebs"] for mapping in spec["blockDeviceMappings"] if mapping["rootVolume"]]
    assert (ebs["volumeType"], ebs["encrypted"], ebs["volumeSize"]) == ("gp3", True, "200Gi")
    assert ebs["kmsKeyID"] == ai_on_eks.outputs["karpenter"]["volumeKeyArn"]
    assert spec["metadataOptions"] == {
        "httpEndpoint": "enabled",
        "httpProtocolIPv6": "disabled",
        "httpPutResponseHopLimit": 2,
        "httpTokens": "required",
    }
    assert spec["instanceStorePolicy"] == "RAID0"  # g6e.12xlarge has instance-store NVMe
    assert not any(key.startswith(("karpenter.", "eks:")) for key in spec["tags"]) and spec["tags"]["owner"] == "ml-platform"


def test_the_controller_gets_a_scoped_role_through_pod_identity_and_an_interruption_queue(ai_on_eks):
    release = ai_on_eks.named("ai-on-eks-prod-k8s-karpenter-karpenter")
    assert (release.inputs["chart"], release.inputs["version"], release.inputs["namespace"]) == (
        "oci://public.ecr.aws/karpenter/karpenter",
        "1.14.1",
        "kube-system",
    )
    values = release.inputs["values"]
    assert values["settings"] == {"clusterName": "ai-on-eks-prod", "interruptionQueue": ai_on_eks.outputs["karpenter"]["queueName"]}
    assert values["serviceAccount"]["name"] == "karpenter" and values["replicas"] == 2
    [association] = [item for item in ai_on_eks.of_type("aws:eks/podIdentityAssociation:PodIdentityAssociation") if "karpenter" in item.name]
    assert (association.inputs["namespace"], association.inputs["serviceAccount"]) == ("kube-system", "karpenter")
    documents = {item.name.rsplit("-karpenter-", 1)[1]: json.loads(item.inputs["policy"]) for item in ai_on_eks.of_type("aws:iam/policy:Policy")}
    assert set(documents) == {"node-lifecycle", "iam-integration", "eks-integration", "interruption", "resource-discovery"}
    [pass_role] = [s for s in documents["iam-integration"]["Statement"] if s["Action"] == ["iam:PassRole"]]
    assert len(pass_role["Resource"]) == 1 and pass_role["Resource"][0].endswith("ai-on-eks-prod-eks-node-role")
    [terminate] = [s for s in documents["node-lifecycle"]["Statement"] if "ec2:TerminateInstances" in s["Action"]]
    assert terminate["Condition"]["StringEquals"] == {"aws:ResourceTag/kubernetes.io/cluster/ai-on-eks-prod": "owned"}
    patterns = sorted(json.loads(rule.inputs["eventPattern"])["detail-type"][0] for rule in ai_on_eks.of_type("aws:cloudwatch/eventRule:EventRule"))
    assert patterns == [
        "AWS Health Event",
        "EC2 Capacity Reservation Instance Interruption Warning",
        "EC2 Instance Rebalance Recommendation",
        "EC2 Instance State-change Notification",
        "EC2 Spot Instance Interruption Warning",
    ]
    [queue] = ai_on_eks.of_type("aws:sqs/queue:Queue")
    assert (queue.inputs["messageRetentionSeconds"], queue.inputs["sqsManagedSseEnabled"]) == (300, True)
    assert len(ai_on_eks.of_type("aws:cloudwatch/eventTarget:EventTarget")) == 5


def test_an_efa_training_pool_on_karpenter_gets_its_interfaces_placement_group_and_no_consolidation(tmp_path):
    result = run_preview(str(edited_copy(HETEROGENEOUS, tmp_path, TRAINIUM)), project_dir=ROOT)
    assert result.ok, [f.message for f in result.findings if f.is_error]
    spec = _named(result, NODE_CLASS, "trainium-use2b-trn")
    interfaces = spec["networkInterfaces"]
    assert interfaces[0] == {"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"}
    assert len(interfaces) == 17 and {item["interfaceType"] for item in interfaces[1:]} == {"efa-only"}  # trn2: 16 EFA devices
    [group] = [group for group in result.of_type("aws:ec2/placementGroup:PlacementGroup") if "trainium" in group.name]
    assert group.inputs["strategy"] == "cluster" and spec["placementGroupSelector"] == {"name": group.inputs.get("name", group.name)}
    assert len(spec["securityGroupSelectorTerms"]) == 2  # the cluster's and the EFA group
    pool = _named(result, NODE_POOL, "trainium-use2b-trn")
    assert pool["template"]["spec"]["expireAfter"] == "Never"
    assert (pool["disruption"]["consolidationPolicy"], pool["disruption"]["consolidateAfter"]) == ("WhenEmpty", "10m")
    assert not [t for t in result.of_type("aws:ec2/launchTemplate:LaunchTemplate") if "trainium" in t.name]


def test_the_managed_node_group_quota_counts_no_karpenter_pool():
    [groups] = [need for need in validate(str(ROOT / "blueprints" / "examples" / "ai-on-eks.yaml")).quotas if need.code == "L-6D54EA21"]
    assert groups.needed == 2  # the training group and the system group; the four Karpenter NodePools are no node groups


def test_karpenter_on_reserved_capacity_is_refused(tmp_path):
    path = edited_copy(HETEROGENEOUS, tmp_path, ("    nodes: 32\n    capacity:\n", "    nodes: 32\n    provisioner: karpenter\n    capacity:\n"))
    [finding] = [f for f in validate(str(path)).findings if f.code == "pool.karpenter-reserved"]
    assert finding.path_text == "pools[0].provisioner" and finding.severity == "error"


def test_a_spot_training_node_pool_fails_gov002(tmp_path):
    edit = (TRAINIUM[0], TRAINIUM[1].replace("    provisioner: karpenter\n", "    provisioner: karpenter\n    capacity: {kind: spot}\n"))
    result = run_preview(str(edited_copy(HETEROGENEOUS, tmp_path, edit)), project_dir=ROOT)
    violations = [v for v in run_policies(result).violations if v.rule_id == "GOV002"]
    assert [v.urn.rsplit("::", 1)[-1] for v in violations] == ["hetero-prod-k8s-karpenter-trainium-use2b-trn-pool"]


def test_a_minimum_karpenter_does_not_keep_is_a_warning(tmp_path):
    example = ROOT / "blueprints" / "examples" / "ai-on-eks.yaml"
    path = edited_copy(example, tmp_path, ("    nodes: {min: 0, max: 8}\n", "    nodes: {min: 2, max: 8}\n"))
    [finding] = [f for f in validate(str(path)).findings if f.code == "pool.karpenter-minimum"]
    assert (finding.severity, finding.path_text) == ("warning", "pools[2].nodes")
