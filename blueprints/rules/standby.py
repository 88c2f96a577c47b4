"""Standby pools: hot spares stand in for the pool they name, so they must be able to.

A standby pool's hosts replace a failed host of the pool it names without rewiring
(Alibaba HPN wires 8 backup hosts into every segment for this), so:

* the named pool exists and runs jobs (a spare of a spare covers nothing);
* it has the same instance type (a job's ranks expect the same accelerators);
* it joins the same fabric (a spare on another fabric can't take the failed host's place in the job's network).
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, error
from blueprints.rules.context import Context

CODES = ("pool.standby-target",)


def check(ctx: Context) -> Iterable[Finding]:
    """Each standby pool names a job pool of the same instance type on the same fabric."""
    pools = {pool.name: pool for pool in ctx.blueprint.pools}
    for index, pool in enumerate(ctx.blueprint.pools):
        if pool.standby_for is None:
            continue
        where = ("pools", index, "standby_for")
        target = pools.get(pool.standby_for)
        jobs = sorted(name for name, other in pools.items() if other.standby_for is None and name != pool.name)
        if target is None or target.name == pool.name or target.standby_for is not None:
            why = "is not a pool" if target is None else "is the pool itself" if target.name == pool.name else "is a standby pool itself"
            hint = f"name a pool that runs jobs: {', '.join(jobs) or 'none'}"
            yield error("pool.standby-target", where, f"standby_for '{pool.standby_for}' {why}", hint)
            continue
        if target.instance_type != pool.instance_type:
            yield error(
                "pool.standby-target",
                where,
                f"pool '{pool.name}' ({pool.instance_type}) can't stand in for '{target.name}' ({target.instance_type}): a spare has the same type",
                f"make the pool {target.instance_type}",
            )
        if target.fabric != pool.fabric:
            yield error(
                "pool.standby-target",
                where,
                f"pool '{pool.name}' is on fabric {pool.fabric or 'none'}, '{target.name}' on {target.fabric or 'none'}: "
                "a spare joins its pool's fabric",
                f"set fabric: {target.fabric}" if target.fabric else "drop the fabric",
            )
