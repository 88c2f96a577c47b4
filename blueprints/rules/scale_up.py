"""Scale-up domains that span hosts (an NVL72 rack, a Trn2 UltraServer) come whole.

A pool whose NVLink / NeuronLink domain spans several hosts is bought and
placed in whole domains: an UltraServer Capacity Block is whole UltraServers,
and an NVL72 rack's 18 compute trays share one NVLink fabric. A pool that is
not a whole number of domains leaves hosts cut off from the rest of theirs;
`spread: racks` puts each domain in one rack, so the racks must hold one.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, error
from blueprints.rules.context import Context

CODES = ("pool.scale-up-partial", "placement.scale-up-rack")


def check(ctx: Context) -> Iterable[Finding]:
    """Pools are whole scale-up domains at every size they state; racks hold a domain where spread puts one in each."""
    for pi, pool in enumerate(ctx.blueprint.pools):
        kind, hosts = ctx.scale_up_domain(pool)
        if hosts == 1:
            continue
        sizes = {"max": pool.max_nodes, "desired": pool.desired_nodes}
        partial = {name: size for name, size in sizes.items() if size % hosts}
        if partial:
            stated = ", ".join(f"{name} {size}" for name, size in partial.items())
            yield error(
                "pool.scale-up-partial",
                ("pools", pi, "nodes"),
                f"pool '{pool.name}' ({pool.instance_type}) has a {kind} domain of {hosts} hosts, but its node count ({stated}) is not a "
                f"whole number of domains, so some hosts would be cut off from the rest of theirs",
                f"make the node counts multiples of {hosts} (an UltraServer or NVL72 rack is bought and placed whole)",
                hosts_per_domain=hosts,
                nodes=partial,
            )
        if pool.placement.spread != "racks":
            continue
        small = sorted({block.name for _, block in ctx.pool_blocks(pool) if block.hosts_per_rack is not None and block.hosts_per_rack < hosts})
        if small:
            yield error(
                "placement.scale-up-rack",
                ("pools", pi, "placement", "spread"),
                f"pool '{pool.name}' spreads over racks, one {kind} domain of {hosts} hosts in each, but the racks of blocks {small} "
                f"hold fewer than {hosts} hosts",
                f"use racks of at least {hosts} hosts (hosts_per_rack), or spread over blocks",
                hosts_per_domain=hosts,
                blocks=small,
            )
