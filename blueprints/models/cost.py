"""What railyard can't know of an account's prices: its discounts, and the prices its tables lack.

railyard prices a design from its generated tables (`blueprints/catalog/prices.json`): On-Demand
per instance type, Capacity Blocks, the EKS control plane, FSx for Lustre, EBS and the NAT gateway.
Spot prices and Savings Plans belong to an account and a moment, so a blueprint declares them;
so does an On-Demand price for a type or region the table lacks. Nothing declared is ever guessed:
a price nobody gave is reported as unknown (docs/cost.md).
"""

from typing import Annotated

from pydantic import Field, StringConstraints

from blueprints.models.base import Model, no_entries

Discount = Annotated[float, Field(ge=0, lt=1)]
Dollars = Annotated[float, Field(gt=0, le=10_000)]


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
    instance_hourly_usd: dict[Annotated[str, StringConstraints(pattern=r"^[a-z0-9-]+\.[a-z0-9-]+$")], Dollars] = Field(
        default_factory=no_entries,
        description="On-Demand USD per instance-hour for instance types railyard's table lacks in the blueprint's region "
        "(its table is us-east-1's); a declared price wins over the table's.",
    )
