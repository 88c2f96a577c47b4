"""What a job needs, for `railyard plan`: accelerators, a window, a budget; not which cluster to build.

A needs file is read as strictly as a blueprint (`extra="forbid"`, findings with file and line,
`railyard schema needs` prints its JSON Schema). `railyard plan` expands it into instance types from
the catalog, searches (or reads) Capacity Block offerings for them, and writes each feasible
combination as a blueprint built on `base` (docs/plan.md).
"""

from datetime import date
from typing import Annotated, Literal, Self

from pydantic import Field, StringConstraints, model_validator

from blueprints.models.base import AvailabilityZone, Model, Name, no_entries, no_items, violation
from blueprints.models.capacity import CAPACITY_BLOCK_MAX_DAYS, InstanceTypeName

RegionName = Annotated[str, StringConstraints(pattern=r"^[a-z]{2}(-gov)?-[a-z]+-[0-9]$"), Field(description="An AWS region, such as us-east-1.")]
AcceleratorKind = Annotated[
    str, StringConstraints(pattern=r"^[a-z0-9]+$"), Field(description="A catalog accelerator model in lower case: h100, h200, b200, trainium2...")
]

# botocore ec2 DescribeCapacityBlockOfferings, InstanceCount: "Each Capacity Block can have up to 64 instances, and you can
# have up to 256 instances across Capacity Blocks."
CAPACITY_BLOCK_ACCOUNT_INSTANCES = 256
CODES = ("needs.accelerators", "needs.window")


class Accelerators(Model):
    """How many accelerators the job needs in one training pool, and of which kinds (or instance types)."""

    count: int = Field(ge=1, le=100_000, description="Accelerators in the one training pool.")
    kinds: list[AcceleratorKind] = Field(
        default_factory=no_items, description="Catalog accelerator models (`railyard catalog`'s accelerator column, lower case)."
    )
    instance_types: list[InstanceTypeName] = Field(default_factory=no_items, description="Instance types, instead of kinds.")
    min_memory_gib: float | None = Field(default=None, gt=0, description="Memory per accelerator at least this (GiB); none = any.")

    @model_validator(mode="after")
    def _kinds_or_types(self) -> Self:
        if bool(self.kinds) == bool(self.instance_types):
            given = "both" if self.kinds else "neither"
            raise violation(
                "needs.accelerators",
                f"accelerators name kinds or instance_types, and this names {given}",
                "list kinds (h100, h200, ...) to let railyard choose the types, or instance_types to choose them yourself",
                field="kinds",
            )
        return self


class Interconnect(Model):
    """What the job needs between accelerators."""

    min_network_gbps_per_accelerator: float | None = Field(
        default=None, gt=0, description="Scale-out (EFA) bandwidth per accelerator at least this: the type's network Gbps over its accelerators."
    )
    scale_up_accelerators: int | None = Field(
        default=None, ge=1, description="The NVLink / NeuronLink domain holds at least this many accelerators (72: GB200 UltraServers only)."
    )


class Window(Model):
    """When the job may run, and for how long."""

    earliest_start: date = Field(description="The first day the capacity may start (UTC).")
    latest_end: date = Field(description="The last day the capacity may end (UTC, the day itself included).")
    duration_days: int = Field(
        ge=1,
        le=CAPACITY_BLOCK_MAX_DAYS,
        description="How long the job runs; rounded up to a duration Capacity Blocks are sold in (1-14 days, then 7-day steps), with a note.",
    )

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.latest_end <= self.earliest_start:
            raise violation(
                "needs.window",
                f"latest_end {self.latest_end} is not after earliest_start {self.earliest_start}",
                "set latest_end after earliest_start",
                field="latest_end",
            )
        return self


class Budget(Model):
    """What the capacity may cost."""

    max_upfront_usd: float | None = Field(default=None, gt=0, description="The Capacity Blocks' upfront fees together at most this (USD).")


class CheckpointNeed(Model):
    """A checkpoint the job writes, to size the base's FSx for Lustre tier."""

    checkpoint_gib: float = Field(gt=0, description="One full checkpoint's size (GiB).")
    checkpoint_seconds: float = Field(gt=0, description="The longest a checkpoint write may take (seconds).")
    tier: Name | None = Field(default=None, description="The base's FSx for Lustre tier to size; none = its first one.")


class Needs(Model):
    """What a job needs: `railyard plan` turns it into ranked blueprints, each one already validated."""

    version: Literal[1] = Field(description="The needs language version. Always 1.")
    kind: Literal["needs"] = Field(description="Always `needs`: tells a needs file from a blueprint.")
    name: Name = Field(description="The job's name; written blueprints are named from it.")
    base: str = Field(
        min_length=1,
        description="A blueprint to build on (path relative to this file): its metadata, cloud, kubernetes, storage, power, "
        "quotas and cost are kept; its pools, failure domains and fabrics are replaced.",
    )
    regions: list[RegionName] = Field(min_length=1, max_length=30, description="The regions to search.")
    zones: dict[RegionName, list[AvailabilityZone]] = Field(
        default_factory=no_entries,
        description="Zones the cluster's subnets may use per region (EKS needs two); none = the base's in its region, "
        "and the zones the offerings name.",
    )
    accelerators: Accelerators = Field(description="How many accelerators, of which kinds.")
    interconnect: Interconnect = Field(default_factory=Interconnect, description="What the job needs between accelerators.")
    window: Window = Field(description="When the job may run, and for how long.")
    budget: Budget = Field(default_factory=Budget, description="What the capacity may cost.")
    block_instance_limit: int = Field(
        default=CAPACITY_BLOCK_ACCOUNT_INSTANCES,
        ge=1,
        le=100_000,
        description="Instances the account may hold across Capacity Blocks: 256 (botocore's DescribeCapacityBlockOfferings "
        "InstanceCount documentation) unless AWS raised it for this account.",
    )
    storage: CheckpointNeed | None = Field(default=None, description="A checkpoint to size the FSx for Lustre tier from; none = as the base has it.")
    rank_by: Literal["upfront", "start", "usd_per_accelerator_hour"] = Field(
        default="upfront", description="How candidates are ordered: the cheapest upfront, the earliest start, or the cheapest accelerator-hour."
    )
