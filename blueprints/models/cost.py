"""What railyard can't know of an account's prices: its discounts, and every price its tables can lack.

railyard prices a design from its generated tables (`blueprints/catalog/prices.json`): On-Demand
per instance type, Capacity Blocks, the EKS control plane, FSx for Lustre, EBS and the NAT gateway.
Spot prices and Savings Plans belong to an account and a moment, so a blueprint declares them; so does
every price the tables lack: an instance type's On-Demand rate in a region the table doesn't cover, the
rate or total AWS quoted for a Capacity Block, an FSx for Lustre tier, gp3 storage and the NAT gateway
outside us-east-1. Each field's name carries its unit. Nothing declared is ever guessed: a price nobody
gave is reported as unknown (docs/cost.md), and its finding names the field below that would give it.
"""

from typing import Annotated, Literal, Self

from pydantic import Field, StringConstraints, model_validator

from blueprints.models.base import Model, Name, no_entries, no_items, violation

Discount = Annotated[float, Field(ge=0, lt=1)]
Dollars = Annotated[float, Field(gt=0, le=10_000)]
InstanceTypeKey = Annotated[str, StringConstraints(pattern=r"^[a-z0-9-]+\.[a-z0-9-]+$")]


class CapacityBlockQuote(Model):
    """What AWS quoted for one Capacity Block pool when it offered the block: its rate, or its total, not both."""

    usd_per_instance_hour: Dollars | None = Field(
        default=None, description="The quoted USD per instance-hour; the upfront is it × instances × the window's hours."
    )
    total_usd: Annotated[float, Field(gt=0, le=1_000_000_000)] | None = Field(
        default=None, description="The quoted total USD for the whole block, paid upfront; per hour it is the total over the window's hours."
    )

    @model_validator(mode="after")
    def _one_figure(self) -> Self:
        if (self.usd_per_instance_hour is None) == (self.total_usd is None):
            given = "both" if self.total_usd is not None else "neither"
            raise violation(
                "cost.declared-price",
                f"a Capacity Block quote gives its rate or its total, and this one gives {given}",
                "keep the figure AWS quoted: usd_per_instance_hour (the rate) or total_usd (the whole block)",
                field="usd_per_instance_hour",
            )
        return self


class FsxLustrePrice(Model):
    """The per GB-month price of one FSx for Lustre tier in the blueprint's region, as AWS's FSx pricing page gives it."""

    deployment_type: Literal["SCRATCH_1", "SCRATCH_2", "PERSISTENT_1", "PERSISTENT_2"] = Field(description="The tier's deployment type.")
    storage_type: Literal["SSD", "HDD"] = Field(default="SSD", description="SSD, or HDD (PERSISTENT_1 only).")
    throughput_mbps_per_tib: int | None = Field(
        default=None, gt=0, description="The persistent tier's throughput (MB/s per TiB) the price is for; none for scratch."
    )
    usd_per_gb_month: Annotated[float, Field(gt=0, le=10)] = Field(description="USD per GB-month of storage capacity.")

    @property
    def tier(self) -> tuple[str, str, int | None]:
        """(deployment type, storage type, throughput): what a file system is matched on."""
        return (self.deployment_type, self.storage_type, self.throughput_mbps_per_tib)


class Cost(Model):
    """The account's discounts and declared prices."""

    spot_discount: Discount | None = Field(
        default=None,
        description="Spot's discount off On-Demand for these types in this region (0.6 = 60% off), as the account sees it; "
        "none = spot pools are reported unpriced.",
    )
    on_demand_discount: Discount = Field(
        default=0.0,
        description="A Savings Plan's or private pricing's discount off On-Demand and reservation rates (0.28 = 28% off). "
        "Capacity Blocks are priced as bought and get none.",
    )
    instance_usd_per_hour: dict[InstanceTypeKey, Dollars] = Field(
        default_factory=no_entries,
        description="On-Demand USD per instance-hour for instance types railyard's table lacks in the blueprint's region "
        "(its table covers us-east-1 and GovCloud's two regions, docs/cost.md); a declared price wins over the table's.",
    )
    capacity_block_quotes: dict[Name, CapacityBlockQuote] = Field(
        default_factory=no_entries,
        description="Per pool on Capacity Blocks (a capacity_block, or a reservation_group with capacity_blocks: true), by pool "
        "name, the rate or total AWS quoted; wins over railyard's indicative table.",
    )
    fsx_lustre: list[FsxLustrePrice] = Field(
        default_factory=no_items, description="FSx for Lustre prices per tier, for tiers railyard's table lacks; a declared price wins."
    )
    ebs_gp3_usd_per_gb_month: Annotated[float, Field(gt=0, le=10)] | None = Field(
        default=None, description="gp3 storage, USD per GB-month, where railyard's table lacks the region; none = the table's."
    )
    nat_gateway_usd_per_hour: Annotated[float, Field(gt=0, le=10)] | None = Field(
        default=None,
        description="One NAT gateway, USD per hour, where railyard's table lacks the region; none = the table's. "
        "Its Elastic IP's public IPv4 charge is added to it (AWS's one price in every region).",
    )

    @model_validator(mode="after")
    def _one_price_per_tier(self) -> Self:
        tiers = [price.tier for price in self.fsx_lustre]
        for index, tier in enumerate(tiers):
            if tier in tiers[:index]:
                throughput = f" {tier[2]} MB/s/TiB" if tier[2] else ""
                raise violation(
                    "cost.declared-price",
                    f"fsx_lustre prices {tier[0]} {tier[1]}{throughput} twice",
                    "keep one price per deployment type, storage type and throughput",
                    field=f"fsx_lustre.{index}",
                )
        return self
