"""EFA fabrics need EFA-capable instances, and an EFA training pool must sit in one zone.

EFA traffic does not cross availability zones (EKS user guide, node-efa; AWS
ParallelCluster efa-v3; aws-facts.md 2.4), so a training pool spread over two
zones would silently fall back to TCP between them.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, error
from blueprints.rules.context import Context

CODES = ("efa.unsupported-instance", "efa.multi-zone")


def check(ctx: Context) -> Iterable[Finding]:
    """EFA on instances without it; EFA training pools placed in more than one zone."""
    for pi, pool in enumerate(ctx.blueprint.pools):
        fabric = ctx.fabrics.get(pool.fabric) if pool.fabric else None
        spec = ctx.catalog.get(pool.instance_type)
        if fabric is None or fabric.transport != "efa" or spec is None:
            continue
        if not spec.efa_supported:
            efa_types = sorted({name.split(".")[0] for name, other in ctx.catalog.items() if other.efa_supported})
            yield error(
                "efa.unsupported-instance",
                ("pools", pi, "fabric"),
                f"pool '{pool.name}' joins EFA fabric '{fabric.name}', but {pool.instance_type} does not support EFA",
                f"take the pool off the fabric (fabric: null), use a fabric with transport: ena, or pick an EFA family ({', '.join(efa_types)})",
            )
        zones = ctx.pool_zones(pool)
        if pool.role == "training" and len(zones) > 1:
            names = [zone.availability_zone for zone in zones]
            yield error(
                "efa.multi-zone",
                ("pools", pi, "placement", "domains"),
                f"training pool '{pool.name}' joins EFA fabric '{fabric.name}' but is placed in {len(zones)} "
                f"zones {names}; EFA traffic does not cross zones",
                "place the pool in one zone (one zone or its blocks), or split it into one pool per zone",
            )
