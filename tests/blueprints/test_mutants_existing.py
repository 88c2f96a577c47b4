"""The existing-infrastructure rule (`blueprints/rules/existing.py`): an existing VPC's subnets cover the cluster's
zones once each, and existing file systems and buckets are usable as stated. Exact code, path, message and hint;
both halves of each condition."""

from __future__ import annotations

from tests.blueprints.base import BASE, load, mutate

A = "      - {id: subnet-0a1b2c3d4e5f60001, availability_zone: us-east-1a, cidr: 10.0.0.0/19}\n"
B = "      - {id: subnet-0a1b2c3d4e5f60002, availability_zone: us-east-1b, cidr: 10.0.32.0/19}\n"
FS = (
    "    existing:\n      id: fs-0a1b2c3d4e5f60718\n      dns_name: fs-0a1b2c3d4e5f60718.fsx.us-east-1.amazonaws.com\n"
    "      mount_name: abcdefgh\n      security_group_id: sg-0a1b2c3d4e5f60719\n      availability_zone: {zone}\n"
)


def _found(text: str, code: str) -> list[tuple[str, tuple[object, ...], str, str]]:
    return [(finding.severity, finding.path, finding.message, finding.hint) for finding in load(text).findings if finding.code == code]


def _vpc(*subnets: str) -> str:
    return mutate(
        "  vpc_cidr: 10.0.0.0/16\n", "  vpc_cidr: 10.0.0.0/16\n  existing_vpc:\n    id: vpc-0a1b2c3d4e5f67890\n    subnets:\n" + "".join(subnets)
    )


def test_one_subnet_per_zone_has_no_findings() -> None:
    codes = [finding.code for finding in load(_vpc(A, B)).findings if finding.code.startswith("network.existing")]
    assert codes == []


def test_a_subnet_outside_the_clusters_zones_is_refused() -> None:
    other = B.replace("us-east-1b", "us-east-1c")
    found = _found(_vpc(A, other), "network.existing-subnet-zone")
    assert found == [
        (
            "error",
            ("cloud", "existing_vpc", "subnets", 1, "availability_zone"),
            "subnet subnet-0a1b2c3d4e5f60002 is in us-east-1c, which is not one of cloud.availability_zones ['us-east-1a', 'us-east-1b']",
            "add the zone to availability_zones, or list a subnet of one of them",
        )
    ]


def test_two_subnets_in_one_zone_are_refused_and_the_other_zone_is_missing() -> None:
    second = A.replace("60001", "60003").replace("10.0.0.0/19", "10.0.64.0/19")
    text = _vpc(A, second)
    assert _found(text, "network.existing-subnet-zone") == [
        (
            "error",
            ("cloud", "existing_vpc", "subnets", 1, "availability_zone"),
            "subnets subnet-0a1b2c3d4e5f60001 and subnet-0a1b2c3d4e5f60003 are both in us-east-1a; railyard places a zone's nodes in one subnet",
            "list one private subnet per zone",
        )
    ]
    assert _found(text, "network.existing-subnet-missing") == [
        (
            "error",
            ("cloud", "existing_vpc", "subnets"),
            "no subnet is listed for us-east-1b, one of cloud.availability_zones (EKS and the system nodes use every zone)",
            "add {id: subnet-..., availability_zone: us-east-1b, cidr: ...}",
        )
    ]


def test_custom_networking_in_an_existing_vpc_is_refused_and_without_one_is_not() -> None:
    custom = "  layer_stack: separate\n  pod_networking: {mode: custom_networking, pod_cidrs: [100.64.0.0/16]}\n"
    assert _found(_vpc(A, B).replace("  layer_stack: separate\n", custom), "network.existing-vpc-custom-networking") == [
        (
            "error",
            ("kubernetes", "pod_networking", "mode"),
            "custom_networking adds CIDR blocks and pod subnets to the VPC, and railyard doesn't change a VPC it doesn't own",
            "use secondary_ips or prefix_delegation, or let railyard create the VPC",
        )
    ]
    assert _found(BASE.replace("  layer_stack: separate\n", custom), "network.existing-vpc-custom-networking") == []


def test_an_existing_bucket_without_a_name_is_refused() -> None:
    assert _found(mutate("  - kind: s3\n    name: data\n", "  - kind: s3\n    name: data\n    existing: true\n"), "storage.existing-bucket-name") == [
        ("error", ("storage", 1, "existing"), "storage tier 'data' is an existing bucket but names none", "set bucket_name to the bucket's name")
    ]
    named = mutate("  - kind: s3\n    name: data\n", "  - kind: s3\n    name: data\n    existing: true\n    bucket_name: acme-data\n")
    assert _found(named, "storage.existing-bucket-name") == []


def _existing_fs(zone: str, repositories: bool = False) -> str:
    text = mutate("    metadata: {mode: automatic}\n", "    metadata: {mode: automatic}\n" + FS.format(zone=zone))
    if not repositories:
        text = text.replace("    data_repositories:\n      - bucket: data\n        file_system_path: /data\n", "")
    return text


def test_an_existing_file_system_with_repositories_is_refused() -> None:
    assert _found(_existing_fs("us-east-1a", repositories=True), "fsx.existing-with-repositories") == [
        (
            "error",
            ("storage", 0, "data_repositories"),
            "'lustre' is an existing file system; railyard doesn't add data repository associations to a file system it doesn't own",
            "link the buckets on the file system itself, or drop data_repositories",
        )
    ]
    assert _found(_existing_fs("us-east-1a"), "fsx.existing-with-repositories") == []


def test_a_pool_mounting_an_existing_file_system_from_another_zone_is_warned() -> None:
    assert _found(_existing_fs("us-east-1b"), "fsx.existing-cross-zone") == [
        (
            "warning",
            ("pools", 0, "storage"),
            "pool 'train' mounts 'lustre' from ['us-east-1a'], but the file system is in us-east-1b: Lustre traffic crosses zones "
            "(latency, and data-transfer charges)",
            "place the pool in the file system's zone, or use a file system there",
        )
    ]
    assert _found(_existing_fs("us-east-1a"), "fsx.existing-cross-zone") == []
