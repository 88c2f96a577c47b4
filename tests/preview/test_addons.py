"""Every example installs the EKS add-ons at their versions, in order, with node auto repair and a gp3 default class."""

from __future__ import annotations

import json

import pytest

from blueprints.catalog.pins import load_pins
from railyard.mocked import run_preview
from tests.preview.conftest import ROOT, preview_of, write_stack
from tests.topology.cluster.test_addons import SEVEN

ADDON = "aws:eks/addon:Addon"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
# Every example a team would deploy (insecure.yaml exists to fail the policy pack).
EXAMPLES = tuple(sorted(path.stem for path in (ROOT / "blueprints" / "examples").glob("*.yaml") if path.stem != "insecure"))
PINNED = ("vpc-cni", "kube-proxy", "coredns")


def addons(result) -> dict:
    return {addon.inputs["addonName"]: addon for addon in result.of_type(ADDON)}


def release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.lstrip("v").split("-")[0].split("."))


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_example_installs_the_seven_add_ons_pinned_where_aws_publishes_versions(example):
    result = preview_of(example)
    found = addons(result)
    assert set(found) == set(SEVEN)
    exported = result.outputs["addonVersions"]
    version = result.validation.blueprint.kubernetes.version
    for name in PINNED:
        assert found[name].inputs["addonVersion"] == load_pins().addon(name).versions[version] == exported[name]
    for name in set(found) - set(PINNED):
        # AWS publishes no table: EKS's default for the cluster's version is read at apply (the mocks name it).
        assert found[name].inputs["addonVersion"] == f"eks-default-for-{version}"
    efa_only = any(
        interface.get("interfaceType") == "efa-only"
        for template in result.of_type("aws:ec2/launchTemplate:LaunchTemplate")
        for interface in template.inputs.get("networkInterfaces", [])
    )
    assert not efa_only or release(found["vpc-cni"].inputs["addonVersion"]) >= (1, 18, 5)


def test_node_groups_wait_for_the_boot_add_ons_and_the_deployment_add_ons_wait_for_the_system_nodes(p5):
    found = addons(p5)
    groups = p5.of_type(NODE_GROUP)
    system = {group.urn for group in groups if group.inputs["labels"].get("railyard.dev/pool") == "system"}
    assert system
    for group in groups:
        assert {found[name].urn for name in ("eks-pod-identity-agent", "vpc-cni", "kube-proxy")} <= set(group.dependencies)
    for name in ("coredns", "aws-ebs-csi-driver", "metrics-server", "eks-node-monitoring-agent"):
        assert system <= set(found[name].dependencies), name
    # The Pod Identity agent goes in before the add-ons whose roles it serves.
    assert found["eks-pod-identity-agent"].urn in found["vpc-cni"].dependencies


def test_the_ebs_driver_gets_a_role_only_pod_identity_can_assume_with_the_managed_policy(p5):
    driver = addons(p5)["aws-ebs-csi-driver"]
    [association] = driver.inputs["podIdentityAssociations"]
    assert association["serviceAccount"] == "ebs-csi-controller-sa"
    role = p5.named("p5-train-prod-addons-ebs-csi-role")
    trust = json.loads(role.inputs["assumeRolePolicy"])
    assert trust["Statement"] == [
        {"Effect": "Allow", "Principal": {"Service": "pods.eks.amazonaws.com"}, "Action": ["sts:AssumeRole", "sts:TagSession"]}
    ]
    attachment = p5.named("p5-train-prod-addons-ebs-csi-role-policy")
    assert attachment.inputs["policyArn"] == "arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy"
    assert association["roleArn"].endswith("p5-train-prod-addons-ebs-csi-role")


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_node_group_has_auto_repair(example):
    groups = preview_of(example).of_type(NODE_GROUP)
    assert groups and all(group.inputs["nodeRepairConfig"] == {"enabled": True} for group in groups)


def test_auto_repair_turned_off_is_sent_as_off_not_left_out(tmp_path):
    # nodeRepairConfig is optional and computed in the provider: a group that leaves it out keeps repair on (issue 41).
    write_stack(tmp_path, "norepair", "dev-g6e.yaml", "    kubernetes: {node_auto_repair: false}\n")
    groups = run_preview(None, "norepair", str(tmp_path)).of_type(NODE_GROUP)
    assert groups and [group.inputs["nodeRepairConfig"] for group in groups] == [{"enabled": False}] * len(groups)


def test_gp3_is_the_default_storage_class_encrypted_and_bound_in_the_pods_zone(p5):
    [storage_class] = p5.of_type("kubernetes:storage.k8s.io/v1:StorageClass")
    assert storage_class.inputs["metadata"] == {"name": "gp3", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}
    assert storage_class.inputs["provisioner"] == "ebs.csi.aws.com"
    assert storage_class.inputs["parameters"] == {"type": "gp3", "encrypted": "true"}
    assert storage_class.inputs["volumeBindingMode"] == "WaitForFirstConsumer"
