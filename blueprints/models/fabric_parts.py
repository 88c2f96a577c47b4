"""The parts a fabric is described with: its scale-up domain, per-tier ports, oversubscription and hop bounds, and the
appliances and host ports that share its leaves (`blueprints.models.fabrics` assembles them into the five kinds).
"""

from typing import Literal, Self

from pydantic import Field, model_validator

from blueprints.models.base import Model, Name, violation


class Oversubscription(Model):
    """Downlink:uplink port ratio per switch tier: 1.0 = non-blocking, above 1 oversubscribed, below 1 more up than down."""

    leaf: float = Field(default=1.0, ge=0.125, le=16.0, description="Leaf tier: host-facing over spine-facing ports (0.5 = twice the uplinks).")
    spine: float = Field(default=1.0, ge=0.125, le=16.0, description="Spine tier (three-tier fabrics): leaf-facing over core-facing.")


class HopBounds(Model):
    """The most switches a packet may cross between two accelerators of one pool."""

    same_rail: int | None = Field(default=None, ge=1, le=9, description="Bound between NICs on the same rail; none = unchecked.")
    cross_rail: int | None = Field(default=None, ge=1, le=9, description="Bound between NICs on different rails; none = unchecked.")
    cross_rail_route: Literal["best", "fabric", "scale_up"] = Field(
        default="best",
        description="The cross-rail route `cross_rail` holds: the best of both (default), the one through the fabric's spine "
        "(NVIDIA's rail-optimized reference counts this one: 3 hops), or the one through the scale-up domain first (NVLink, PXN).",
    )


class ScaleUp(Model):
    """The scale-up domain: accelerators joined by NVLink / NeuronLink rather than the fabric.

    A domain that spans hosts (an NVL72 rack's 18 compute trays) is switched by
    chips of its own; `switches`, `links_per_accelerator` and `link_gbps` describe
    them, and the checker reports the domain's switch count, ports, bandwidth,
    bisection, hops and what losing one switch costs (`scale_up` in the figures).
    """

    kind: Literal["nvlink", "neuronlink", "pcie"] = Field(description="The scale-up interconnect.")
    domain_size: int | None = Field(
        default=None, ge=1, le=576, description="Accelerators per scale-up domain; none = the catalog's value for the instance type."
    )
    switches: int | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="Scale-up switch chips per domain, every accelerator linked to each (a GB200 NVL72 rack: 18, on 9 NVLink "
        "switch trays); none = not described, so the switch figures are unknown.",
    )
    links_per_accelerator: int | None = Field(
        default=None, ge=1, le=64, description="Scale-up links per accelerator, spread evenly over the switches (Blackwell: 18 NVLink 5 links)."
    )
    link_gbps: int | None = Field(
        default=None,
        ge=10,
        le=3200,
        description="One scale-up link's speed each way, like every link in a blueprint (NVLink 5: 400, i.e. 50 GB/s each way; "
        "18 of them make NVIDIA's 1.8 TB/s per GPU, both directions added).",
    )
    switch_kw: float | None = Field(
        default=None,
        gt=0,
        le=10,
        description="IT power of one switch chip with its share of its tray, when the domain spans hosts (a host's own "
        "switches are in its draw); none = not counted (the power figures say so). Added to the domain's hosts evenly.",
    )

    @model_validator(mode="after")
    def _switched(self) -> Self:
        stated = {name: getattr(self, name) for name in ("switches", "links_per_accelerator", "link_gbps")}
        missing = [name for name, value in stated.items() if value is None]
        if missing and len(missing) < len(stated):
            raise violation(
                "fabric.scale-up-switches",
                f"a switched scale-up domain needs switches, links_per_accelerator and link_gbps together; {', '.join(missing)} missing",
                f"state {', '.join(missing)} too, or none of the three",
                field=missing[0],
            )
        if self.switch_kw is not None and self.switches is None:
            raise violation(
                "fabric.scale-up-switches",
                f"switch_kw {self.switch_kw:g} is the power of a switch chip, but the domain describes no switches",
                "state switches, links_per_accelerator and link_gbps, or remove switch_kw",
                field="switch_kw",
            )
        if self.switches is not None and self.links_per_accelerator is not None and self.links_per_accelerator % self.switches:
            raise violation(
                "fabric.scale-up-links",
                f"{self.links_per_accelerator} links per accelerator don't spread evenly over {self.switches} switches, so some "
                "accelerators would reach a switch others can't",
                f"use a multiple of {self.switches} links per accelerator, or a switch count that divides {self.links_per_accelerator}",
                field="links_per_accelerator",
            )
        return self


class TierPorts(Model):
    """One switch tier's own numbers, where they differ from the fabric's shorthand (`switch_radix`, `link_gbps`)."""

    radix: int | None = Field(default=None, ge=4, le=1024, description="Ports per switch of this tier, at its port speed; none = switch_radix.")
    uplink_gbps: int | None = Field(
        default=None,
        ge=10,
        le=1600,
        description="Speed of this tier's ports and uplinks; none = the speed of the links below it. A multiple of that speed: "
        "each down port then breaks out into uplink_gbps / that speed links (400 over 200G hosts: 2 per port).",
    )
    uplinks: int | None = Field(
        default=None, ge=1, le=1023, description="Uplink ports per switch; none = the split the tier's oversubscription gives."
    )
    switch_kw: float | None = Field(
        default=None, gt=0, le=100, description="IT power of one switch of this tier with its optics; none = the fabric's `switch_kw`."
    )
    planes: Literal[1, 2] | None = Field(
        default=None,
        description="Planes of this tier (spine or core); none = the tier below's. 1 over two planes below joins them: both "
        "planes' switches uplink to one shared layer (dual-homed ToRs under common spines). The leaf tier's are the fabric's `planes`.",
    )


class Appliance(Model):
    """A device on the fabric with no accelerator (a fabric manager such as NVIDIA UFM, a storage head, a login node)."""

    name: Name = Field(description="The appliance's name.")
    block: Name = Field(description="The block (leaf group) whose leaves it plugs into: the last leaf position there.")
    ports: int = Field(
        ge=1, le=256, description="Its links into the fabric, at the host link speed: one per rail leaf from rail 0, then the next plane."
    )


class HostPorts(Model):
    """Ports every host of the fabric has on it beside its accelerators' NICs: in-band management, storage, a DPU's ports.

    They take leaf ports and count as host links, like an appliance's, and carry
    no job traffic: a converged fabric's leaves serve both.
    """

    name: Name = Field(description="What the ports are for (inband, storage); the report names them.")
    ports: int = Field(
        ge=1,
        le=16,
        description="Ports per host, at the host link speed: one per rail leaf of the host's position from rail 0, then the "
        "next plane (two ports on two rails: one to each of two switches).",
    )
