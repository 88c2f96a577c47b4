"""A reservation larger than every pool that uses it is capacity paid for and never launched.

A capacity reservation or Capacity Block is billed for every instance it
holds, used or not. When the pools that name it can grow to fewer nodes than
it holds together, the difference sits idle for the reservation's life
(ParallelCluster's CapacityReservationSizeValidator checks the other side, a
queue larger than its reservation, which `capacity.too-small` reports).
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, warning
from blueprints.models.capacity import CapacityBlock, CapacityReservation, ReservationGroup
from blueprints.rules.context import Context

CODES = ("capacity.reservation-unused",)


def check(ctx: Context) -> Iterable[Finding]:
    """A warning per reservation whose pools together can't use all the instances it holds."""
    users: dict[str, list[int]] = {}
    for index, pool in enumerate(ctx.blueprint.pools):
        if isinstance(pool.capacity, CapacityReservation | CapacityBlock | ReservationGroup):
            source = pool.capacity
            users.setdefault(source.source_id if isinstance(source, CapacityBlock) else source.reservation_id, []).append(index)
    for reservation_id, indexes in users.items():
        first = ctx.blueprint.pools[indexes[0]]
        held = first.capacity.instance_count if isinstance(first.capacity, CapacityReservation | CapacityBlock | ReservationGroup) else None
        if held is None:
            continue  # an unstated count is read by `validate --online`
        most = sum(ctx.blueprint.pools[index].max_nodes for index in indexes)
        if most < held:
            names = ", ".join(f"'{ctx.blueprint.pools[index].name}'" for index in indexes)
            yield warning(
                "capacity.reservation-unused",
                ("pools", indexes[0], "capacity", "instance_count"),
                f"reservation {reservation_id} holds {held} instances, but pool {names} can grow to only {most}: "
                f"{held - most} reserved instances are paid for and never launched",
                f"let the pool grow to {held} nodes, or reserve {most}",
                reservation=reservation_id,
                held=held,
                usable=most,
            )
