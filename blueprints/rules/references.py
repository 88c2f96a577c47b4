"""Names must be unique, and every name a pool or tier refers to must exist."""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from blueprints.findings import Finding, Path, error, warning
from blueprints.models.base import is_local_zone
from blueprints.models.domains import Block, Zone
from blueprints.models.storage import FsxLustre, FsxLustreClass
from blueprints.rules.context import Context

CODES = (
    "names.duplicate",
    "ref.unknown-domain",
    "ref.unknown-fabric",
    "ref.unknown-storage",
    "ref.unknown-bucket",
    "ref.zone-not-in-cloud",
    "ref.class-unclaimed",
    "ref.class-name-taken",
)
# The StorageClass railyard makes as the default with the EBS CSI driver (components/kubernetes/storage.py).
DEFAULT_CLASS = "gp3"
# The fix `railyard explain` gives for the references whose hint is "did you mean" and the names that exist.
_NAME_ONE = "use a name the blueprint defines (the finding's hint lists them and the closest), or define the one you meant"
EXPLAIN = {
    "ref.unknown-domain": {"fix": "place the pool in a zone or block listed under failure_domains; " + _NAME_ONE},
    "ref.unknown-fabric": {"fix": "join a fabric listed under fabrics; " + _NAME_ONE},
    "ref.unknown-storage": {"fix": "use a tier listed under storage; " + _NAME_ONE},
    "ref.unknown-bucket": {"fix": "link to a storage tier of kind: s3; " + _NAME_ONE},
}


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    prefix = f"did you mean '{close[0]}'? " if close else ""
    return prefix + (f"known names: {', '.join(known)}" if known else "none are defined")


class _Named(Protocol):
    @property
    def name(self) -> str: ...


def _duplicates(items: Sequence[_Named], path: Callable[[int], Path], what: str) -> Iterable[Finding]:
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        if item.name in first:
            yield error(
                "names.duplicate",
                path(index) + ("name",),
                f"{what} name '{item.name}' is used twice (first at index {first[item.name]})",
                f"give every {what} its own name",
            )
        first.setdefault(item.name, index)


def _fabric_item(fabric: int, field: str, index: int) -> Path:
    return ("fabrics", fabric, field, index)


def check(ctx: Context) -> Iterable[Finding]:
    """Duplicate names, and references to domains, fabrics, tiers and buckets that don't exist."""
    bp = ctx.blueprint
    yield from _duplicates(bp.pools, lambda i: ("pools", i), "pool")
    yield from _duplicates(bp.fabrics, lambda i: ("fabrics", i), "fabric")
    yield from _duplicates(bp.storage, lambda i: ("storage", i), "storage tier")
    for fi, fabric in enumerate(bp.fabrics):
        # The fabric report sums links by name, so two entries of one name would read as one.
        for field, what in (("appliances", "appliance"), ("host_ports", "host port")):
            yield from _duplicates(getattr(fabric, field, []), functools.partial(_fabric_item, fi, field), what)
    domains: list[tuple[Path, Zone | Block]] = [(("failure_domains", "zones", zi), zone) for zi, zone in enumerate(bp.failure_domains.zones)]
    domains += [
        (("failure_domains", "zones", zi, "blocks", bi), block)
        for zi, zone in enumerate(bp.failure_domains.zones)
        for bi, block in enumerate(zone.blocks)
    ]
    seen: dict[str, Path] = {}
    for path, domain in domains:
        if domain.name in seen:
            yield error(
                "names.duplicate",
                path + ("name",),
                f"failure domain name '{domain.name}' is used twice",
                "zones and blocks share one namespace; rename one",
            )
        seen.setdefault(domain.name, path)
    for zi, zone in enumerate(bp.failure_domains.zones):
        # A Local Zone is an extension of the region, outside the VPC's zones by design (rules/regions.py checks it is one).
        if zone.availability_zone not in bp.cloud.availability_zones and not is_local_zone(zone.availability_zone):
            yield error(
                "ref.zone-not-in-cloud",
                ("failure_domains", "zones", zi, "availability_zone"),
                f"zone '{zone.name}' is {zone.availability_zone}, which is not in cloud.availability_zones {bp.cloud.availability_zones}",
                f"add {zone.availability_zone} to cloud.availability_zones or fix the zone",
            )
    domain_names = set(ctx.zones) | set(ctx.blocks)
    for pi, pool in enumerate(bp.pools):
        for di, name in enumerate(pool.placement.domains):
            if name not in domain_names:
                yield error(
                    "ref.unknown-domain",
                    ("pools", pi, "placement", "domains", di),
                    f"pool '{pool.name}' is placed in '{name}', which is no zone or block",
                    _did_you_mean(name, domain_names),
                )
        if pool.fabric is not None and pool.fabric not in ctx.fabrics:
            yield error(
                "ref.unknown-fabric",
                ("pools", pi, "fabric"),
                f"pool '{pool.name}' joins fabric '{pool.fabric}', which is not defined",
                _did_you_mean(pool.fabric, ctx.fabrics),
            )
        for si, use in enumerate(pool.storage):
            if use.tier not in ctx.tiers:
                yield error(
                    "ref.unknown-storage",
                    ("pools", pi, "storage", si, "tier"),
                    f"pool '{pool.name}' uses storage tier '{use.tier}', which is not defined",
                    _did_you_mean(use.tier, ctx.tiers),
                )
    buckets = {tier.name for tier in bp.storage if tier.kind == "s3"}
    for ti, tier in enumerate(bp.storage):
        if isinstance(tier, FsxLustreClass):
            yield from _storage_class(tier, ti, ctx)
        if isinstance(tier, FsxLustre):
            for ri, link in enumerate(tier.data_repositories):
                if link.bucket not in buckets:
                    yield error(
                        "ref.unknown-bucket",
                        ("storage", ti, "data_repositories", ri, "bucket"),
                        f"'{tier.name}' links to bucket tier '{link.bucket}', which is no `kind: s3` tier",
                        _did_you_mean(link.bucket, buckets),
                    )


def _storage_class(tier: FsxLustreClass, index: int, ctx: Context) -> Iterable[Finding]:
    """An FSx StorageClass no pool lists (no node runs the driver's node plugin to mount it), or one named like the default class."""
    if tier.name == DEFAULT_CLASS and ctx.blueprint.kubernetes.addons.ebs_csi_driver.enabled:
        yield error(
            "ref.class-name-taken",
            ("storage", index, "name"),
            f"StorageClass '{tier.name}' is the name of the default gp3 class railyard makes with the EBS CSI driver",
            "give the FSx class another name",
        )
    if not any(use.tier == tier.name for pool in ctx.blueprint.pools for use in pool.storage):
        yield warning(
            "ref.class-unclaimed",
            ("storage", index, "name"),
            f"no pool lists FSx StorageClass '{tier.name}', so the FSx CSI node plugin runs on no node that could mount its volumes",
            f"add `- tier: {tier.name}` to the storage of the pools whose pods claim from it",
        )
