"""Site power: budgets, PUE and cooling. Per-node draw comes from the catalog unless a pool overrides it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from blueprints.models.base import Model, PositiveKw


class Power(Model):
    """The site's power envelope. Budgets left out are not checked."""

    site_budget_kw: PositiveKw | None = Field(default=None, description="The site's facility power budget (IT load x PUE); none = unchecked.")
    rack_budget_kw: PositiveKw | None = Field(default=None, description="Default IT budget of every rack whose block sets none; none = unchecked.")
    pue: float = Field(default=1.3, ge=1.0, le=3.0, description="Power usage effectiveness: facility kW per IT kW.")
    cooling: Literal["air", "liquid", "hybrid"] = Field(
        default="air", description="How racks are cooled; liquid cooling is needed above about 40 kW per rack."
    )
