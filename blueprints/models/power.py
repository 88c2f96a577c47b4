"""Site power: budgets, PUE and cooling. Per-node draw comes from the catalog unless a pool overrides it."""

from typing import Literal, Self

from pydantic import Field, model_validator

from blueprints.models.base import Model, PositiveKw, violation


class Power(Model):
    """The site's power envelope. Budgets left out are not checked."""

    site_budget_kw: PositiveKw | None = Field(default=None, description="The site's facility power budget (IT load x PUE); none = unchecked.")
    rack_budget_kw: PositiveKw | None = Field(default=None, description="Default IT budget of every rack whose block sets none; none = unchecked.")
    pue: float | None = Field(
        default=None, ge=1.0, le=3.0, description="Power usage effectiveness: facility kW per IT kW; none = the facility load is not computed."
    )
    cooling: Literal["air", "liquid", "hybrid"] = Field(
        default="air", description="How racks are cooled; liquid cooling is needed above about 40 kW per rack."
    )

    @model_validator(mode="after")
    def _pue_for_site_budget(self) -> Self:
        if self.site_budget_kw is not None and self.pue is None:
            raise violation(
                "power.pue-unstated",
                f"site_budget_kw {self.site_budget_kw:g} is a facility budget, but no pue says how IT load becomes facility load",
                "state pue (your facility's measured power usage effectiveness, such as 1.2)",
                field="site_budget_kw",
            )
        return self
