"""Failure domains: a hierarchy of zone -> block (a network spine / power block) -> rack.

Racks inside a block are identical, so a block declares how many there are and
how many hosts each holds instead of listing them; this keeps a 16,384-node
design to a few dozen lines. Each block has its own power feeds; a rack is fed
by `feeds_per_rack` of them (2 = dual-corded A/B feeds, so losing one feed takes
no rack down). The topology checker expands this into racks, feeds and hosts.

Racks are optional. On AWS nobody is told which rack an instance lands in, so
a block may leave out `racks` and `hosts_per_rack` (it then holds any number of
hosts), and a zone may leave out `blocks` (it is then one such block). The
figures that need racks (rack and feed power, a rack's or feed's blast radius,
`spread: racks`, a ToR per rack) are then reported as unknown, never guessed.
"""

import functools
from typing import Literal, Self

from pydantic import Field, model_validator

from blueprints.models.base import DomainZone, Model, Name, PositiveKw, no_items, violation

# What `railyard explain` says for the two codes `_feeds_fit` raises from one loop (their wording is built per field).
EXPLAIN = {
    "domain.rack-budget-without-racks": {
        "meaning": "a block sets rack_budget_kw but states no racks, so no rack can be checked against the rating",
        "why": "a rack's draw is the sum of the hosts in it: without racks and hosts_per_rack railyard can't tell which hosts "
        "share a rack, and a rating nothing is checked against would read as a check that passed",
        "fix": "state racks and hosts_per_rack, or remove rack_budget_kw (budget_kw still checks the whole block)",
    },
    "domain.feed-budget-without-racks": {
        "meaning": "a block sets feed_budget_kw but states no racks, so which feed carries which hosts is unknown",
        "why": "a feed carries the racks cabled to it, and its load with one feed down is what the rating must hold: without "
        "racks railyard can't place hosts on feeds, and a rating nothing is checked against would read as a check that passed",
        "fix": "state racks and hosts_per_rack, or remove feed_budget_kw (budget_kw still checks the whole block)",
    },
}


class ServiceRacks(Model):
    """Racks that hold no accelerator host: management, storage, UFM or network racks, alike in their draw."""

    role: Name = Field(description="What the racks hold (management, storage, ufm, ...): a name for the figures.")
    racks: int = Field(ge=1, le=10_000, description="How many such racks.")
    kw_per_rack: PositiveKw | None = Field(
        default=None,
        description="Each rack's IT draw, kW; none = not stated (a design that publishes the racks but not their draw): the power "
        "figures then leave these racks out and say so (`power.service-racks-unstated`), never counting them as 0.",
    )
    serves: list[Name] | None = Field(
        default=None,
        max_length=1_000,
        description="The blocks of the zone whose hosts the racks serve (a SuperPOD's management racks serve every scalable "
        "unit); none = the block they stand in, or, for a zone's own service racks, every block of the zone. Reported "
        "with the racks; the racks draw power once, where they stand.",
    )


class Block(Model):
    """A block of identical racks behind one network spine group and one set of power feeds."""

    name: Name = Field(description="The block's name; pools may be placed in it by name.")
    racks: int | None = Field(
        default=None, ge=1, le=100_000, description="How many identical racks the block holds; none = not stated (any hosts, no rack figures)."
    )
    hosts_per_rack: int | None = Field(
        default=None, ge=1, le=128, description="The most hosts (instances) one rack holds; stated together with `racks`."
    )
    power_feeds: int = Field(default=2, ge=1, le=64, description="Independent power feeds into the block.")
    feeds_per_rack: Literal[1, 2] = Field(default=2, description="Feeds each rack draws from: 2 (dual-corded, survives one feed) or 1.")
    budget_kw: PositiveKw | None = Field(default=None, description="The block's IT power budget; none = unchecked.")
    rack_budget_kw: PositiveKw | None = Field(
        default=None, description="Each rack's IT power budget; none = the site default in `power.rack_budget_kw`."
    )
    feed_budget_kw: PositiveKw | None = Field(
        default=None,
        description="What one power feed is rated to carry, kW: its racks' share with every feed up, and, when a neighbouring feed fails, "
        "the full draw of the dual-corded racks it shares with that feed; none = unchecked.",
    )
    service_racks: list[ServiceRacks] = Field(
        default_factory=no_items,
        max_length=16,
        description="Racks with no accelerator host (management, storage, UFM): counted in the block's racks and drawing from its "
        "power (block, zone and site IT load; the feeds, after the host racks, when the racks are stated).",
    )

    @model_validator(mode="after")
    def _feeds_fit(self) -> Self:
        if (self.racks is None) != (self.hosts_per_rack is None):
            stated, missing = ("racks", "hosts_per_rack") if self.hosts_per_rack is None else ("hosts_per_rack", "racks")
            raise violation(
                "domain.racks-half-stated",
                f"block '{self.name}' states {stated} but not {missing}; the racks are known only with both",
                f"add {missing}, or leave out both when the racks are not known (on AWS they never are)",
                field=stated,
            )
        # A rating per rack or per feed needs the racks: which rack, or which feed, carries which hosts.
        for field, code, why in (
            ("rack_budget_kw", "domain.rack-budget-without-racks", "no rack can be checked against it"),
            ("feed_budget_kw", "domain.feed-budget-without-racks", "which feed carries which hosts is unknown"),
        ):
            rating = getattr(self, field)
            if self.racks is None and rating is not None:
                raise violation(
                    code,
                    f"block '{self.name}' sets {field} {rating:g} but states no racks, so {why}",
                    f"state racks and hosts_per_rack, or remove {field} (budget_kw still checks the whole block)",
                    field=field,
                )
        for group in self.service_racks:
            if self.rack_budget_kw is not None and group.kw_per_rack is not None and group.kw_per_rack > self.rack_budget_kw:
                raise violation(
                    "domain.service-rack-budget",
                    f"block '{self.name}': a {group.role} rack draws {group.kw_per_rack:g} kW, over the block's rack_budget_kw "
                    f"{self.rack_budget_kw:g}",
                    "lower kw_per_rack (spread the gear over more racks) or raise rack_budget_kw",
                    field="service_racks",
                )
        if self.feeds_per_rack > self.power_feeds:
            raise violation(
                "domain.feeds-per-rack",
                f"feeds_per_rack {self.feeds_per_rack} is more than the block's power_feeds {self.power_feeds}",
                "add a second feed to the block or set feeds_per_rack: 1",
                field="feeds_per_rack",
            )
        return self

    @property
    def racked(self) -> bool:
        """True when the block states its racks."""
        return self.racks is not None

    @property
    def host_slots(self) -> int | None:
        """How many hosts the block can hold; None when its racks are not stated (no limit is known)."""
        if self.racks is None or self.hosts_per_rack is None:
            return None
        return self.racks * self.hosts_per_rack


class Zone(Model):
    """An availability zone as a failure domain: the widest single failure railyard models."""

    name: Name = Field(description="The failure domain's name; pools are placed in it by name.")
    availability_zone: DomainZone = Field(
        description="The AWS zone this failure domain is: an Availability Zone, or a Local Zone of the region (its subnets, routes "
        "and node groups are placed there, its zone group opted into; the EKS control plane stays in cloud.availability_zones)."
    )
    budget_kw: PositiveKw | None = Field(default=None, description="The zone's IT power budget; none = unchecked.")
    blocks: list[Block] = Field(
        default_factory=no_items,
        description="The blocks (spine groups / power blocks) in the zone; none = the zone is one block with no racks stated.",
    )
    service_racks: list[ServiceRacks] = Field(
        default_factory=no_items,
        max_length=16,
        description="Racks with no accelerator host that stand in no block (management racks serving several blocks): counted "
        "once in the zone's racks and in the zone's and site's IT load, on no block's feeds (the zone states none).",
    )

    @model_validator(mode="after")
    def _served_blocks_exist(self) -> Self:
        names = [block.name for block in self.sites]
        groups = [(f"service_racks.{index}", group) for index, group in enumerate(self.service_racks)]
        groups += [
            (f"blocks.{block_index}.service_racks.{index}", group)
            for block_index, block in enumerate(self.blocks)
            for index, group in enumerate(block.service_racks)
        ]
        for where, group in groups:
            unknown = [name for name in group.serves or () if name not in names]
            if unknown:
                raise violation(
                    "domain.service-serves-unknown",
                    f"zone '{self.name}': the {group.role} racks serve {', '.join(repr(name) for name in unknown)}, "
                    f"which is no block of the zone (its blocks: {', '.join(names)})",
                    "name blocks of the same zone in serves, or leave serves out (the block the racks stand in; for a zone's "
                    "own service racks, every block of the zone)",
                    field=f"{where}.serves",
                )
        return self

    def served_by(self, group: ServiceRacks, block: Block | None) -> list[str]:
        """The blocks a service-rack group serves: its `serves`, else the block it stands in, else every block of the zone."""
        if group.serves is not None:
            return list(group.serves)
        return [block.name] if block is not None else [site.name for site in self.sites]

    @property
    def sites(self) -> list[Block]:
        """The blocks hosts are placed in: the declared ones, else one unracked block named after the zone."""
        return list(self.blocks) if self.blocks else [_zone_block(self.name)]


@functools.cache
def _zone_block(name: str) -> Block:
    """The block a zone without blocks stands for: its name, no racks, the default feeds."""
    return Block(name=name)


class FailureDomains(Model):
    """The failure-domain hierarchy of the whole site."""

    zones: list[Zone] = Field(min_length=1, description="Zones, each with its blocks and racks.")
