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
    fs = session.client("fsx").create_file_system(FileSystemType="LUSTRE", StorageCapacity=9600, SubnetIds=[a], LustreConfiguration=lustre)
    session.client("s3").create_bucket(Bucket="acme-ml-datasets", CreateBucketConfiguration={"LocationConstraint": "us-east-2"})
    return {"vpc": vpc, "a": a, "b": b, "fs": fs["FileSystem"]["FileSystemId"]}


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
