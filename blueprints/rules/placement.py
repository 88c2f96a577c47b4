"""Pools must fit in the failure domains they are placed in, and be spreadable as asked.

A block may leave its racks unstated (on AWS nobody knows them). Such a block
holds any number of hosts, so it sets no capacity; what needs racks (`spread:
racks`, a ToR per rack) is refused there, and a note names the figures that
are not computed for it.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, Path, error, info
from blueprints.models.domains import Block, Zone
from blueprints.models.fabrics import TorClos
from blueprints.models.pools import Pool
from blueprints.rules.context import Context

CODES = (
    "placement.over-capacity",
    "placement.cannot-spread",
    "placement.racks-unstated",
    "placement.tor-needs-racks",
    "placement.max-below-domains",
)
EXPLAIN = {
    "placement.max-below-domains": {
        "meaning": "a pool's most nodes (nodes, or nodes.max) are fewer than the failure domains it is placed in",
        "why": "each listed domain becomes a node group of its own, and EKS holds every node group's max to at least 1 "
        "(botocore's eks model: NodegroupScalingConfig maxSize, min 1): the groups together could grow past the pool's "
        "max, which the cost, quota and power checks take as the ceiling",
        "fix": "raise the pool's max to at least the number of domains, or list fewer domains",
    },
}
_SPREAD_UNIT = {"zones": "zone", "blocks": "block", "racks": "rack"}
UNRACKED_UNKNOWN = ("rack and feed power", "a rack's or a feed's blast radius", "hosts per rack")


def _where(zone: Zone, block: Block) -> str:
    return f"zone '{zone.name}' (no blocks)" if not zone.blocks else f"block '{block.name}'"


def _unracked_notes(ctx: Context) -> Iterable[Finding]:
    """One note per unracked block a pool is placed in: what is not computed there."""
    used = {(zone.name, block.name) for pool in ctx.blueprint.pools for zone, block in ctx.pool_blocks(pool)}
    for zi, zone in enumerate(ctx.blueprint.failure_domains.zones):
        for bi, block in enumerate(zone.sites):
            if block.racked or (zone.name, block.name) not in used:
                continue
            path: Path = ("failure_domains", "zones", zi, "blocks", bi) if zone.blocks else ("failure_domains", "zones", zi)
            yield info(
                "placement.racks-unstated",
                path,
                f"{_where(zone, block)} states no racks, so it holds any number of hosts and {', '.join(UNRACKED_UNKNOWN)} "
                "are not computed for it; block and zone power, capacity from the reservations and the fabric figures still are",
                "state racks and hosts_per_rack (with rack_budget_kw) where you know them, as in your own data centre",
                unknown=list(UNRACKED_UNKNOWN),
            )


def _max_below_domains(ctx: Context, pi: int, pool: Pool) -> Iterable[Finding]:
    """An error when a pool's most nodes are fewer than the failure domains it lists: each domain is a node group of its
    own, whose maximum EKS holds to at least 1 (botocore's eks model: NodegroupScalingConfig maxSize, min 1), so the
    groups together could grow past the pool's max. railyard refuses rather than leave a domain out of the placement."""
    domains = [name for name in dict.fromkeys(pool.placement.domains) if name in ctx.zones or name in ctx.blocks]
    if pool.max_nodes >= len(domains):
        return
    yield error(
        "placement.max-below-domains",
        ("pools", pi, "nodes"),
        f"pool '{pool.name}' may have at most {pool.max_nodes} node{'s' if pool.max_nodes != 1 else ''}, but it is placed in "
        f"{len(domains)} failure domains ({', '.join(domains)}): each gets a node group of its own, whose max EKS holds to at "
        f"least 1, so together they could grow to {len(domains)} nodes",
        f"raise the pool's max to at least {len(domains)}, or place it in at most {pool.max_nodes} of those domains",
    )


def check(ctx: Context) -> Iterable[Finding]:
    """Each pool's nodes fit its domains' host slots; `spread` has at least two units to spread over; racks where needed."""
    yield from _unracked_notes(ctx)
    for pi, pool in enumerate(ctx.blueprint.pools):
        blocks = ctx.pool_blocks(pool)
        if not blocks:
            continue  # unknown domains are reported by the references rule
        yield from _max_below_domains(ctx, pi, pool)
        unracked = [(zone, block) for zone, block in blocks if not block.racked]
        _, domain_hosts = ctx.scale_up_domain(pool)  # a block holds whole scale-up domains
        slots = sum((block.host_slots or 0) // domain_hosts * domain_hosts for _, block in blocks)
        if not unracked and pool.max_nodes > slots:
            yield error(
                "placement.over-capacity",
                ("pools", pi, "nodes"),
                f"pool '{pool.name}' may have {pool.max_nodes} nodes, but its failure domains {pool.placement.domains} hold {slots} hosts",
                "add racks or blocks to those domains, or place the pool in more of them",
                slots=slots,
            )
        spread = pool.placement.spread
        if spread == "racks" and unracked:
            where = ", ".join(_where(zone, block) for zone, block in unracked)
            yield error(
                "placement.cannot-spread",
                ("pools", pi, "placement", "spread"),
                f"pool '{pool.name}' must spread across racks, but {where} states no racks to spread over",
                "state racks and hosts_per_rack for those blocks, or spread across blocks or zones",
            )
            continue
        units = {
            "zones": len({zone.name for zone, _ in blocks}),
            "blocks": len(blocks),
            "racks": sum(block.racks or 0 for _, block in blocks),
        }.get(spread, 2)
        if units < 2:
            unit = _SPREAD_UNIT[spread]
            yield error(
                "placement.cannot-spread",
                ("pools", pi, "placement", "spread"),
                f"pool '{pool.name}' must spread across {spread}, but its domains {pool.placement.domains} have only one {unit}",
                f"place the pool in at least two {spread}, or relax spread",
            )
        fabric = ctx.fabrics.get(pool.fabric) if pool.fabric else None
        if isinstance(fabric, TorClos) and unracked:
            where = ", ".join(_where(zone, block) for zone, block in unracked)
            yield error(
                "placement.tor-needs-racks",
                ("pools", pi, "fabric"),
                f"pool '{pool.name}' joins tor_clos fabric '{fabric.name}', which puts a leaf in every rack, but {where} states no racks",
                "state racks and hosts_per_rack for those blocks, or use a rail_optimized_clos or fat_tree fabric",
            )
