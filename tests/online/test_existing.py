"""`validate --online` reads back the VPC, subnets, file system and bucket a blueprint says exist (moto)."""

from __future__ import annotations

from pathlib import Path

import pytest

from railyard.online import validate_online
from railyard.pipeline import validate
from tests.online.conftest import ROOT, added
from tests.online.moto_account import MotoAccount

EXAMPLE = (ROOT / "blueprints" / "examples" / "existing-infrastructure.yaml").read_text()
STATED = {
    "vpc": "vpc-0a1b2c3d4e5f67890",
    "a": "subnet-0a1b2c3d4e5f60001",
    "b": "subnet-0a1b2c3d4e5f60002",
    "fs": "fs-0a1b2c3d4e5f60718",
    "sg": "sg-0a1b2c3d4e5f60719",
}


@pytest.fixture
def built(us_east_2: MotoAccount) -> dict[str, str]:
    """The example's VPC, subnets, file system and bucket, made in moto's us-east-2: their real ids."""
    session = us_east_2.session()
    ec2 = session.client("ec2")
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    a = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.0.0/19", AvailabilityZone="us-east-2a")["Subnet"]["SubnetId"]
    b = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.32.0/19", AvailabilityZone="us-east-2b")["Subnet"]["SubnetId"]
    lustre = {"DeploymentType": "PERSISTENT_2", "PerUnitStorageThroughput": 250}
    group = ec2.create_security_group(GroupName="fsx-lustre", Description="FSx for Lustre", VpcId=vpc)["GroupId"]
    fsx = session.client("fsx")
    fs = fsx.create_file_system(FileSystemType="LUSTRE", StorageCapacity=9600, SubnetIds=[a], SecurityGroupIds=[group], LustreConfiguration=lustre)
    session.client("s3").create_bucket(Bucket="acme-ml-datasets", CreateBucketConfiguration={"LocationConstraint": "us-east-2"})
    return {"vpc": vpc, "a": a, "b": b, "fs": fs["FileSystem"]["FileSystemId"], "sg": group}


def blueprint(tmp_path: Path, ids: dict[str, str], text: str = EXAMPLE) -> str:
    """The example with the stated ids replaced by `ids` (and the file system's DNS name with its id)."""
    for key, stated in STATED.items():
        text = text.replace(stated, ids.get(key, stated))
    path = tmp_path / "existing.yaml"
    path.write_text(text)
    return str(path)


def online_codes(path: str, account: MotoAccount) -> list[tuple[str, str, str]]:
    offline = validate(path)
    assert offline.ok, [f.message for f in offline.findings if f.is_error]
    online = validate_online(offline, session=account.session())
    assert "existing" in online.online.checks
    return [found for found in added(offline, online) if found[0].startswith(("online.existing", "online.subnet"))]


def test_what_exists_as_stated_gains_no_finding(us_east_2, built, tmp_path):
    assert online_codes(blueprint(tmp_path, built), us_east_2) == []


def test_a_vpc_subnets_file_system_and_bucket_that_do_not_exist_are_errors_at_their_ids(us_east_2, tmp_path):
    text = EXAMPLE.replace("bucket_name: acme-ml-datasets", "bucket_name: acme-ml-nowhere")
    assert online_codes(blueprint(tmp_path, {}, text), us_east_2) == [
        ("online.existing-missing", "error", "cloud.existing_vpc.id"),
        ("online.existing-missing", "error", "storage[0].existing.id"),
        ("online.existing-missing", "error", "storage[1].bucket_name"),
    ]


def test_subnets_listed_in_each_others_zones_are_mismatches_with_the_accounts_values(us_east_2, built, tmp_path):
    swapped = {**built, "a": built["b"], "b": built["a"]}
    found = online_codes(blueprint(tmp_path, swapped), us_east_2)
    assert ("online.existing-mismatch", "error", "cloud.existing_vpc.subnets[0].availability_zone") in found
    assert ("online.existing-mismatch", "error", "cloud.existing_vpc.subnets[0].cidr") in found
    assert ("online.existing-mismatch", "error", "cloud.existing_vpc.subnets[1].availability_zone") in found


def test_a_subnet_whose_addresses_others_already_use_warns_before_the_nodes_run_out(us_east_2, built, tmp_path):
    # Another team's interfaces hold 7,000 of the /19's 8,187 free addresses; the example's nodes take about 1,300.
    us_east_2.session().client("ec2").create_network_interface(SubnetId=built["a"], SecondaryPrivateIpAddressCount=7000)
    found = online_codes(blueprint(tmp_path, built), us_east_2)
    assert found == [("online.subnet-addresses", "warning", "cloud.existing_vpc.subnets[0].cidr")]


def test_a_file_system_of_another_size_and_dns_name_is_a_mismatch(us_east_2, built, tmp_path):
    text = EXAMPLE.replace("capacity_gib: 9600", "capacity_gib: 12000")
    path = blueprint(tmp_path, built, text)
    # The DNS name the blueprint states (from the placeholder id) is not the file system's.
    Path(path).write_text(Path(path).read_text().replace(f"dns_name: {built['fs']}", f"dns_name: {STATED['fs']}"))
    found = online_codes(path, us_east_2)
    assert ("online.existing-mismatch", "error", "storage[0].capacity_gib") in found
    assert ("online.existing-mismatch", "error", "storage[0].existing.dns_name") in found


@pytest.fixture
def described_as_aws_does(monkeypatch, us_east_2, built):
    """DescribeFileSystems as AWS answers it, with VpcId and NetworkInterfaceIds (moto 5.2.5 leaves both out).

    The file system's interface is made in moto, in its subnet, with the group the file system was created with, as FSx makes it.
    """
    from moto.fsx.models import FileSystem

    ec2 = us_east_2.session().client("ec2")
    interface = ec2.create_network_interface(SubnetId=built["a"], Groups=[built["sg"]])["NetworkInterface"]["NetworkInterfaceId"]
    described = FileSystem.to_dict
    monkeypatch.setattr(FileSystem, "to_dict", lambda self: {**described(self), "VpcId": built["vpc"], "NetworkInterfaceIds": [interface]})


def test_the_file_systems_own_group_passes(us_east_2, built, tmp_path, described_as_aws_does):
    assert online_codes(blueprint(tmp_path, built), us_east_2) == []


def test_a_file_system_group_that_does_not_exist_or_sits_in_another_vpc_is_an_error_at_security_group_id(
    us_east_2, built, tmp_path, described_as_aws_does
):
    missing = online_codes(blueprint(tmp_path, {**built, "sg": "sg-0fedcba9876543210"}), us_east_2)
    assert missing == [("online.existing-missing", "error", "storage[0].existing.security_group_id")]
    ec2 = us_east_2.session().client("ec2")
    other_vpc = ec2.create_vpc(CidrBlock="10.9.0.0/16")["Vpc"]["VpcId"]
    elsewhere = ec2.create_security_group(GroupName="elsewhere", Description="another VPC", VpcId=other_vpc)["GroupId"]
    found = online_codes(blueprint(tmp_path, {**built, "sg": elsewhere}), us_east_2)
    assert found == [("online.existing-mismatch", "error", "storage[0].existing.security_group_id")]


def test_a_group_of_the_vpc_that_is_not_on_the_file_systems_interfaces_is_a_mismatch(us_east_2, built, tmp_path, described_as_aws_does):
    ec2 = us_east_2.session().client("ec2")
    bystander = ec2.create_security_group(GroupName="bystander", Description="not on the file system", VpcId=built["vpc"])["GroupId"]
    found = online_codes(blueprint(tmp_path, {**built, "sg": bystander}), us_east_2)
    assert found == [("online.existing-mismatch", "error", "storage[0].existing.security_group_id")]
