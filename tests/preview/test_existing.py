"""Infrastructure a team already has: railyard places nodes in its VPC's subnets, mounts its file system, links its
bucket, and creates none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from railyard.mocked import run_preview
from railyard.pipeline import validate
from tests.preview.conftest import AT, ROOT, preview_of
from tests.yaml_text import line_of, replace_once

EXAMPLE = ROOT / "blueprints" / "examples" / "existing-infrastructure.yaml"
TEXT = EXAMPLE.read_text()
SUBNETS = {"us-east-2a": "subnet-0a1b2c3d4e5f60001", "us-east-2b": "subnet-0a1b2c3d4e5f60002"}
NOT_MADE = (
    "aws:ec2/vpc:Vpc",
    "aws:ec2/subnet:Subnet",
    "aws:ec2/internetGateway:InternetGateway",
    "aws:ec2/natGateway:NatGateway",
    "aws:ec2/eip:Eip",
    "aws:ec2/routeTable:RouteTable",
    "aws:ec2/vpcEndpoint:VpcEndpoint",
    "aws:ec2/flowLog:FlowLog",
    "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup",
    "aws:fsx/lustreFileSystem:LustreFileSystem",
    "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation",
    "aws:s3/bucket:Bucket",
)


@pytest.fixture(scope="module")
def existing():
    result = preview_of("existing-infrastructure")
    assert result.ok, [finding.message for finding in result.findings if finding.is_error]
    return result


@pytest.mark.parametrize("resource_type", NOT_MADE)
def test_no_network_file_system_or_bucket_is_created(existing, resource_type):
    assert existing.of_type(resource_type) == []


def test_the_cluster_and_every_node_group_use_the_existing_subnets(existing):
    [cluster] = existing.of_type("aws:eks/cluster:Cluster")
    assert cluster.inputs["vpcConfig"]["subnetIds"] == list(SUBNETS.values())
    groups = {group.inputs["nodeGroupName"]: group.inputs["subnetIds"] for group in existing.of_type("aws:eks/nodeGroup:NodeGroup")}
    assert groups == {"system": list(SUBNETS.values()), "train-use2a": [SUBNETS["us-east-2a"]]}


def test_the_efa_security_group_is_made_in_the_existing_vpc(existing):
    [group] = [g for g in existing.of_type("aws:ec2/securityGroup:SecurityGroup") if g.name.endswith("-efa")]
    assert group.inputs["vpcId"] == "vpc-0a1b2c3d4e5f67890"


def test_the_existing_file_system_is_mounted_by_its_id(existing):
    assert existing.outputs["fileSystems"]["lustre"] == {
        "id": "fs-0a1b2c3d4e5f60718",
        "dnsName": "fs-0a1b2c3d4e5f60718.fsx.us-east-2.amazonaws.com",
        "mountName": "abcdefgh",
        "mountPath": "/fsx",
    }
    [volume] = [r for r in existing.resources if r.type == "kubernetes:core/v1:PersistentVolume"]
    assert volume.inputs["spec"]["csi"]["volumeHandle"] == "fs-0a1b2c3d4e5f60718"


def test_the_existing_file_systems_group_and_the_nodes_admit_each_other_on_the_lustre_ports(existing):
    """The path railyard makes for its own file systems (FSx guide: 988 and 1018-1023 both ways), on the team's group."""
    [cluster] = existing.of_type("aws:eks/cluster:Cluster")
    nodes, team = cluster.outputs["vpcConfig"]["clusterSecurityGroupId"], "sg-0a1b2c3d4e5f60719"
    lustre = {(988, 988), (1018, 1023)}

    def rules(kind: str, on: str, peer: str) -> set[tuple[int, int]]:
        found = [r for r in existing.of_type(kind) if r.inputs["securityGroupId"] == on and r.inputs.get("referencedSecurityGroupId") == peer]
        assert all(r.inputs["ipProtocol"] == "tcp" for r in found)
        return {(r.inputs["fromPort"], r.inputs["toPort"]) for r in found}

    assert rules("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", team, nodes) == lustre
    assert rules("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", team, nodes) == lustre
    assert rules("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", nodes, team) == lustre


def test_an_existing_file_system_without_its_security_group_is_a_schema_error_at_existing(tmp_path: Path):
    text = replace_once(TEXT, "      security_group_id: sg-0a1b2c3d4e5f60719", "     ")
    path = tmp_path / "b.yaml"
    path.write_text(text)
    (finding,) = [f for f in validate(str(path)).findings if f.is_error]
    assert finding.code.startswith("schema.") and "security_group_id" in finding.message


def test_the_quota_plan_counts_no_vpc_subnet_or_nat_of_its_own():
    codes = {need.code for need in validate(str(EXAMPLE)).quotas}
    assert not codes & {"L-F678F1CE", "L-407747CB", "L-83CA0A9D", "L-FE5A380F", "L-0263D0A3", "L-8F1B9C74"}


def test_a_subnet_too_small_for_its_zones_nodes_is_refused_at_its_cidr(tmp_path: Path):
    path = tmp_path / "small.yaml"
    path.write_text(replace_once(TEXT, "cidr: 10.0.0.0/19}", "cidr: 10.0.0.0/26}"))
    [finding] = [f for f in validate(str(path)).findings if f.code == "compile.plan"]
    assert finding.path == ("cloud", "existing_vpc", "subnets", 0, "cidr") and finding.line == line_of(TEXT, "10.0.0.0/19")
    assert "subnet-0a1b2c3d4e5f60001 (10.0.0.0/26) holds 59 addresses" in finding.message
    assert not run_preview(str(path), at=AT).resources


def errors(text: str, tmp_path: Path) -> list[tuple[str, str]]:
    path = tmp_path / "b.yaml"
    path.write_text(text)
    return sorted(
        (f.code, f.path_text) for f in validate(str(path)).findings if f.severity in ("error", "warning") and not f.code.startswith("quota")
    )


def test_a_zone_without_a_subnet_and_a_subnet_outside_the_zones_are_refused(tmp_path):
    text = replace_once(TEXT, "availability_zone: us-east-2b, cidr", "availability_zone: us-east-2c, cidr")
    assert errors(text, tmp_path) == [
        ("network.existing-subnet-missing", "cloud.existing_vpc.subnets"),
        ("network.existing-subnet-zone", "cloud.existing_vpc.subnets[1].availability_zone"),
    ]


def test_custom_networking_in_an_existing_vpc_is_refused(tmp_path):
    text = replace_once(
        TEXT, "  layer_stack: separate\n", "  layer_stack: separate\n  pod_networking: {mode: custom_networking, pod_cidrs: [100.64.0.0/16]}\n"
    )
    assert ("network.existing-vpc-custom-networking", "kubernetes.pod_networking.mode") in errors(text, tmp_path)


def test_data_repositories_on_an_existing_file_system_and_an_unnamed_existing_bucket_are_refused(tmp_path):
    text = replace_once(
        TEXT, "    mount_path: /fsx\n", "    mount_path: /fsx\n    data_repositories:\n      - {bucket: datasets, file_system_path: /d}\n"
    )
    text = replace_once(text, "    bucket_name: acme-ml-datasets\n", "")
    found = errors(text, tmp_path)
    assert ("fsx.existing-with-repositories", "storage[0].data_repositories") in found
    assert ("storage.existing-bucket-name", "storage[1].existing") in found


def test_a_pool_mounting_an_existing_file_system_from_another_zone_is_warned(tmp_path):
    text = replace_once(TEXT, "      availability_zone: us-east-2a\n  - kind: s3", "      availability_zone: us-east-2b\n  - kind: s3")
    assert ("fsx.existing-cross-zone", "pools[0].storage") in errors(text, tmp_path)


def test_the_node_role_gets_the_blueprints_extra_policies_beside_railyards(existing):
    attached = {r.inputs["policyArn"] for r in existing.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment") if "-node-role-" in r.name}
    assert attached == {
        "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
        "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
        "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
        "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
    }


def test_a_policy_of_another_partition_is_refused(tmp_path):
    text = replace_once(TEXT, "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore", "arn:aws-cn:iam::aws:policy/AmazonSSMManagedInstanceCore")
    assert ("cloud.policy-partition", "kubernetes.node_iam_policies[0]") in errors(text, tmp_path)
