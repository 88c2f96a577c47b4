"""COR006: an FSx file system sits in the zone of every node group that mounts it.

A Lustre file system lives in one subnet, so in one zone (aws-facts.md
3.1). Clients in another zone still mount it, but every read crosses zones:
slower, billed per GB, and lost when either zone fails. Which pools mount
a file system is not visible in its AWS props, so the compiler states it in
the tag `railyard:mounted-by` (pool names, space-separated); node groups
name their pool in the `railyard.dev/pool` label. Zones are read from the
`aws.ec2.Subnet`s the file system and the node groups are placed in. A file
system without the tag declares no clients and is not checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pulumi_policy import PolicyResource

from policies.nodes import POOL_LABEL, label, node_groups
from policies.resource_types import LUSTRE, SUBNET
from policies.rule import StackRule
from policies.stack import Stack, value

MOUNTED_BY_TAG = "railyard:mounted-by"


def zones_of(stack: Stack, resource: PolicyResource) -> set[str]:
    """The availability zones of the stack's subnets that `resource.subnetIds` names."""
    subnets = stack.linked(resource, "subnetIds", SUBNET)
    return {value(subnet.props, "availabilityZone") for subnet in subnets}


def check(stack: Stack, settings) -> Iterable[tuple[Any, str]]:
    """Each tagged file system against the zones of its client pools' node groups."""
    for file_system in stack.of_type(LUSTRE):
        clients = (value(file_system.props, "tags", {}).get(MOUNTED_BY_TAG) or "").split()
        if not clients:
            continue
        zones = zones_of(stack, file_system)
        if len(zones) != 1:
            yield file_system, f"its subnetIds resolve to {len(zones)} zone(s) among this stack's subnets, not 1"
            continue
        zone = next(iter(zones))
        for pool in clients:
            groups = [group for group in node_groups(stack) if label(group, POOL_LABEL) == pool]
            if not groups:
                yield file_system, f"{MOUNTED_BY_TAG} names pool '{pool}', but no node group has {POOL_LABEL}={pool}"
            for group in groups:
                elsewhere = sorted(zones_of(stack, group) - {zone})
                if elsewhere:
                    yield (
                        file_system,
                        (f"is in {zone}, but node group '{group.name}' of pool '{pool}', which mounts it, runs in {', '.join(elsewhere)}"),
                    )


RULE = StackRule(
    id="COR006",
    name="fsx-in-client-zone",
    title="FSx file systems sit in the zone of the node groups that mount them",
    domain="correctness",
    severity="medium",
    check=check,
    fix="place the file system in a subnet of its clients' zone, or place the pools that mount it in that zone "
    "(one file system per zone if a pool spans zones)",
)
