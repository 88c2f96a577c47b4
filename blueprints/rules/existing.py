"""Infrastructure the team already has: an existing VPC's subnets, file systems and buckets, as railyard can check them offline.

railyard places nodes in an existing VPC's subnets, mounts an existing FSx
file system and links existing buckets, and creates none of them, so what it
would have decided must be stated and must agree: one private subnet per
zone the cluster spans, nothing railyard would have to create inside a VPC it
doesn't own (custom networking's secondary blocks and pod subnets), no data
repository associations on a file system it doesn't own, and a name for each
existing bucket. Whether the ids exist, and what their security groups
allow, only the account can say (`validate --online` reads names and
reservations; docs/online.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, error, warning
from blueprints.models.storage import FsxLustre, S3Bucket
from blueprints.rules.context import Context

CODES = (
    "network.existing-subnet-zone",
    "network.existing-subnet-missing",
    "network.existing-vpc-custom-networking",
    "fsx.existing-with-repositories",
    "fsx.existing-cross-zone",
    "storage.existing-bucket-name",
)


def check(ctx: Context) -> Iterable[Finding]:
    """The existing VPC's subnets cover the cluster's zones once each; existing file systems and buckets are usable as stated."""
    yield from _vpc(ctx)
    yield from _storage(ctx)


def _vpc(ctx: Context) -> Iterable[Finding]:
    cloud = ctx.blueprint.cloud
    existing = cloud.existing_vpc
    if existing is None:
        return
    zones = list(cloud.availability_zones)
    seen: dict[str, int] = {}
    for index, subnet in enumerate(existing.subnets):
        where = ("cloud", "existing_vpc", "subnets", index, "availability_zone")
        if subnet.availability_zone not in zones:
            yield error(
                "network.existing-subnet-zone",
                where,
                f"subnet {subnet.id} is in {subnet.availability_zone}, which is not one of cloud.availability_zones {zones}",
                "add the zone to availability_zones, or list a subnet of one of them",
            )
        elif subnet.availability_zone in seen:
            yield error(
                "network.existing-subnet-zone",
                where,
                f"subnets {existing.subnets[seen[subnet.availability_zone]].id} and {subnet.id} are both in {subnet.availability_zone}; "
                "railyard places a zone's nodes in one subnet",
                "list one private subnet per zone",
            )
        seen.setdefault(subnet.availability_zone, index)
    for zone in zones:
        if zone not in seen:
            yield error(
                "network.existing-subnet-missing",
                ("cloud", "existing_vpc", "subnets"),
                f"no subnet is listed for {zone}, one of cloud.availability_zones (EKS and the system nodes use every zone)",
                f"add {{id: subnet-..., availability_zone: {zone}, cidr: ...}}",
            )
    if ctx.blueprint.kubernetes.pod_networking.mode == "custom_networking":
        yield error(
            "network.existing-vpc-custom-networking",
            ("kubernetes", "pod_networking", "mode"),
            "custom_networking adds CIDR blocks and pod subnets to the VPC, and railyard doesn't change a VPC it doesn't own",
            "use secondary_ips or prefix_delegation, or let railyard create the VPC",
        )


def _storage(ctx: Context) -> Iterable[Finding]:
    for index, tier in enumerate(ctx.blueprint.storage):
        if isinstance(tier, S3Bucket) and tier.existing and not tier.bucket_name:
            yield error(
                "storage.existing-bucket-name",
                ("storage", index, "existing"),
                f"storage tier '{tier.name}' is an existing bucket but names none",
                "set bucket_name to the bucket's name",
            )
        if not isinstance(tier, FsxLustre) or tier.existing is None:
            continue
        if tier.data_repositories:
            yield error(
                "fsx.existing-with-repositories",
                ("storage", index, "data_repositories"),
                f"'{tier.name}' is an existing file system; railyard doesn't add data repository associations to a file system it doesn't own",
                "link the buckets on the file system itself, or drop data_repositories",
            )
        for pool_index, pool in enumerate(ctx.blueprint.pools):
            if any(use.tier == tier.name for use in pool.storage):
                others = [zone.availability_zone for zone in ctx.pool_zones(pool) if zone.availability_zone != tier.existing.availability_zone]
                if others:
                    yield warning(
                        "fsx.existing-cross-zone",
                        ("pools", pool_index, "storage"),
                        f"pool '{pool.name}' mounts '{tier.name}' from {others}, but the file system is in {tier.existing.availability_zone}: "
                        "Lustre traffic crosses zones (latency, and data-transfer charges)",
                        "place the pool in the file system's zone, or use a file system there",
                    )
