"""Hot spares: the standby hosts that stand in for a pool (`pools[].standby_for`), and which failures they cover.

Large training fleets keep spare hosts wired into the fabric so a failed host is swapped without
rewiring (Alibaba HPN: 8 backup hosts in every segment). A spare carries no job traffic until it
takes a failed host's place, so the fabric's oversubscription and bisection leave it out
(`topology.bandwidth`); what a pool's blast radius says of its spares is here: how many there are,
the fewest any of the pool's blocks holds (the host failures a block absorbs in place), and, for
the pool's worst zone, block and rack, whether the spares outside that element cover the hosts it
takes down.
"""

from __future__ import annotations

from typing import Any

from blueprints.models.pools import Pool
from topology.blast import Outage
from topology.design import Design


def spare_cover(design: Design, pool_index: int, pool: Pool, by_kind: dict[str, Outage], per_host: int) -> dict[str, Any] | None:
    """The standby hosts that stand in for a pool: how many, how many each of its blocks holds, and for its worst zone,
    block and rack whether the spares outside that element cover the hosts it takes down. None without standby pools."""
    standby = [index for index, other in enumerate(design.blueprint.pools) if other.standby_for == pool.name]
    if not standby:
        return None
    hosts = sum(design.placement.placed.get(index, 0) for index in standby)
    spares_by = {kind: _spares_by(design, standby, kind) for kind in ("zone", "block", "rack")}
    covers = {}
    for kind, spares in spares_by.items():
        outage = by_kind.get(kind)
        if outage is None or outage.element is None:
            continue
        outside = hosts - spares.get(outage.element, 0)
        lost = round(outage.accelerators / per_host)
        covers[kind] = {"element": outage.element, "hosts_lost": lost, "spares_outside": outside, "covered": outside >= lost}
    local = {name: spares_by["block"].get(name, 0) for name in design.placement.hosts_by(pool_index, "block")}
    return {
        "pools": [design.blueprint.pools[index].name for index in standby],
        "hosts": hosts,
        "fewest_in_a_block": min(local.values(), default=0),
        "worst": covers,
    }


def _spares_by(design: Design, standby: list[int], level: str) -> dict[str, int]:
    """The standby pools' hosts per zone, block or rack (`level`), summed over the pools."""
    found: dict[str, int] = {}
    for index in standby:
        for name, count in design.placement.hosts_by(index, level).items():
            found[name] = found.get(name, 0) + count
    return found
