"""Infrastructure the blueprint says already exists, as the account has it.

An existing VPC's subnets, an existing FSx file system and existing buckets
are taken on the blueprint's word offline (their zones, CIDRs, DNS and mount
names drive placement and the volumes). Online they are read back:
DescribeVpcs, DescribeSubnets and DescribeFileSystems, and HeadBucket. Each
must exist and be what the blueprint says; a subnet must also have free
addresses for the nodes railyard places in it at their largest, which the
offline check can only count against the subnet's whole CIDR. A file
system's `security_group_id`, which railyard opens to the nodes, must exist in
the file system's VPC and be on its network interfaces
(DescribeSecurityGroups; DescribeNetworkInterfaces on the file system's
NetworkInterfaceIds), or the rules railyard adds open nothing that matters.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from blueprints.catalog import load_catalog
from blueprints.findings import Finding, Path, error, warning
from blueprints.models import Blueprint
from blueprints.models.metadata import ExistingVpc
from blueprints.models.storage import ExistingFileSystem, FsxLustre, S3Bucket
from railyard.online.account import Account, AccountError
from railyard.online.findings import account_finding
from topology.cluster import PlanError, plan_cluster

CODES = ("online.existing-missing", "online.existing-mismatch", "online.subnet-addresses")
# The fix `railyard explain` gives for a mismatch, whose hint each caller words for the field that differs.
EXPLAIN = {
    "online.existing-mismatch": {
        "fix": "make the blueprint say what the account has (the message quotes both), or point it at the resource you meant",
    },
}
VPC_MISSING = ("InvalidVpcID.NotFound", "InvalidVpcID.Malformed")
SUBNET_MISSING = ("InvalidSubnetID.NotFound", "InvalidSubnetID.Malformed")
GROUP_MISSING = ("InvalidGroup.NotFound", "InvalidGroupId.Malformed", "InvalidGroupId.NotFound")
BUCKET_MISSING = ("404", "NoSuchBucket", "NotFound")


def check_existing(blueprint: Blueprint, account: Account) -> list[Finding]:
    """Findings for each existing VPC, subnet, file system and bucket the blueprint names that the account doesn't have as stated."""
    findings: list[Finding] = []
    existing = blueprint.cloud.existing_vpc
    if existing is not None:
        findings += _vpc(existing, blueprint, account)
    for index, tier in enumerate(blueprint.storage):
        if isinstance(tier, FsxLustre) and tier.existing is not None:
            findings += _file_system(tier, index, existing, account)
        elif isinstance(tier, S3Bucket) and tier.existing and tier.bucket_name:
            findings += _bucket(tier.bucket_name, ("storage", index, "bucket_name"), account)
    return findings


def _missing(path: Path, what: str, region: str) -> Finding:
    return error("online.existing-missing", path, f"{what} does not exist in {region} for this account", "check the id and the region")


def _mismatch(path: Path, what: str, theirs: Any, ours: Any, fix: str) -> Finding:
    return error("online.existing-mismatch", path, f"{what} is {theirs} in the account, but the blueprint says {ours}", fix)


def _vpc(existing: ExistingVpc, blueprint: Blueprint, account: Account) -> Iterable[Finding]:
    where: Path = ("cloud", "existing_vpc", "id")
    try:
        vpcs = account.call("ec2", "DescribeVpcs", VpcIds=[existing.id]).get("Vpcs", [])
    except AccountError as exc:
        if exc.code not in VPC_MISSING:
            yield account_finding(exc, where, "the existing VPC was not checked")
            return
        vpcs = []
    if not vpcs:
        yield _missing(where, f"VPC {existing.id}", account.region)
        return
    blocks = sorted({association["CidrBlock"] for association in vpcs[0].get("CidrBlockAssociationSet", [])} | {vpcs[0].get("CidrBlock", "")} - {""})
    if str(blueprint.cloud.vpc_cidr) not in blocks:
        yield _mismatch(("cloud", "vpc_cidr"), f"VPC {existing.id}'s address space", blocks, blueprint.cloud.vpc_cidr, f"set vpc_cidr: {blocks[0]}")
    yield from _subnets(existing, blueprint, account)


def _subnets(existing: ExistingVpc, blueprint: Blueprint, account: Account) -> Iterable[Finding]:
    ids = [subnet.id for subnet in existing.subnets]
    found: dict[str, dict[str, Any]] = {}
    for subnet_id in ids:  # one call each: a single missing id fails a whole batch
        try:
            found.update({item["SubnetId"]: item for item in account.call("ec2", "DescribeSubnets", SubnetIds=[subnet_id]).get("Subnets", [])})
        except AccountError as exc:
            if exc.code not in SUBNET_MISSING:
                yield account_finding(exc, ("cloud", "existing_vpc", "subnets"), "the existing subnets were not checked")
                return
    needed = _addresses_needed(blueprint)
    for index, subnet in enumerate(existing.subnets):
        path: Path = ("cloud", "existing_vpc", "subnets", index)
        actual = found.get(subnet.id)
        if actual is None:
            yield _missing((*path, "id"), f"subnet {subnet.id}", account.region)
            continue
        for field, theirs, ours in (
            ("id", actual.get("VpcId"), existing.id),
            ("availability_zone", actual.get("AvailabilityZoneId" if blueprint.cloud.zones_by_id else "AvailabilityZone"), subnet.availability_zone),
            ("cidr", actual.get("CidrBlock"), str(subnet.cidr)),
        ):
            if theirs != ours:
                what = f"subnet {subnet.id}'s {'VPC' if field == 'id' else field.replace('_', ' ')}"
                yield _mismatch((*path, field), what, theirs, ours, f"list a subnet of {existing.id}" if field == "id" else f"set {field}: {theirs}")
        free = int(actual.get("AvailableIpAddressCount", 0))
        if needed.get(subnet.id, 0) > free:
            yield warning(
                "online.subnet-addresses",
                (*path, "cidr"),
                f"subnet {subnet.id} has {free} free addresses, but the nodes railyard places in it take {needed[subnet.id]} at their largest",
                "free addresses in it, list a larger subnet, or hold fewer addresses per node (kubernetes.pod_networking)",
                free=free,
                needed=needed[subnet.id],
            )


def _addresses_needed(blueprint: Blueprint) -> dict[str, int]:
    """Addresses the planned nodes take in each existing subnet at their largest (none when the plan fails offline)."""
    try:
        plan = plan_cluster(blueprint, load_catalog())
    except PlanError:
        return {}
    needed: dict[str, int] = {}
    for subnet in plan.subnets:
        if subnet.existing_id is not None:
            needed[subnet.existing_id] = needed.get(subnet.existing_id, 0) + subnet.addresses
    return needed


def _file_system(tier: FsxLustre, index: int, existing_vpc: ExistingVpc | None, account: Account) -> Iterable[Finding]:
    assert tier.existing is not None
    stated = tier.existing
    path: Path = ("storage", index, "existing")
    try:
        systems = account.call("fsx", "DescribeFileSystems", FileSystemIds=[stated.id]).get("FileSystems", [])
    except AccountError as exc:
        if exc.code != "FileSystemNotFound":
            yield account_finding(exc, path, f"file system {stated.id} was not checked")
            return
        systems = []
    if not systems:
        yield _missing((*path, "id"), f"FSx file system {stated.id}", account.region)
        return
    actual = systems[0]
    if actual.get("FileSystemType") not in (None, "LUSTRE"):
        yield _mismatch((*path, "id"), f"{stated.id}'s type", actual["FileSystemType"], "LUSTRE", "name a Lustre file system")
    if actual.get("DNSName") not in (None, stated.dns_name):
        yield _mismatch((*path, "dns_name"), f"{stated.id}'s DNS name", actual["DNSName"], stated.dns_name, f"set dns_name: {actual['DNSName']}")
    mount = (actual.get("LustreConfiguration") or {}).get("MountName")
    if mount is not None and mount != stated.mount_name:
        yield _mismatch((*path, "mount_name"), f"{stated.id}'s mount name", mount, stated.mount_name, f"set mount_name: {mount}")
    if actual.get("StorageCapacity") not in (None, tier.capacity_gib):
        where: Path = ("storage", index, "capacity_gib")
        yield _mismatch(
            where, f"{stated.id}'s capacity (GiB)", actual["StorageCapacity"], tier.capacity_gib, f"set capacity_gib: {actual['StorageCapacity']}"
        )
    if existing_vpc is not None and actual.get("VpcId") not in (None, existing_vpc.id):
        yield _mismatch(
            (*path, "id"), f"{stated.id}'s VPC", actual["VpcId"], existing_vpc.id, "mount a file system in the cluster's VPC, or peer them"
        )
    yield from _file_system_group(stated, actual, path, account)


def _file_system_group(stated: ExistingFileSystem, actual: dict[str, Any], path: Path, account: Account) -> Iterable[Finding]:
    """The stated security group exists, in the file system's VPC, on the file system's network interfaces."""
    where: Path = (*path, "security_group_id")
    group = stated.security_group_id
    try:
        groups = account.call("ec2", "DescribeSecurityGroups", GroupIds=[group]).get("SecurityGroups", [])
    except AccountError as exc:
        if exc.code not in GROUP_MISSING:
            yield account_finding(exc, where, f"security group {group} was not checked")
            return
        groups = []
    if not groups:
        yield _missing(where, f"security group {group}", account.region)
        return
    if actual.get("VpcId") not in (None, groups[0].get("VpcId")):
        theirs, ours = groups[0].get("VpcId"), f"{actual['VpcId']} ({stated.id}'s)"
        yield _mismatch(where, f"{group}'s VPC", theirs, ours, "name a group of the file system's VPC")
        return
    interfaces = actual.get("NetworkInterfaceIds") or []
    if not interfaces:
        return
    try:
        found = account.call("ec2", "DescribeNetworkInterfaces", NetworkInterfaceIds=interfaces).get("NetworkInterfaces", [])
    except AccountError as exc:
        yield account_finding(exc, where, f"the security groups on {stated.id}'s network interfaces were not checked")
        return
    attached = sorted({item["GroupId"] for interface in found for item in interface.get("Groups", [])})
    if group not in attached:
        yield _mismatch(
            where,
            f"the set of security groups on {stated.id}'s network interfaces",
            attached,
            f"to include {group}",
            f"set security_group_id to one of {attached}",
        )


def _bucket(bucket: str, path: Path, account: Account) -> Iterable[Finding]:
    try:
        account.call("s3", "HeadBucket", Bucket=bucket)
    except AccountError as exc:
        if exc.code in BUCKET_MISSING:
            yield _missing(path, f"S3 bucket {bucket}", "S3")
        elif exc.code in ("403", "Forbidden"):
            yield error(
                "online.existing-missing",
                path,
                f"S3 bucket {bucket} exists but this identity can't list it: another account owns it, or s3:ListBucket is not granted",
                "name a bucket of this account, or grant s3:ListBucket on it",
            )
        else:
            yield account_finding(exc, path, f"bucket {bucket} was not checked")
