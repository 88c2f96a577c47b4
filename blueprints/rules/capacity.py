"""A reservation or Capacity Block must match the pool: zone, instance type and size.

EKS rejects a Capacity Block node group whose subnets leave the block's zone,
and a pool larger than its reservation launches only what the reservation
holds (EKS user guide capacity-blocks-mng; aws-facts.md 4.3).
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.catalog.local_zones import load_local_zones
from blueprints.findings import Finding, error, info
from blueprints.models.capacity import CapacityBlock, CapacityReservation, ReservationGroup
from blueprints.rules.context import Context

CODES = (
    "capacity.zone-mismatch",
    "capacity.too-small",
    "capacity.type-mismatch",
    "capacity.block-unsupported-type",
    "capacity.spot-unsupported-type",
    "capacity.block-unstated",
)


def check(ctx: Context) -> Iterable[Finding]:
    """Zone, size and type of every reserved pool against its reservation."""
    for pi, pool in enumerate(ctx.blueprint.pools):
        source = pool.capacity
        spec = ctx.catalog.get(pool.instance_type)
        if source.kind == "spot" and spec is not None and "spot" not in spec.usage_classes:
            yield error(
                "capacity.spot-unsupported-type",
                ("pools", pi, "capacity", "kind"),
                f"{pool.instance_type} is not sold as spot (its usage classes, from DescribeInstanceTypes: {list(spec.usage_classes)})",
                "use on-demand capacity, a capacity reservation or a Capacity Block",
            )
        if not isinstance(source, (CapacityReservation, CapacityBlock, ReservationGroup)):  # the RESERVED_KINDS: each kind is one model
            continue
        where = ("pools", pi, "capacity")
        what = {"capacity_block": "Capacity Block", "reservation_group": "reservation group"}.get(source.kind, "capacity reservation")
        zones = [zone.availability_zone for zone in ctx.pool_zones(pool)]
        named = source.source_id if isinstance(source, CapacityBlock) else source.reservation_id
        if isinstance(source, CapacityBlock) and source.unstated:
            yield info(
                "capacity.block-unstated",
                where + ("reservation_id",),
                f"Capacity Block {source.source_id} leaves {', '.join(source.unstated)} to the account, "
                "so the checks that need them run only with `railyard validate --online`"
                + (
                    "; without a window its node group is created at full size, which EKS accepts once the block is active"
                    if source.start is None
                    else ""
                ),
                f"run `railyard validate --online`, or copy {', '.join(source.unstated)} from the block in the EC2 console",
                unstated=list(source.unstated),
            )
        # A Local Zone may be written by name or id on either side (its name and id stand for each other in every account).
        local_zones = load_local_zones()
        if source.zone is not None and zones and [local_zones.canonical(zone) for zone in zones] != [local_zones.canonical(source.zone)]:
            yield error(
                "capacity.zone-mismatch",
                where + ("zone",),
                f"the {what} {named} is in {source.zone}, but pool '{pool.name}' is placed in {zones}",
                f"place the pool only in failure domains of {source.zone}, or fix the {what}'s zone",
            )
        if source.instance_count is not None and source.instance_count < pool.max_nodes:
            yield error(
                "capacity.too-small",
                where + ("instance_count",),
                f"the {what} holds {source.instance_count} instances, but pool '{pool.name}' may grow to {pool.max_nodes} nodes",
                f"lower the pool to {source.instance_count} nodes or reserve more",
            )
        if source.instance_type is not None and source.instance_type != pool.instance_type:
            yield error(
                "capacity.type-mismatch",
                where + ("instance_type",),
                f"the {what} is for {source.instance_type}, but pool '{pool.name}' runs {pool.instance_type}",
                "make the pool's instance_type match the reservation",
            )
        blocks = source.kind == "capacity_block" or (isinstance(source, ReservationGroup) and source.capacity_blocks)
        if blocks and spec is not None and not spec.supports_capacity_blocks:
            yield error(
                "capacity.block-unsupported-type",
                where + ("kind",),
                f"{pool.instance_type} is not sold as Capacity Blocks (its usage classes: {list(spec.usage_classes)})",
                "use an on-demand capacity reservation or on-demand capacity",
            )
