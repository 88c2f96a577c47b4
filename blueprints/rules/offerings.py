"""A pool's instance type is one AWS sells in its region and in its zones: EC2's DescribeInstanceTypeOfferings, as moto ships it.

A type the region doesn't offer (g6e.12xlarge in eu-west-1) validates, compiles and previews clean, then fails at
the first launch with `Unsupported` (EC2's error for a type not offered in a zone): so `validate` refuses it,
naming the regions that do sell it. The same for a zone the type isn't offered in: by zone id (`use1-az4`, the
same zone in every account) that is an error; by zone name (`us-east-1a`), a warning, since each account maps
names to zones its own way and the data names zones as the account moto recorded them saw them.

Capacity Blocks are the exception the data can't settle: a type sold only as blocks in a region (Trn2
UltraServers in us-east-2, p5en.48xlarge in eu-west-2) may be absent from DescribeInstanceTypeOfferings there, and
a block's zone is EC2's choice. So a pool on Capacity Blocks passes where railyard's Capacity Block table has a
rate for the type in the region, and is otherwise warned, with the call that settles it
(DescribeCapacityBlockOfferings); its zones are not checked. Where the data doesn't cover the type or the region
(a type assembled from documentation, p6e-gb200; a region moto doesn't record), `pool.offerings-unknown` says so
rather than passing silently. Data: `blueprints/catalog/offerings.json` (`python -m blueprints.catalog.offerings`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from blueprints.catalog.offerings import Offerings, load_offerings
from blueprints.catalog.prices import load_prices
from blueprints.findings import Finding, Path, error, info, warning
from blueprints.models.base import is_zone_id
from blueprints.models.capacity import holds_capacity_blocks
from blueprints.models.pools import Pool
from blueprints.rules.context import Context

CODES = ("pool.type-not-in-region", "pool.type-not-in-zone", "pool.offerings-unknown", "k8s.system-type-not-in-region")
EXPLAIN = {
    "pool.type-not-in-region": {
        "meaning": "AWS doesn't offer the pool's instance type in the blueprint's region (EC2 DescribeInstanceTypeOfferings): launches there fail",
        "fix": "move the design to a region the finding names, or choose a type the region sells",
    },
    "pool.type-not-in-zone": {
        "meaning": "AWS doesn't offer the pool's instance type in one of the zones the pool is placed in",
        "fix": "place the pool in a zone the finding names (by zone id to be sure: names differ per account), or check "
        "`aws ec2 describe-instance-type-offerings --location-type availability-zone-id` for your account",
    },
    "k8s.system-type-not-in-region": {
        "meaning": "AWS doesn't offer kubernetes.system_nodes.instance_type in the blueprint's region: the system node group can't launch",
        "fix": "choose a system node type the region sells (`railyard catalog --system` lists the families)",
    },
    "pool.offerings-unknown": {
        "meaning": "railyard's offerings data doesn't say whether AWS sells the type there, so the check is skipped",
        "fix": "check it with `aws ec2 describe-instance-type-offerings` (or describe-capacity-block-offerings for a block)",
    },
}


def _recorded(offerings: Offerings) -> str:
    version = re.search(r"moto (\S+):", offerings.source)
    return f"EC2 DescribeInstanceTypeOfferings as moto {version.group(1) if version else ''} records it".replace("  ", " ")


def check(ctx: Context) -> Iterable[Finding]:
    """Each pool's instance type against what its region and its zones offer; a pool on Capacity Blocks against the blocks' table;
    the system node group's type against its region."""
    offerings = load_offerings()
    region = ctx.blueprint.cloud.region
    system = ctx.blueprint.kubernetes.system_nodes.instance_type
    if offerings.offered(system, region) is False:
        sold = ", ".join(offerings.regions_of(system))
        yield error(
            "k8s.system-type-not-in-region",
            ("kubernetes", "system_nodes", "instance_type"),
            f"AWS doesn't offer {system} in {region} ({_recorded(offerings)}); it sells it in {sold}",
            f"choose a system node type {region} sells (`railyard catalog --system` lists the families)",
            regions=sold,
        )
    for index, pool in enumerate(ctx.blueprint.pools):
        path: Path = ("pools", index, "instance_type")
        offered = offerings.offered(pool.instance_type, region)
        if offered is None:
            why = f"region {region}" if pool.instance_type in offerings.by_type else pool.instance_type
            yield info(
                "pool.offerings-unknown",
                path,
                f"whether AWS sells {pool.instance_type} in {region} is unchecked: railyard's offerings data ({_recorded(offerings)}) "
                f"doesn't cover {why}",
                f"check it: `aws ec2 describe-instance-type-offerings --region {region} --filters Name=instance-type,Values={pool.instance_type}`",
            )
            continue
        if holds_capacity_blocks(pool.capacity):
            yield from _block(pool, path, region, offered, offerings)
            continue
        if not offered:
            sold = ", ".join(offerings.regions_of(pool.instance_type))
            yield error(
                "pool.type-not-in-region",
                path,
                f"AWS doesn't offer {pool.instance_type} in {region} ({_recorded(offerings)}); it sells it in {sold}",
                f"move the design to one of {sold}, or choose an instance type {region} sells",
                regions=sold,
            )
            continue
        yield from _zones(ctx, pool, index, region, offerings)


def _block(pool: Pool, path: Path, region: str, offered: bool, offerings: Offerings) -> Iterable[Finding]:
    """A pool on Capacity Blocks: sold there if the offerings list it or the Capacity Block table has a rate for it in the region."""
    if offered or load_prices().capacity_block(region, pool.instance_type) is not None:
        return
    yield warning(
        "pool.type-not-in-region",
        path,
        f"{pool.instance_type} is not offered in {region} by {_recorded(offerings)} "
        f"(it lists {', '.join(offerings.regions_of(pool.instance_type))}), "
        f"and railyard's Capacity Block table has no rate for it there; a type sold only as Capacity Blocks can be missing from those "
        "offerings, so whether this block can be bought there is unchecked",
        f"check it: `aws ec2 describe-capacity-block-offerings --region {region} --instance-type {pool.instance_type} "
        "--instance-count <n> --capacity-duration-hours 24`; if none is offered, move the design to a region that sells it",
    )


def _zones(ctx: Context, pool: Pool, index: int, region: str, offerings: Offerings) -> Iterable[Finding]:
    """The zones the pool is placed in (its failure domains', its reservation's) that don't offer its type."""
    placed = [zone.availability_zone for zone in ctx.pool_zones(pool)]
    reserved = getattr(pool.capacity, "zone", None)
    for zone in dict.fromkeys([*placed, *([reserved] if reserved else [])]):
        by_id = is_zone_id(zone)
        zones = offerings.zones_of(pool.instance_type, region, by_id)
        if zones is None or zone in zones:
            continue
        if by_id:
            yield error(
                "pool.type-not-in-zone",
                ("pools", index, "placement"),
                f"AWS doesn't offer {pool.instance_type} in zone {zone} ({_recorded(offerings)}); "
                f"in {region} it sells it in {', '.join(zones) or 'no zone'}",
                f"place the pool in one of {', '.join(zones)}",
                zone=zone,
            )
            continue
        yield warning(
            "pool.type-not-in-zone",
            ("pools", index, "placement"),
            f"{pool.instance_type} is not offered in {zone} as the account moto recorded names its zones ({_recorded(offerings)}: "
            f"{', '.join(zones) or 'no zone'}); each account maps zone names its own way, so in yours it may be",
            f"check `aws ec2 describe-instance-type-offerings --location-type availability-zone --region {region} --filters "
            f"Name=instance-type,Values={pool.instance_type}`, or write zones as ids (use1-az4), which are the same in every account",
            zone=zone,
        )
