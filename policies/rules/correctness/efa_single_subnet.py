"""COR002: EFA node groups sit in one subnet, the same for every node group of a pool.

EFA's OS-bypass traffic does not cross availability zones, and AWS's older
guidance (still what eksctl enforces) limits it to one subnet; one subnet
is safe under both (aws-facts.md 2.4). A pool placed in several failure
domains of one zone has one node group per domain, so they must all use
the same subnet too, or the pool's nodes could not reach each other over
EFA. Node groups are grouped by their `railyard.dev/pool` label; subnets are
compared as the stack's subnet resources (so a first preview, whose subnet
ids are still unknown, compares them through the engine's dependencies).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from policies.nodes import POOL_LABEL, is_efa, label, node_groups
from policies.resource_types import SUBNET
from policies.rule import StackRule
from policies.stack import Stack, items, value


def subnets_of(stack: Stack, group) -> list[str]:
    """The node group's subnets by resource name when they are in the stack, else by id."""
    linked = stack.linked(group, "subnetIds", SUBNET)
    if linked:
        return [subnet.name for subnet in linked]
    return [str(subnet) for subnet in items(value(group.props, "subnetIds"))]


def check(stack: Stack, settings) -> Iterable[tuple[Any, str]]:
    """Every EFA node group has one subnet; the node groups of one pool share it."""
    by_pool: dict[str, list[tuple[Any, str]]] = defaultdict(list)
    for group in node_groups(stack):
        if not is_efa(stack, group):
            continue
        # Counted without reading the ids, which a first preview does not know yet.
        count = len(value(group.props, "subnetIds") or ())
        subnets = subnets_of(stack, group)
        if count != 1:
            yield group, f"is an EFA node group in {count} subnets {subnets}"
            continue
        by_pool[label(group, POOL_LABEL) or group.name].append((group, subnets[0]))
    for pool, members in by_pool.items():
        first, first_subnet = members[0]
        for group, subnet in members[1:]:
            if subnet != first_subnet:
                yield group, (f"uses subnet {subnet}, but node group '{first.name}' of the same pool '{pool}' uses {first_subnet}")


RULE = StackRule(
    id="COR002",
    name="efa-single-subnet",
    title="EFA node groups use exactly one subnet, shared by every node group of the pool",
    domain="correctness",
    severity="high",
    check=check,
    fix="give each EFA node group the one EFA subnet of its pool's zone (subnet_ids=[that subnet])",
)
