"""Where a pool's instances come from: the capacity source, as a typed object.

The capacity source decides placement (no placement group on a reservation or
Capacity Block: AWS places those, and a placement group there is a known cause
of failed launches), the node group's capacity type, and launch-template
reservation targeting. Limits cite ../shared/research/aws-facts.md section 4.3.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Literal, Self

from pydantic import Field, StringConstraints, model_validator

from blueprints.models.base import AvailabilityZone, Model, UtcTime, violation

ReservationId = Annotated[
    str,
    StringConstraints(pattern=r"^cr-[0-9a-f]{8,17}$"),
    Field(description="A capacity reservation id, such as cr-0123456789abcdef0."),
]
InstanceTypeName = Annotated[
    str, StringConstraints(pattern=r"^[a-z0-9-]+\.[a-z0-9-]+$"), Field(description="An EC2 instance type, such as p5.48xlarge.")
]

# Capacity Blocks: 1 to 64 instances per block; durations of 1 to 14 days in 1-day
# steps, then up to 182 days in 7-day steps (botocore DescribeCapacityBlockOfferings;
# EC2 user guide "Capacity Blocks for ML"; aws-facts.md 4.3).
CAPACITY_BLOCK_MAX_INSTANCES = 64
CAPACITY_BLOCK_MAX_DAYS = 182


class OnDemand(Model):
    """Plain on-demand capacity: no reservation; a cluster placement group is used for EFA training pools."""

    kind: Literal["on_demand"] = Field(description="On-demand instances.")


class Spot(Model):
    """Spot capacity: interruptible; allowed only for the roles the policy pack permits."""

    kind: Literal["spot"] = Field(description="Spot instances.")


class CapacityReservation(Model):
    """An on-demand capacity reservation (ODCR) the node group targets."""

    kind: Literal["capacity_reservation"] = Field(description="An on-demand capacity reservation.")
    reservation_id: ReservationId
    zone: AvailabilityZone = Field(description="The zone the reservation is in; the pool must be placed there.")
    instance_type: InstanceTypeName = Field(description="The instance type reserved; must equal the pool's.")
    instance_count: int = Field(ge=1, le=1000, description="Instances reserved (ODCR: 1 to 1000).")


class CapacityBlock(Model):
    """An EC2 Capacity Block for ML: a fixed number of instances for a fixed window.

    Only the id is required: the zone, type, count and window are facts EC2 already
    holds for the block (DescribeCapacityReservations). Each one given is checked
    offline against the pool; each one left out is checked by `validate --online`,
    which reads it from the account.
    """

    kind: Literal["capacity_block"] = Field(description="An EC2 Capacity Block for ML.")
    reservation_id: ReservationId
    zone: AvailabilityZone | None = Field(default=None, description="The zone the block is in; the pool must be placed there. None = read online.")
    instance_type: InstanceTypeName | None = Field(default=None, description="The block's instance type; must equal the pool's. None = read online.")
    instance_count: int | None = Field(default=None, ge=1, description="Instances in the block (AWS: at most 64 per block). None = read online.")
    start: UtcTime | None = Field(
        default=None, description="When the block starts (ISO 8601 with its zone, e.g. 2026-12-01T11:30:00Z). None = read online."
    )
    end: UtcTime | None = Field(
        default=None, description="When the block ends (ISO 8601 with its zone). EC2 starts terminating 30 minutes before. None = read online."
    )

    @property
    def unstated(self) -> tuple[str, ...]:
        """The fields left for `validate --online` to read from the account, in declaration order."""
        return tuple(name for name in ("zone", "instance_type", "instance_count", "start", "end") if getattr(self, name) is None)

    @model_validator(mode="after")
    def _within_aws_limits(self) -> Self:
        if self.instance_count is not None and self.instance_count > CAPACITY_BLOCK_MAX_INSTANCES:
            raise violation(
                "capacity.block-too-large",
                f"instance_count {self.instance_count} exceeds the Capacity Block maximum of {CAPACITY_BLOCK_MAX_INSTANCES} instances per block",
                "split the pool over several blocks (up to 256 instances across blocks) or use a reservation",
                field="instance_count",
            )
        if (self.start is None) != (self.end is None):
            given, missing = ("start", "end") if self.end is None else ("end", "start")
            raise violation(
                "capacity.block-window",
                f"{given} is set but {missing} is not; a window is checked only whole",
                f"set {missing} too (copy both from the offering you purchased), or leave both out to read them online",
                field=missing,
            )
        if self.start is None or self.end is None:
            return self
        if self.end <= self.start:
            raise violation(
                "capacity.block-window",
                f"end {self.end.isoformat()} is not after start {self.start.isoformat()}",
                "set end after start",
                field="end",
            )
        length = self.end - self.start
        days = length / timedelta(days=1)
        legal = (days <= 14 and days == int(days)) or (14 < days <= CAPACITY_BLOCK_MAX_DAYS and days % 7 == 0)
        if not legal:
            raise violation(
                "capacity.block-duration",
                f"the block lasts {days:g} days; Capacity Blocks last 1 to 14 days in 1-day steps, "
                f"then up to {CAPACITY_BLOCK_MAX_DAYS} days in 7-day steps",
                "copy start and end from the offering you purchased",
                field="end",
            )
        return self


CapacitySource = Annotated[
    OnDemand | Spot | CapacityReservation | CapacityBlock,
    Field(discriminator="kind", description="Where the pool's instances come from."),
]

RESERVED_KINDS = ("capacity_reservation", "capacity_block")
