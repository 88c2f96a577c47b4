"""The region and zones are ones AWS has, and ARNs are in its partition: from botocore's endpoint data and moto's zones.

A region name of the right shape (`eu-central-3`) passes the schema but fails
the first API call; a zone letter a region doesn't have (`us-east-2d`,
`ap-northeast-1b` for new accounts) fails when the subnet is created. Regions
are checked against every partition botocore knows; zones against the zone
names or zone ids moto records for the region (`blueprints/catalog/regions.py`).
A region moto has no zones for (a new or isolated one) has its zones left
unchecked.

A failure domain may be a Local Zone of the region (`us-east-1-dfw-2a`), held to the
Local Zones railyard knows (`blueprints/catalog/local_zones.yaml`, from AWS's list);
its name and id stand for each other in every account, so either form fits any
blueprint.

Zones are named one way throughout a blueprint: by name (`us-east-1a`) or by
id (`use1-az4`). Which id a name stands for differs in each account, so a
blueprint that mixes them can't be checked offline (is the Capacity Block's
`use1-az4` the pool's `us-east-1a`?): that is an error at the first zone
written the other way.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from blueprints.catalog.local_zones import load_local_zones
from blueprints.catalog.regions import load_regions
from blueprints.findings import Finding, Path, error
from blueprints.models.base import is_local_zone, is_zone_id
from blueprints.models.capacity import CapacityBlock, CapacityReservation, ReservationGroup
from blueprints.models.storage import FsxLustre
from blueprints.rules.context import Context

CODES = ("cloud.unknown-region", "cloud.unknown-zone", "cloud.policy-partition", "cloud.zone-forms-mixed", "cloud.unknown-local-zone")


def check(ctx: Context) -> Iterable[Finding]:
    """The region against botocore's partitions, and every zone the blueprint names against that region's."""
    regions = load_regions()
    cloud = ctx.blueprint.cloud
    if not regions.knows(cloud.region):
        close = difflib.get_close_matches(cloud.region, regions.names(), n=3)
        yield error(
            "cloud.unknown-region",
            ("cloud", "region"),
            f"region '{cloud.region}' is not one AWS has (botocore's endpoint data)" + (f"; did you mean {', '.join(close)}?" if close else ""),
            "use a region from `aws ec2 describe-regions`, such as us-east-1",
        )
        return
    yield from _policy_partitions(ctx, regions.partition_of(cloud.region))
    named = list(zone_references(ctx))
    yield from _local_zones(cloud.region, [(path, zone) for path, zone in named if is_local_zone(zone)])
    # A Local Zone's name and id stand for each other in every account (blueprints/catalog/local_zones.yaml): either form fits.
    named = [(path, zone) for path, zone in named if not is_local_zone(zone)]
    by_id = is_zone_id(cloud.availability_zones[0])
    mixed = [(path, zone) for path, zone in named if is_zone_id(zone) != by_id]
    if mixed:
        path, zone = mixed[0]
        form, other = ("zone ids", "a zone name") if by_id else ("zone names", "a zone id")
        yield error(
            "cloud.zone-forms-mixed",
            path,
            f"'{zone}' is {other}, but cloud.availability_zones uses {form}; which id a name stands for differs in each "
            "account, so railyard can't compare them",
            f"write every zone as {'an id (use1-az4)' if by_id else 'a name (us-east-1a)'}: `aws ec2 describe-availability-zones` "
            "lists both for your account",
        )
        return
    known = (regions.zone_ids if by_id else regions.zones).get(cloud.region)
    if not known:
        return
    for path, zone in named:
        # A name of another region is another rule's error (cloud.zone-outside-region, the domain's zone not the VPC's).
        if zone not in known and (by_id or zone.startswith(cloud.region)):
            yield error(
                "cloud.unknown-zone",
                path,
                f"availability zone {'id ' if by_id else ''}'{zone}' does not exist in {cloud.region}, whose zone{' id' if by_id else ''}s "
                f"are {', '.join(known)}",
                f"use one of {', '.join(known)}",
            )


def _local_zones(region: str, named: list[tuple[Path, str]]) -> Iterable[Finding]:
    """Each Local Zone the blueprint names is one AWS lists, of the blueprint's region."""
    table = load_local_zones()
    known = [local.name for local in table.in_region(region)]
    for path, zone in named:
        local = table.find(zone)
        if local is not None and local.parent_region == region:
            continue
        where = f"a Local Zone of {local.parent_region}, not of {region}" if local is not None else "not a Local Zone railyard knows"
        yield error(
            "cloud.unknown-local-zone",
            path,
            f"'{zone}' is {where}; the Local Zones of {region} railyard knows are {', '.join(known) or 'none'}",
            "use one of them, or add the zone's row (name, id, group, parent region and zone) from AWS's Available Local Zones page "
            "to blueprints/catalog/local_zones.yaml",
        )


def zone_references(ctx: Context) -> Iterable[tuple[Path, str]]:
    """Every zone the blueprint writes, with its path: the VPC's, the failure domains', the reservations', the existing subnets' and file systems'."""
    blueprint = ctx.blueprint
    cloud = blueprint.cloud
    yield from ((("cloud", "availability_zones", index), zone) for index, zone in enumerate(cloud.availability_zones))
    for index, domain in enumerate(blueprint.failure_domains.zones):
        yield ("failure_domains", "zones", index, "availability_zone"), domain.availability_zone
    for index, pool in enumerate(blueprint.pools):
        if isinstance(pool.capacity, CapacityReservation | CapacityBlock | ReservationGroup) and pool.capacity.zone is not None:
            yield ("pools", index, "capacity", "zone"), pool.capacity.zone
    if cloud.existing_vpc is not None:
        for index, subnet in enumerate(cloud.existing_vpc.subnets):
            yield ("cloud", "existing_vpc", "subnets", index, "availability_zone"), subnet.availability_zone
    for index, tier in enumerate(blueprint.storage):
        if isinstance(tier, FsxLustre) and tier.existing is not None:
            yield ("storage", index, "existing", "availability_zone"), tier.existing.availability_zone


def _policy_partitions(ctx: Context, partition: str | None) -> Iterable[Finding]:
    """Every node policy ARN is in the region's partition: IAM refuses to attach a policy of another partition."""
    for index, arn in enumerate(ctx.blueprint.kubernetes.node_iam_policies):
        named = arn.split(":", 2)[1]
        if partition is not None and named != partition:
            yield error(
                "cloud.policy-partition",
                ("kubernetes", "node_iam_policies", index),
                f"policy {arn} is in partition '{named}', but region {ctx.blueprint.cloud.region} is in '{partition}'",
                f"use arn:{partition}:iam::... for the same policy",
            )
