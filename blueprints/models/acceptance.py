"""A pool's acceptance gate: what a new node must pass before it takes work (docs/acceptance.md)."""

from typing import Literal, Self

from pydantic import Field, model_validator

from blueprints.models.base import Model, violation

# AWS PCS's deep health check profiles (QUICK, MEDIUM, LONG: DCGM r1-r3, API_DeepHealthCheckOnStart) and DCGM's r4.
AcceptanceLevel = Literal["quick", "standard", "long", "exhaustive"]


class Acceptance(Model):
    """Hold each new node of the pool under the taint `railyard.dev/acceptance=pending:NoSchedule` until a checker has
    compared it with the design (accelerators, memory, ECC, PCIe, NVLinks, EFA devices, DCGM diagnostics at the level)
    and lifted the taint. None (the default) = no gate: a node takes work as soon as it is Ready."""

    level: AcceptanceLevel = Field(
        default="standard",
        description="How deep the check goes, in AWS PCS's words: quick, standard, long, exhaustive = DCGM diagnostics "
        "r1, r2, r3, r4 on NVIDIA pools (r4 runs 45 min to 2.25 h per node, needs the DCGM exporter stopped and MIG off). "
        "On Neuron pools every level runs the hardware inventory (neuron-ls against the design's devices and cores).",
    )
    burn_in_minutes: int | None = Field(
        default=None,
        ge=1,
        le=24 * 60,
        description="Minutes of load after the checks, counted in the time and accelerator-hours acceptance costs; "
        "none = no burn-in. On NVIDIA pools, DCGM's targeted_stress, targeted_power and memory_bandwidth "
        "(floor: 0.57 of the catalog's HBM bandwidth).",
    )
    timeout_minutes: int | None = Field(
        default=None,
        ge=5,
        le=24 * 60,
        description="The longest a node may spend under acceptance before it counts as failed; none = the level's longest "
        "published duration plus the burn-in plus 15 minutes. `validate` refuses one shorter than the level's published duration.",
    )
    on_failure: Literal["taint", "replace"] = Field(
        default="taint",
        description="What a failed node gets. `taint` keeps it tainted (no work lands there) with the failed checks in its "
        "`railyard.dev/Accepted` condition and `railyard.dev/acceptance` annotation, for an operator to act on. `replace` "
        "does that, then marks its instance Unhealthy (Auto Scaling SetInstanceHealth) so the node group's Auto Scaling group "
        "terminates it and launches another, which is checked in turn; the checker gets autoscaling:SetInstanceHealth on "
        "the cluster's replace pools' groups through an EKS Pod Identity role. Managed node groups only (Karpenter launches "
        "no Auto Scaling group); on a Capacity Block the replacement comes back only once the block has room (docs/acceptance.md).",
    )

    @model_validator(mode="after")
    def _burn_in_fits(self) -> Self:
        if self.timeout_minutes is not None and self.burn_in_minutes is not None and self.burn_in_minutes >= self.timeout_minutes:
            raise violation(
                "pool.acceptance-burn-in",
                f"burn_in_minutes {self.burn_in_minutes} is not shorter than timeout_minutes {self.timeout_minutes}",
                f"raise timeout_minutes above {self.burn_in_minutes}, or shorten the burn-in",
                field="burn_in_minutes",
            )
        return self
