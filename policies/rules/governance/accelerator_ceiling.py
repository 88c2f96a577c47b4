"""GOV004: a stack scales to no more accelerators than the pack's ceiling.

The ceiling (`maxAcceleratorsPerStack`) caps what one stack can spend and
how much capacity one `pulumi up` can ask for. Each node group counts at
its `scalingConfig.maxSize` times the accelerators per instance from
railyard's catalog (the largest, when it lists several instance types);
types outside the catalog (the system node group) count none.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from policies.config import MAX_ACCELERATORS
from policies.facts import instance_types as catalog_facts
from policies.nodes import instance_types, node_groups
from policies.rule import StackRule
from policies.stack import Stack, number, value


def accelerators_by_node_group(stack: Stack) -> list[tuple[Any, int]]:
    """(node group, accelerators at max size) for every node group with accelerators, largest first."""
    catalog = catalog_facts()
    counted = []
    for group in node_groups(stack):
        per_node = max((catalog[name].accelerator_count for name in instance_types(stack, group) if name in catalog), default=0)
        nodes = int(number(value(group.props, "scalingConfig.maxSize")) or 0)
        if per_node:
            counted.append((group, per_node * nodes))
    return sorted(counted, key=lambda pair: -pair[1])


def check(stack: Stack, settings) -> Iterable[tuple[Any, str]]:
    """The stack's accelerators at max size against the ceiling."""
    ceiling = settings[MAX_ACCELERATORS.key]
    counted = accelerators_by_node_group(stack)
    total = sum(count for _, count in counted)
    if total > ceiling:
        largest = ", ".join(f"{group.name} {count:,}" for group, count in counted[:3])
        yield None, (f"node groups scale to {total:,} accelerators, over the ceiling of {ceiling:,} (largest: {largest})")


RULE = StackRule(
    id="GOV004",
    name="accelerator-ceiling",
    title="The stack scales to no more accelerators than the pack's ceiling",
    domain="governance",
    severity="medium",
    knobs=(MAX_ACCELERATORS,),
    check=check,
    fix="lower the pools' maximum node counts, split the cluster into several stacks, or raise maxAcceleratorsPerStack in the policy config",
)
