"""The region and zones are ones AWS has, and ARNs are in its partition: from botocore's endpoint data and moto's zones.

A region name of the right shape (`eu-central-3`) passes the schema but fails
the first API call; a zone letter a region doesn't have (`us-east-2d`,
`ap-northeast-1b` for new accounts) fails when the subnet is created. Regions
are checked against every partition botocore knows; zones against the zones
moto records for the region (`blueprints/catalog/regions.py`). A region moto
has no zones for (a new or isolated one) has its zones left unchecked.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from blueprints.catalog.regions import load_regions
from blueprints.findings import Finding, Path, error
from blueprints.rules.context import Context

CODES = ("cloud.unknown-region", "cloud.unknown-zone", "cloud.policy-partition")


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
    known = regions.zones.get(cloud.region)
    if not known:
        return
    named: list[tuple[Path, str]] = [(("cloud", "availability_zones", index), zone) for index, zone in enumerate(cloud.availability_zones)]
    named += [
        (("failure_domains", "zones", index, "availability_zone"), zone.availability_zone)
        for index, zone in enumerate(ctx.blueprint.failure_domains.zones)
    ]
    for path, zone in named:
        if zone.startswith(cloud.region) and zone not in known:
            yield error(
                "cloud.unknown-zone",
                path,
                f"availability zone '{zone}' does not exist in {cloud.region}, whose zones are {', '.join(known)}",
                f"use one of {', '.join(known)}",
            )


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
