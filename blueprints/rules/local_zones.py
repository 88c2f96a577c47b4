"""A pool in a Local Zone uses only what EKS supports there: no FSx for Lustre file system beside it.

railyard places an FSx for Lustre file system (or the StorageClass's subnet) beside the first pool that
mounts it, so a pool in a Local Zone that mounts one would put the file system in the Local Zone. The EKS
user guide lists what it supports in a Local Zone: "managed node groups, self-managed Amazon EC2 nodes,
Amazon EBS volumes, and Application Load Balancers" (awsdocs/amazon-eks-user-guide
latest/ug/integrations/local-zones.adoc @c615f00a); no page read here places FSx in one
(blueprints/catalog/local_zones.yaml says which page was not read). A file system back in the parent
region would sit a long way from the nodes (Dallas to N. Virginia for us-east-1-dfw-2a), so the mount is
refused rather than moved.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.catalog.local_zones import load_local_zones
from blueprints.findings import Finding, error
from blueprints.models.base import is_local_zone
from blueprints.models.storage import FsxLustre, FsxLustreClass
from blueprints.rules.context import Context

CODES = ("storage.local-zone-fsx",)


def check(ctx: Context) -> Iterable[Finding]:
    """No pool placed in a Local Zone mounts an FSx for Lustre tier (which would be placed beside it)."""
    tiers = {tier.name: tier for tier in ctx.blueprint.storage}
    supported = ", ".join(load_local_zones().eks_supported).replace("_", " ")
    for pi, pool in enumerate(ctx.blueprint.pools):
        local = [zone.availability_zone for zone in ctx.pool_zones(pool) if is_local_zone(zone.availability_zone)]
        if not local:
            continue
        for mi, mount in enumerate(pool.storage):
            if isinstance(tiers.get(mount.tier), FsxLustre | FsxLustreClass):
                yield error(
                    "storage.local-zone-fsx",
                    ("pools", pi, "storage", mi, "tier"),
                    f"pool '{pool.name}' is placed in Local Zone {', '.join(local)} and mounts FSx for Lustre tier '{mount.tier}', "
                    f"which railyard would place beside it; EKS supports {supported} in a Local Zone, and no source railyard "
                    "has places FSx for Lustre in one",
                    f"drop the mount from pool '{pool.name}' (stage data on its instance store, a local_nvme tier, or read it from "
                    "an s3 tier), or place the pool in an Availability Zone",
                    local_zones=local,
                )
