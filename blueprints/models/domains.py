"""Failure domains: a hierarchy of zone -> block (a network spine / power block) -> rack.

Racks inside a block are identical, so a block declares how many there are and
how many hosts each holds instead of listing them; this keeps a 16,384-node
design to a few dozen lines. Each block has its own power feeds; a rack is fed
by `feeds_per_rack` of them (2 = dual-corded A/B feeds, so losing one feed takes
no rack down). The topology checker expands this into racks, feeds and hosts.
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, model_validator

from blueprints.models.base import AvailabilityZone, Model, Name, PositiveKw, violation


class Block(Model):
    """A block of identical racks behind one network spine group and one set of power feeds."""

    name: Name = Field(description="The block's name; pools may be placed in it by name.")
    racks: int = Field(ge=1, le=100_000, description="How many identical racks the block holds.")
    hosts_per_rack: int = Field(ge=1, le=128, description="The most hosts (instances) one rack holds.")
    power_feeds: int = Field(default=2, ge=1, le=64, description="Independent power feeds into the block.")
    feeds_per_rack: Literal[1, 2] = Field(default=2, description="Feeds each rack draws from: 2 (dual-corded, survives one feed) or 1.")
    budget_kw: PositiveKw | None = Field(default=None, description="The block's IT power budget; none = unchecked.")
    rack_budget_kw: PositiveKw | None = Field(
        default=None, description="Each rack's IT power budget; none = the site default in `power.rack_budget_kw`."
    )

    @model_validator(mode="after")
    def _feeds_fit(self) -> Self:
        if self.feeds_per_rack > self.power_feeds:
            raise violation(
                "domain.feeds-per-rack",
                f"feeds_per_rack {self.feeds_per_rack} is more than the block's power_feeds {self.power_feeds}",
                "add a second feed to the block or set feeds_per_rack: 1",
                field="feeds_per_rack",
            )
        return self

    @property
    def host_slots(self) -> int:
        """How many hosts the block can hold."""
        return self.racks * self.hosts_per_rack


class Zone(Model):
    """An availability zone as a failure domain: the widest single failure railyard models."""

    name: Name = Field(description="The failure domain's name; pools are placed in it by name.")
    availability_zone: AvailabilityZone = Field(description="The AWS zone this failure domain is.")
    budget_kw: PositiveKw | None = Field(default=None, description="The zone's IT power budget; none = unchecked.")
    blocks: list[Block] = Field(min_length=1, description="The blocks (spine groups / power blocks) in the zone.")

    @property
    def host_slots(self) -> int:
        """How many hosts the zone can hold."""
        return sum(block.host_slots for block in self.blocks)


class FailureDomains(Model):
    """The failure-domain hierarchy of the whole site."""

    zones: list[Zone] = Field(min_length=1, description="Zones, each with its blocks and racks.")
