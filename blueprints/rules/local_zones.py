"""A pool in a Local Zone uses only what the zone offers: no FSx for Lustre file system beside it, and gp3 volumes.

railyard places an FSx for Lustre file system (or the StorageClass's subnet) beside the first pool that
mounts it, so a pool in a Local Zone that mounts one would put the file system in the Local Zone. The EKS
user guide lists what it supports in a Local Zone: "managed node groups, self-managed Amazon EC2 nodes,
Amazon EBS volumes, and Application Load Balancers" (awsdocs/amazon-eks-user-guide
latest/ug/integrations/local-zones.adoc @c615f00a); no page read here places FSx in one
(blueprints/catalog/local_zones.yaml says which page was not read). A file system back in the parent
region would sit a long way from the nodes (Dallas to N. Virginia for us-east-1-dfw-2a), so the mount is
refused rather than moved.

Every node railyard launches has a gp3 root volume (`pools[].root_volume`), and the EBS CSI driver's default
StorageClass is gp3. gp3 "is only available in some AWS Local Zones" (awslabs/amazon-eks-ami#1295); which
ones, AWS lists on its Local Zones features page. Where the zone table states a zone's volume types, a zone
without gp3 is refused. Where it doesn't (the page was not readable here: local_zones.yaml), a note says the
zone's gp3 is unchecked, as `pool.offerings-unknown` says of an offering railyard's data lacks, so it is
checked by hand before `pulumi up` rather than found by a failed node group. NAT gateways are not checked:
railyard places none in a Local Zone (topology/cluster/local_zones.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.catalog.local_zones import LocalZone, load_local_zones
from blueprints.findings import Finding, error, info
from blueprints.models.base import is_local_zone
from blueprints.models.pools import ROOT_VOLUME_TYPE
from blueprints.models.storage import FsxLustre, FsxLustreClass
from blueprints.rules.context import Context

CODES = ("storage.local-zone-fsx", "pool.local-zone-volume-type", "pool.local-zone-volume-unknown")
FEATURES_PAGE = "https://aws.amazon.com/about-aws/global-infrastructure/localzones/features/"
EXPLAIN = {
    "pool.local-zone-volume-type": {
        "meaning": f"the pool is placed in a Local Zone whose EBS volume types (AWS's Local Zones features page, as the zone table "
        f"records them) leave out {ROOT_VOLUME_TYPE}, the type of every node's root volume: its node group can't launch there",
        "fix": f"place the pool in an Availability Zone, or in a Local Zone that offers {ROOT_VOLUME_TYPE}",
    },
    "pool.local-zone-volume-unknown": {
        "meaning": f"the pool is placed in a Local Zone whose EBS volume types railyard's zone table hasn't read; {ROOT_VOLUME_TYPE}, "
        "the nodes' root volume type, is offered only in some Local Zones (awslabs/amazon-eks-ami#1295)",
        "fix": f"check the zone on {FEATURES_PAGE} before `pulumi up`, and record its types in blueprints/catalog/local_zones.yaml "
        "(`ebs_volume_types`, with the page as its source)",
    },
}


def check(ctx: Context) -> Iterable[Finding]:
    """No pool placed in a Local Zone mounts an FSx for Lustre tier; each such zone is known to offer gp3 root volumes."""
    table = load_local_zones()
    lustre = {tier.name for tier in ctx.blueprint.storage if isinstance(tier, FsxLustre | FsxLustreClass)}
    for pi, pool in enumerate(ctx.blueprint.pools):
        local = [zone.availability_zone for zone in ctx.pool_zones(pool) if is_local_zone(zone.availability_zone)]
        if not local:
            continue
        yield from _fsx_mounts(ctx, pi, local, lustre, table.eks_supported)
        for zone in local:
            known = table.find(zone)
            if known is not None:  # an unknown zone is cloud.unknown-local-zone's
                yield from _volume_type(pool.name, pi, known)


def _fsx_mounts(ctx: Context, pi: int, local: list[str], lustre: set[str], eks_supported: Iterable[str]) -> Iterable[Finding]:
    """An error per mount of an FSx for Lustre tier (`lustre`) by a pool placed in the Local Zones `local`."""
    pool = ctx.blueprint.pools[pi]
    supported = ", ".join(eks_supported).replace("_", " ")
    for mi, mount in enumerate(pool.storage):
        if mount.tier in lustre:
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


def _volume_type(pool: str, pi: int, zone: LocalZone) -> Iterable[Finding]:
    """An error when the zone's recorded volume types lack the root volume's; a note when none are recorded."""
    if zone.ebs_volume_types is None:
        yield info(
            "pool.local-zone-volume-unknown",
            ("pools", pi),
            f"pool '{pool}' is placed in Local Zone {zone.name}, and every node gets a {ROOT_VOLUME_TYPE} root volume; "
            f"{ROOT_VOLUME_TYPE} is offered only in some Local Zones (awslabs/amazon-eks-ami#1295), and railyard's zone table "
            f"hasn't read which volume types {zone.name} offers",
            f"check {zone.name} on {FEATURES_PAGE} before `pulumi up`; record its volume types in "
            "blueprints/catalog/local_zones.yaml (`ebs_volume_types`) so validate checks it",
            local_zone=zone.name,
        )
    elif ROOT_VOLUME_TYPE not in zone.ebs_volume_types:
        yield error(
            "pool.local-zone-volume-type",
            ("pools", pi),
            f"pool '{pool}' is placed in Local Zone {zone.name}, which offers EBS volume types {', '.join(zone.ebs_volume_types)} "
            f"and not {ROOT_VOLUME_TYPE}, the type of every node's root volume: its node group can't launch there",
            f"place pool '{pool}' in an Availability Zone, or in a Local Zone that offers {ROOT_VOLUME_TYPE}",
            local_zone=zone.name,
            volume_types=list(zone.ebs_volume_types),
        )
