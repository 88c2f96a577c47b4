"""Offerings judged and combined into candidate pools: one zone, one type, one window, enough instances.

Pure and deterministic, no solver. Each offering is judged alone first (a type and region the needs
allow, the block duration, inside the window, whole UltraServers); the survivors are grouped by region,
zone, type and window, since one pool's blocks must share a zone (one EFA network can't span zones) and a
window (nodes that come and go at different times aren't one training job). In each group every
offering that holds the job alone is a candidate, and the smaller ones are summed, cheapest instance
first (ties by id), until they hold it. A group that can't is `plan.too-few`, or `plan.split-zones`
when the region's zones together could. Combinations over the account's instance limit or the budget
are rejected with their codes; every rejection names its offerings.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, time, timedelta
from decimal import Decimal

from blueprints.models.needs import Needs
from blueprints.records import record
from railyard.plan.expand import Expansion, TypeNeed
from railyard.plan.offerings import Offering, Rejection


@record
class Combination:
    """Offerings that together make one pool: their region, zone, type and window, and what they hold and cost."""

    region: str
    offerings: tuple[Offering, ...]
    accelerators_per_node: int

    @property
    def zone(self) -> str:
        """The blocks' one zone."""
        return self.offerings[0].zone

    @property
    def instance_type(self) -> str:
        """The blocks' one instance type."""
        return self.offerings[0].instance_type

    @property
    def start(self) -> datetime:
        """When the blocks start."""
        return self.offerings[0].start

    @property
    def end(self) -> datetime:
        """When the blocks end."""
        return self.offerings[0].end

    @property
    def nodes(self) -> int:
        """Instances the blocks hold together: the pool's nodes."""
        return sum(offering.instance_count for offering in self.offerings)

    @property
    def accelerators(self) -> int:
        """Accelerators on those nodes."""
        return self.nodes * self.accelerators_per_node

    @property
    def upfront_usd(self) -> Decimal:
        """The offerings' upfront fees together, exact."""
        return sum((offering.upfront_usd for offering in self.offerings), Decimal(0))

    @property
    def offering_ids(self) -> tuple[str, ...]:
        """The offerings' ids, in the order they were combined."""
        return tuple(offering.offering_id for offering in self.offerings)

    @property
    def usd_per_accelerator_hour(self) -> Decimal:
        """The upfront over the accelerator-hours it buys."""
        hours = Decimal((self.end - self.start) // timedelta(seconds=1)) / 3600
        return self.upfront_usd / (self.accelerators * hours)


def _judge(offering: Offering, needs: Needs, expansion: Expansion) -> Rejection | None:
    """Why one offering can't be part of any candidate, or None."""
    types = {need.instance_type: need for need in expansion.types}
    ids = (offering.offering_id,)
    region = offering.region(needs.regions)
    if region is None:
        return Rejection(ids, "plan.excluded", f"zone {offering.zone} is in none of the regions searched ({', '.join(needs.regions)})")
    need = types.get(offering.instance_type)
    left_out = {name: (code, why) for name, code, why in expansion.left_out}
    if need is None and offering.instance_type in left_out:
        code, why = left_out[offering.instance_type]
        return Rejection(ids, code, f"{offering.instance_type}: {why}")
    if need is None:
        return Rejection(ids, "plan.excluded", f"{offering.instance_type} is not a type the needs allow ({', '.join(types) or 'none'})")
    needed = timedelta(days=needs.window.duration_days)
    if offering.end - offering.start < needed:
        hours = (offering.end - offering.start) / timedelta(hours=1)
        return Rejection(ids, "plan.duration", f"a {hours:g} h block; the job runs {needed / timedelta(hours=1):g} h")
    earliest = datetime.combine(needs.window.earliest_start, time(), UTC)
    latest = datetime.combine(needs.window.latest_end + timedelta(days=1), time(), UTC)
    if offering.start < earliest or offering.end > latest:
        return Rejection(
            ids,
            "plan.outside-window",
            f"{offering.start:%Y-%m-%d %H:%M} to {offering.end:%Y-%m-%d %H:%M} UTC falls outside "
            f"{needs.window.earliest_start} to {needs.window.latest_end}",
        )
    return _whole(offering, need)


def _whole(offering: Offering, need: TypeNeed) -> Rejection | None:
    """An UltraServer type's offering must be whole UltraServers of its type; any other, a block of at most 64."""
    ids = (offering.offering_id,)
    if need.ultraserver_type is None:
        return None
    per = need.instances_per_ultraserver
    stated = offering.ultraserver_count
    if (
        offering.instance_count % per
        or (stated is not None and stated * per != offering.instance_count)
        or (offering.ultraserver_type not in (None, need.ultraserver_type))
    ):
        return Rejection(
            ids,
            "plan.partial-ultraserver",
            f"{offering.instance_count} {offering.instance_type} ({offering.ultraserver_type or 'no UltraServer type'} "
            f"x {stated if stated is not None else '?'}) is not whole {need.ultraserver_type} UltraServers of {per} instances",
        )
    return None


def _pick(group: Sequence[Offering], nodes: int) -> list[tuple[Offering, ...]]:
    """Each offering that holds the nodes alone, then the others summed cheapest instance first until they hold them."""
    ordered = sorted(group, key=lambda offering: (offering.upfront_usd / offering.instance_count, offering.offering_id))
    alone = [(offering,) for offering in ordered if offering.instance_count >= nodes]
    taken: list[Offering] = []
    for offering in ordered:
        if offering.instance_count >= nodes or sum(one.instance_count for one in taken) >= nodes:
            continue
        taken.append(offering)
    together = [tuple(taken)] if taken and sum(one.instance_count for one in taken) >= nodes else []
    return alone + together


def combine(offerings: Sequence[Offering], needs: Needs, expansion: Expansion) -> tuple[list[Combination], list[Rejection]]:
    """Every candidate combination, and every offering or combination rejected (with its code and why)."""
    types = {need.instance_type: need for need in expansion.types}
    rejected: list[Rejection] = []
    groups: dict[tuple[str, str, str, datetime, datetime], list[Offering]] = defaultdict(list)
    for offering in offerings:
        why = _judge(offering, needs, expansion)
        if why is not None:
            rejected.append(why)
            continue
        region = offering.region(needs.regions) or ""
        groups[(region, offering.zone, offering.instance_type, offering.start, offering.end)].append(offering)
    combinations: list[Combination] = []
    for key in sorted(groups):
        region, zone, instance_type, start, end = key
        need = types[instance_type]
        picked = _pick(groups[key], need.nodes)
        if not picked:
            rejected.append(_short(groups, key, need))
            continue
        for chosen in picked:
            combination = Combination(region, chosen, need.accelerators_per_node)
            why = _limits(combination, needs)
            if why is None:
                combinations.append(combination)
            else:
                rejected.append(why)
    return combinations, sorted(rejected, key=lambda one: (one.offering_ids, one.code))


def _short(
    groups: dict[tuple[str, str, str, datetime, datetime], list[Offering]], key: tuple[str, str, str, datetime, datetime], need: TypeNeed
) -> Rejection:
    """Why a group can't hold the job: too few in its zone, or enough only across the region's zones (which one pool can't span)."""
    region, zone, instance_type, start, end = key
    group = groups[key]
    held = sum(offering.instance_count for offering in group)
    ids = tuple(sorted(offering.offering_id for offering in group))
    siblings = [offerings for (r, z, t, s, e), offerings in groups.items() if (r, t, s, e) == (region, instance_type, start, end)]
    region_held = sum(offering.instance_count for offerings in siblings for offering in offerings)
    zones = sorted({z for (r, z, t, s, e) in groups if (r, t, s, e) == (region, instance_type, start, end)})
    what = f"{held} {instance_type} in {zone} ({held * need.accelerators_per_node} accelerators) from {start:%Y-%m-%d}"
    one_zone_holds = any(sum(offering.instance_count for offering in offerings) >= need.nodes for offerings in siblings)
    if len(zones) > 1 and region_held >= need.nodes and not one_zone_holds:
        return Rejection(
            ids,
            "plan.split-zones",
            f"{what}; {region} holds {region_held} only across {', '.join(zones)}, and one EFA pool can't span zones (it needs {need.nodes})",
        )
    return Rejection(ids, "plan.too-few", f"{what}; the job needs {need.nodes} ({need.nodes * need.accelerators_per_node} accelerators)")


def _limits(combination: Combination, needs: Needs) -> Rejection | None:
    """The account's instance limit across Capacity Blocks, then the budget."""
    ids = combination.offering_ids
    if combination.nodes > needs.block_instance_limit:
        return Rejection(
            ids,
            "plan.instance-limit",
            f"{combination.nodes} {combination.instance_type} across {len(ids)} blocks exceed the {needs.block_instance_limit} instances an "
            "account may hold across Capacity Blocks",
        )
    budget = needs.budget.max_upfront_usd
    if budget is not None and combination.upfront_usd > Decimal(str(budget)):
        return Rejection(ids, "plan.over-budget", f"${combination.upfront_usd:,.2f} upfront exceeds max_upfront_usd ${budget:,.2f}")
    return None
