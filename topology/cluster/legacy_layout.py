"""The address layout railyard planned before pinned, stable layouts (up to commit a5a8388), kept to adopt from.

A cluster deployed from that plan has its subnets where this layout put them:
sized from demand (the smallest power of two for the nodes' addresses, then
doubled round-robin toward twice that while the block has room) and packed
largest first from the start of the block. Any subnet crossing a power of
two therefore moved every subnet after it, which is why the layout was
replaced (`topology.cluster.subnets`). `railyard lock --layout legacy`
writes this layout down as pins (`cloud.subnet_cidrs`), so such a cluster
moves to the new planner with no subnet replaced; nothing else calls it.
"""

from __future__ import annotations

from collections.abc import Sequence
from ipaddress import IPv4Network

from topology.cluster.errors import PlanError
from topology.cluster.subnets import AWS_RESERVED_ADDRESSES, MAX_SUBNET_ADDRESSES, PUBLIC_SUBNET_ADDRESSES, SubnetDemand, SubnetPlan, smallest_size

LEGACY_HEADROOM = 2


def _grown(demands: Sequence[SubnetDemand], capacity: int) -> list[int]:
    """The smallest sizes, then round-robin doubling toward twice the need while the block has room."""
    sizes = [smallest_size(demand) for demand in demands]
    targets = [
        PUBLIC_SUBNET_ADDRESSES
        if demand.kind == "public"
        else min(smallest_size(demand, LEGACY_HEADROOM * demand.needed + AWS_RESERVED_ADDRESSES), MAX_SUBNET_ADDRESSES)
        for demand in demands
    ]
    grew = True
    while grew:
        grew = False
        for index, size in enumerate(sizes):
            if size < targets[index] and sum(sizes) + size <= capacity:
                sizes[index] = size * 2
                grew = True
    return sizes


def _packed(block: IPv4Network, demands: Sequence[SubnetDemand]) -> dict[str, SubnetPlan]:
    """One block's subnets, grown and packed largest first from its start."""
    sizes = _grown(demands, block.num_addresses)
    if sum(sizes) > block.num_addresses:
        raise PlanError(f"{block} can't hold the legacy layout's subnets ({sum(sizes)} addresses)", ("cloud", "vpc_cidr"))
    cursor, base, plans = 0, int(block.network_address), {}
    for index in sorted(range(len(demands)), key=lambda item: (-sizes[item], item)):
        demand = demands[index]
        cidr = IPv4Network((base + cursor, 32 - (sizes[index].bit_length() - 1)))
        plans[demand.key] = SubnetPlan(
            demand.key, demand.kind, demand.availability_zone, str(cidr), demand.nodes, demand.fabric, demand.zone, demand.needed, str(block)
        )
        cursor += sizes[index]
    return plans


def legacy_layout(blocks: Sequence[IPv4Network], demands: Sequence[SubnetDemand], spread: bool) -> tuple[SubnetPlan, ...]:
    """The subnets as the legacy planner laid them out over `blocks`, in the demands' order.

    The VPC's primary block alone: grown and packed. `spread` (secondary
    blocks, and always the pod blocks): each demand, largest first at its
    smallest size, into the first block with room, then each block grown and
    packed on its own.
    """
    if not spread:
        placed = _packed(blocks[0], demands)
    else:
        free = [block.num_addresses for block in blocks]
        members: list[list[SubnetDemand]] = [[] for _ in blocks]
        for demand in sorted(demands, key=lambda item: -smallest_size(item)):
            home = next((index for index, room in enumerate(free) if room >= smallest_size(demand)), None)
            if home is None:
                raise PlanError(f"no block has room for subnet '{demand.key}' in the legacy layout", ("cloud", "secondary_cidrs"))
            free[home] -= smallest_size(demand)
            members[home].append(demand)
        placed = {key: plan for block, group in zip(blocks, members, strict=True) for key, plan in _packed(block, group).items()}
    return tuple(placed[demand.key] for demand in demands)
