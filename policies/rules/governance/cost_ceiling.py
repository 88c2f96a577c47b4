"""GOV005: a stack's node groups cost no more per hour, at max size, than the pack's ceiling.

The ceiling (`maxHourlyCostPerStack`, USD) is the dollar twin of the accelerator ceiling: set per
environment, it stops a pull request that would let one `pulumi up` spend past what the team signed off.
Each node group counts at `scalingConfig.maxSize` times its instance type's hourly rate in the
stack's region (its AWS provider's `region`; `pricingRegion` when no provider says) (the dearest
type, when it lists several): the Capacity Block rate for a Capacity Block
group, the On-Demand rate otherwise (spot never bills above it). Rates come from railyard's price
tables (`data/railyard_facts.json`). A node group railyard has no rate for is never counted as free:
with the priced groups under the ceiling the policy can't decide, and says so (unverifiable).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UnknownValueError

from policies.config import MAX_HOURLY_COST, PRICING_REGION
from policies.facts import hourly_price
from policies.nodes import instance_types, node_groups
from policies.rule import StackRule
from policies.stack import Stack, number, value

AWS_PROVIDER = "pulumi:providers:aws"


class PriceUnknown(UnknownValueError):
    """The policy can't decide: a node group has no rate. CrossGuard, like railyard's runner, reports a rule that
    meets an unknown value as one it couldn't run, never as passed."""

    def __init__(self, message: str) -> None:
        super().__init__(UNKNOWN_NUMBER_VALUE, ["pricing"])  # the price is the number nobody knows
        self.message = message


def hourly_by_node_group(stack: Stack, region: str) -> tuple[list[tuple[Any, float]], list[Any]]:
    """(node group, USD per hour at max size) for every priced group, dearest first; and the groups with no rate."""
    priced, unpriced = [], []
    for group in node_groups(stack):
        capacity = value(group.props, "capacityType") or "ON_DEMAND"
        rates = [hourly_price(region, name, capacity) for name in instance_types(stack, group)]
        nodes = int(number(value(group.props, "scalingConfig.maxSize")) or 0)
        if not rates or any(rate is None for rate in rates):
            unpriced.append(group)
            continue
        priced.append((group, nodes * max(rate for rate in rates if rate is not None)))
    return sorted(priced, key=lambda pair: -pair[1]), unpriced


def stack_region(stack: Stack, fallback: str) -> str:
    """The region the stack's AWS provider names (its `region` input, from `aws:region`), or `fallback` without one."""
    regions = {value(provider.props, "region") for provider in stack.of_type(AWS_PROVIDER)} - {None}
    return regions.pop() if len(regions) == 1 else fallback


def check(stack: Stack, settings) -> Iterable[tuple[Any, str]]:
    """The stack's hourly cost at max size against the ceiling."""
    ceiling = settings[MAX_HOURLY_COST.key]
    region = stack_region(stack, settings[PRICING_REGION.key])
    priced, unpriced = hourly_by_node_group(stack, region)
    total = sum(usd for _, usd in priced)
    if total > ceiling:
        largest = ", ".join(f"{group.name} ${usd:,.0f}/h" for group, usd in priced[:3])
        more = f"; {len(unpriced)} node group(s) unpriced on top" if unpriced else ""
        yield None, f"node groups cost ${total:,.0f} per hour at max size in {region}, over the ceiling of ${ceiling:,.0f} (largest: {largest}){more}"
    elif unpriced:
        names = ", ".join(group.name for group in unpriced[:3])
        raise PriceUnknown(f"no {region} price for node group(s) {names}: the ceiling can't be held (docs/cost.md)")


RULE = StackRule(
    id="GOV005",
    name="cost-ceiling",
    title="The stack's node groups cost no more per hour at max size than the pack's ceiling",
    domain="governance",
    severity="medium",
    knobs=(MAX_HOURLY_COST, PRICING_REGION),
    check=check,
    fix="lower the pools' maximum node counts, move capacity to a Capacity Block, split the stack, or raise maxHourlyCostPerStack",
)
