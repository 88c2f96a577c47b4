"""Where a pool's instances come from: the capacity source, as a typed object.

The capacity source decides placement (no placement group on a reservation or
Capacity Block: AWS places those, and a placement group there is a known cause
of failed launches), the node group's capacity type, and launch-template
reservation targeting. Limits cite ../shared/research/aws-facts.md section 4.3.
"""

from datetime import timedelta
from typing import Annotated, Literal, Self

from pydantic import Field, StringConstraints, model_validator

from blueprints.models.base import DomainZone, Model, UtcTime, no_items, violation

ReservationId = Annotated[
    str,
    StringConstraints(pattern=r"^cr-[0-9a-f]{8,17}$"),
    Field(description="A capacity reservation id, such as cr-0123456789abcdef0."),
]
# DescribeCapacityBlockOfferings' CapacityBlockOfferingId: botocore's model gives the member no pattern; EC2 ids are
# a prefix and 8 or 17 hex digits, as reservation ids are.
OfferingId = Annotated[
    str,
    StringConstraints(pattern=r"^cb-[0-9a-f]{8,17}$"),
    Field(description="A Capacity Block offering id (DescribeCapacityBlockOfferings' CapacityBlockOfferingId), such as cb-0123456789abcdef0."),
]
# EC2 CreatePlacementGroup GroupName: up to 255 ASCII characters (railyard keeps to letters, digits and ._-).
PlacementGroupName = Annotated[
    str,
    StringConstraints(pattern=r"^[A-Za-z0-9._-]{1,255}$"),
    Field(description="The name of an existing cluster placement group."),
]
# A Resource Groups group ARN (resource-groups GroupArn: arn:<partition>:resource-groups:<region>:<account>:group/<name>).
ResourceGroupArn = Annotated[
    str,
    StringConstraints(pattern=r"^arn:aws(-[a-z]+)*:resource-groups:[a-z0-9-]+:[0-9]{12}:group/[a-zA-Z0-9_.-]{1,300}$"),
    Field(description="A capacity reservation group's ARN, such as arn:aws:resource-groups:us-east-1:123456789012:group/my-crs."),
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
    zone: DomainZone = Field(description="The zone the reservation is in; the pool must be placed there.")
    instance_type: InstanceTypeName = Field(description="The instance type reserved; must equal the pool's.")
    instance_count: int = Field(ge=1, le=1000, description="Instances reserved (ODCR: 1 to 1000).")
    placement_group: PlacementGroupName | None = Field(
        default=None,
        description="The cluster placement group the reservation was created in (CreateCapacityReservation PlacementGroupArn); "
        "its instances must launch into that group to use it, so the nodes do. None = a zonal reservation.",
    )


class ReservationGroup(Model):
    """A capacity reservation group (an AWS Resource Group of kind `AWS::EC2::CapacityReservationPool`) the node group targets.

    Several reservations used as one: EC2 launches into any member with room
    (matching type, platform, zone and tenancy). Name the reservations and
    railyard makes the group, or name a group that exists. With
    `capacity_blocks`, the members are Capacity Blocks (an UltraServer's, for
    one): the node group is then a Capacity Block group (EC2 user guide,
    "Capacity Reservation groups"; "Create a resource group for UltraServer
    Capacity Blocks"). Only `active` reservations can join a group.
    """

    kind: Literal["reservation_group"] = Field(description="A capacity reservation group.")
    reservation_ids: list[ReservationId] = Field(
        default_factory=no_items, max_length=100, description="The reservations railyard groups (it makes the group); empty with group_arn."
    )
    group_arn: ResourceGroupArn | None = Field(default=None, description="A group that already exists; none = railyard makes one of reservation_ids.")
    offering_ids: list[OfferingId] = Field(
        default_factory=no_items,
        max_length=100,
        description="Capacity Block offerings not bought yet (`railyard plan` writes them; `railyard plan adopt` swaps in the "
        "reservations bought). `validate` notes them; `preview` and `pulumi up` refuse them.",
    )
    capacity_blocks: bool = Field(default=False, description="The members are Capacity Blocks for ML (an UltraServer's, for one).")
    zone: DomainZone | None = Field(default=None, description="The members' zone; the pool must be placed there. None = unchecked offline.")
    instance_type: InstanceTypeName | None = Field(default=None, description="The members' instance type; must equal the pool's.")
    instance_count: int | None = Field(default=None, ge=1, description="Instances the members hold together. None = unchecked offline.")
    placement_group: PlacementGroupName | None = Field(
        default=None, description="The cluster placement group the members were created in; the nodes launch into it."
    )

    @property
    def reservation_id(self) -> str:
        """How messages name the group: its ARN, or its reservations."""
        return self.group_arn or "+".join(self.reservation_ids or self.offering_ids)

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        given = [name for name in ("reservation_ids", "group_arn", "offering_ids") if getattr(self, name)]
        if len(given) != 1:
            raise violation(
                "capacity.group-members",
                "a reservation group names its reservations, an existing group's ARN or the offerings to buy, "
                + (
                    f"not both {given[0]} and {given[1]}"
                    if len(given) == 2
                    else f"not all of {', '.join(given)}"
                    if given
                    else "and this one names neither"
                ),
                "list reservation_ids for railyard to group, or give group_arn (offering_ids only until the blocks are bought)",
                field=given[-1] if given else "reservation_ids",
            )
        for name in ("reservation_ids", "offering_ids"):
            members = getattr(self, name)
            if len(set(members)) != len(members):
                raise violation("capacity.group-members", f"{name} lists a member twice", "list each once", field=name)
        if self.offering_ids and not self.capacity_blocks:
            raise violation(
                "capacity.group-members",
                "offering_ids are Capacity Block offerings, but capacity_blocks is false",
                "set capacity_blocks: true",
                field="capacity_blocks",
            )
        if self.capacity_blocks and self.placement_group is not None:
            raise violation(
                "capacity.group-members",
                "Capacity Blocks are bought without a placement group (PurchaseCapacityBlock takes none)",
                "drop placement_group",
                field="placement_group",
            )
        return self


class CapacityBlock(Model):
    """An EC2 Capacity Block for ML: a fixed number of instances for a fixed window.

    Only the id is required: the zone, type, count and window are facts EC2 already
    holds for the block (DescribeCapacityReservations). Each one given is checked
    offline against the pool; each one left out is checked by `validate --online`,
    which reads it from the account. A block not bought yet is named by its
    offering (`offering_id`, as `railyard plan` writes it) with every fact stated;
    `validate` notes it and `preview` refuses it until `railyard plan adopt`
    puts the reservation bought in its place.
    """

    kind: Literal["capacity_block"] = Field(description="An EC2 Capacity Block for ML.")
    reservation_id: ReservationId | None = Field(default=None, description="The block's reservation id (cr-...), once bought.")
    offering_id: OfferingId | None = Field(
        default=None,
        description="The offering to buy (cb-...), until it is bought: `validate` notes it, `preview` and `pulumi up` refuse it; "
        "`railyard plan adopt` swaps in the reservation id.",
    )
    zone: DomainZone | None = Field(default=None, description="The zone the block is in; the pool must be placed there. None = read online.")
    instance_type: InstanceTypeName | None = Field(default=None, description="The block's instance type; must equal the pool's. None = read online.")
    instance_count: int | None = Field(default=None, ge=1, description="Instances in the block (AWS: at most 64 per block). None = read online.")
    start: UtcTime | None = Field(
        default=None, description="When the block starts (ISO 8601 with its zone, e.g. 2026-12-01T11:30:00Z). None = read online."
    )
    end: UtcTime | None = Field(
        default=None, description="When the block ends (ISO 8601 with its zone). EC2 starts terminating 30 minutes before. None = read online."
    )

    @property
    def source_id(self) -> str:
        """How messages name the block: its reservation id, or the offering it will be bought from."""
        return self.reservation_id or f"offering {self.offering_id}"

    @property
    def unstated(self) -> tuple[str, ...]:
        """The fields left for `validate --online` to read from the account, in declaration order."""
        return tuple(name for name in ("zone", "instance_type", "instance_count", "start", "end") if getattr(self, name) is None)

    @model_validator(mode="after")
    def _within_aws_limits(self) -> Self:
        if (self.reservation_id is None) == (self.offering_id is None):
            raise violation(
                "capacity.block-id",
                "a Capacity Block is named by its reservation_id (cr-...) or, until it is bought, its offering_id (cb-...), "
                + ("not both" if self.reservation_id else "and this one names neither"),
                "keep reservation_id once the block is bought (`railyard plan adopt FILE --reservation cr-...` swaps it in)",
                field="offering_id" if self.reservation_id else "reservation_id",
            )
        if self.offering_id is not None and self.unstated:
            raise violation(
                "capacity.block-id",
                f"an offering not bought yet has no facts in the account to read, but this one leaves {', '.join(self.unstated)} unstated",
                "copy zone, instance_type, instance_count, start and end from the offering (railyard plan writes them)",
                field=self.unstated[0],
            )
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
    OnDemand | Spot | CapacityReservation | CapacityBlock | ReservationGroup,
    Field(discriminator="kind", description="Where the pool's instances come from."),
]

RESERVED_KINDS = ("capacity_reservation", "capacity_block", "reservation_group")


def holds_capacity_blocks(source: CapacitySource) -> bool:
    """True for capacity that is Capacity Blocks for ML: a `capacity_block`, or a `reservation_group` of blocks (an UltraServer's,
    for one). Such capacity is bought for a window and paid upfront, and its node groups are EKS Capacity Block groups."""
    return isinstance(source, CapacityBlock) or (isinstance(source, ReservationGroup) and source.capacity_blocks)
