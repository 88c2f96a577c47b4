"""Standby pools: hot spares stand in for the pool they name, so they must be able to.

A standby pool's hosts replace a failed host of the pool it names without rewiring
(Alibaba HPN wires 8 backup hosts into every segment for this), so:

* the named pool exists and runs jobs (a spare of a spare covers nothing);
* it has the same instance type (a job's ranks expect the same accelerators);
* it joins the same fabric (a spare on another fabric can't take the failed host's place in the job's network).

A spare shares the served pool's placement unless `placement.share_with_served: false`
(`topology.cluster.spare_placement` plans it), so it must also be able to:

* its zones are the served pool's (`pool.standby-zone`): a cluster placement group, like a
  reservation, stays in one Availability Zone (EC2 user guide, placement group rules);
* its blocks are the served pool's (`pool.standby-block`, a warning): a spare in another block
  takes the failed host's place from behind another spine and other power feeds;
* its capacity can join the served pool's placement (`pool.standby-capacity`): EC2 places a
  Capacity Block's instances together itself and takes no placement group on its launches, so
  only the same block shares it; a reservation made in a cluster placement group is used by
  any matching instance launched into that group ("Placement group rules and limitations":
  reserved capacity "is automatically used by the instance. This is also true if you launch the
  instance into a placement group"), so only a reservation made in the same group shares it
  without taking the served pool's instances. Whatever the setting, a spare on the served
  pool's own reservation fits in it beside the pool (`pool.standby-capacity`).
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, Path, error, warning
from blueprints.models.capacity import CapacityBlock, CapacityReservation, CapacitySource, ReservationGroup
from blueprints.models.pools import Pool
from blueprints.rules.context import Context

CODES = ("pool.standby-target", "pool.standby-zone", "pool.standby-block", "pool.standby-capacity")
APART = "or set placement.share_with_served: false to place the spare apart"


def check(ctx: Context) -> Iterable[Finding]:
    """Each standby pool names a job pool of the same instance type on the same fabric and fits beside it on a shared
    reservation; sharing its placement, it sits in that pool's zones and blocks, on capacity that can join its placement."""
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
        yield from _reservation_room(index, pool, target)
        if pool.placement.share_with_served:
            yield from _shared_placement(ctx, index, pool, target)


def _shared_placement(ctx: Context, index: int, pool: Pool, target: Pool) -> Iterable[Finding]:
    """A sharing spare's zones, blocks and capacity against the placement of the pool it serves."""
    domains: Path = ("pools", index, "placement", "domains")
    served_zones = [zone.name for zone in ctx.pool_zones(target)]
    away = [zone for zone in ctx.pool_zones(pool) if zone.name not in served_zones]
    if away:
        names = ", ".join(f"'{zone.name}' ({zone.availability_zone})" for zone in away)
        yield error(
            "pool.standby-zone",
            domains,
            f"spare pool '{pool.name}' is placed in zone {names}, where '{target.name}' has no nodes: a spare shares the placement "
            "of the pool it serves, and a placement group or a reservation stays in one Availability Zone",
            f"place the spare in '{target.name}''s zones {served_zones}, {APART}",
            zones=[zone.name for zone in away],
        )
    served_blocks = {block.name for _, block in ctx.pool_blocks(target)}
    outside = [block.name for zone, block in ctx.pool_blocks(pool) if zone.name in served_zones and block.name not in served_blocks]
    if outside:
        yield warning(
            "pool.standby-block",
            domains,
            f"spare pool '{pool.name}' may be placed in blocks {outside}, where '{target.name}' has no hosts: a spare there takes a "
            "failed host's place from behind another spine and other power feeds than the job's",
            f"place the spare in '{target.name}''s blocks {sorted(served_blocks)}, {APART}",
            blocks=outside,
        )
    conflict = _capacity_conflict(pool.capacity, target)
    if conflict is not None:
        message, hint = conflict
        yield error("pool.standby-capacity", ("pools", index, "capacity"), f"spare pool '{pool.name}' {message}", f"{hint}, {APART}")


def _capacity_conflict(spare: CapacitySource, target: Pool) -> tuple[str, str] | None:
    """(message tail, hint) when a spare on `spare` capacity can't share the placement of `target`'s capacity, else None."""
    served = target.capacity
    blocks = isinstance(served, CapacityBlock) or (isinstance(served, ReservationGroup) and served.capacity_blocks)
    if blocks and isinstance(served, CapacityBlock | ReservationGroup):
        if isinstance(spare, CapacityBlock | ReservationGroup) and spare.kind == served.kind and spare.reservation_id == served.reservation_id:
            return None
        what = "Capacity Block" if isinstance(served, CapacityBlock) else "reservation group of Capacity Blocks"
        return (
            f"can't share the placement of '{target.name}', whose nodes come from {what} {served.reservation_id}: EC2 places a "
            "block's instances together itself and takes no placement group on its launches, so only the same block shares it",
            f"put the spare on the same {what} (capacity kind {served.kind}, {served.reservation_id})",
        )
    if isinstance(served, CapacityReservation | ReservationGroup) and served.placement_group is not None:
        if isinstance(spare, CapacityReservation | ReservationGroup) and spare.placement_group == served.placement_group:
            return None
        return (
            f"can't share the placement of '{target.name}', whose reservation {served.reservation_id} was made in cluster placement "
            f"group {served.placement_group}: any matching instance launched into that group uses the reservation, so a spare there "
            "on other capacity would take the instances reserved for the pool",
            f"reserve the spare's capacity in placement group {served.placement_group} (placement_group: {served.placement_group})",
        )
    return None


def _reservation_room(index: int, pool: Pool, target: Pool) -> Iterable[Finding]:
    """A spare on its served pool's own reservation: the two together fit in what the reservation holds."""
    spare, served = pool.capacity, target.capacity
    reserved = CapacityReservation | CapacityBlock | ReservationGroup
    if not isinstance(spare, reserved) or not isinstance(served, reserved):
        return
    if spare.kind != served.kind or spare.reservation_id != served.reservation_id:
        return
    held = spare.instance_count if spare.instance_count is not None else served.instance_count
    most = pool.max_nodes + target.max_nodes
    if held is not None and most > held:
        yield error(
            "pool.standby-capacity",
            ("pools", index, "nodes"),
            f"spare pool '{pool.name}' (up to {pool.max_nodes} nodes) and '{target.name}' (up to {target.max_nodes}) share reservation "
            f"{spare.reservation_id}, which holds {held} instances: {most - held} of their nodes would find no reserved instance",
            f"keep the two within {held} nodes, or reserve {most}",
            held=held,
            wanted=most,
        )
