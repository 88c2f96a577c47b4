"""Pools must fit in the failure domains they are placed in, and be spreadable as asked."""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, error
from blueprints.rules.context import Context

CODES = ("placement.over-capacity", "placement.cannot-spread")
_SPREAD_UNIT = {"zones": "zone", "blocks": "block", "racks": "rack"}


def check(ctx: Context) -> Iterable[Finding]:
    """Each pool's nodes fit its domains' host slots; `spread` has at least two units to spread over."""
    for pi, pool in enumerate(ctx.blueprint.pools):
        blocks = ctx.pool_blocks(pool)
        if not blocks:
            continue  # unknown domains are reported by the references rule
        slots = sum(block.host_slots for _, block in blocks)
        if pool.max_nodes > slots:
            yield error(
                "placement.over-capacity",
                ("pools", pi, "nodes"),
                f"pool '{pool.name}' may have {pool.max_nodes} nodes, but its failure domains {pool.placement.domains} hold {slots} hosts",
                "add racks or blocks to those domains, or place the pool in more of them",
                slots=slots,
            )
        spread = pool.placement.spread
        units = {
            "zones": len({zone.name for zone, _ in blocks}),
            "blocks": len(blocks),
            "racks": sum(block.racks for _, block in blocks),
        }.get(spread, 2)
        if units < 2:
            unit = _SPREAD_UNIT[spread]
            yield error(
                "placement.cannot-spread",
                ("pools", pi, "placement", "spread"),
                f"pool '{pool.name}' must spread across {spread}, but its domains {pool.placement.domains} have only one {unit}",
                f"place the pool in at least two {spread}, or relax spread",
            )
