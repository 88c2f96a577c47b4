"""Carving the VPC's address space into subnets.

Each zone of `cloud.availability_zones` gets a public subnet (NAT gateway and
load balancers only) and a private subnet (the system nodes and every pool not
on an EFA fabric); each EFA fabric domain - one fabric in one zone - gets a
private subnet of its own, because EFA traffic is only sure to flow inside one
subnet (aws-facts.md 2.4).

Sizing, in three steps:

1. every node subnet starts at the smallest power of two holding one address
   per node (the primary interface; `efa-only` interfaces take none) plus the
   5 addresses AWS reserves; public subnets are a fixed /27;
2. node subnets then double in turn, round-robin, until each holds
   `TARGET_ADDRESSES_PER_NODE` per node (room for pod addresses from the VPC
   CNI) or the VPC is full;
3. blocks are laid out largest first from the start of the VPC, which keeps
   every power-of-two block aligned without gaps.

The result is a pure function of the blueprint: the same blueprint always gives
the same CIDRs.
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Network
from typing import Literal

from components.plan.errors import PlanError

SubnetKind = Literal["public", "private", "efa"]

AWS_RESERVED_ADDRESSES = 5
PUBLIC_SUBNET_ADDRESSES = 32
MIN_SUBNET_ADDRESSES = 16
MAX_SUBNET_ADDRESSES = 65536
TARGET_ADDRESSES_PER_NODE = 32


@dataclass(frozen=True)
class SubnetDemand:
    """A subnet the design needs, before it has an address range."""

    key: str
    kind: SubnetKind
    availability_zone: str
    nodes: int = 0
    fabric: str | None = None
    zone: str | None = None


@dataclass(frozen=True)
class SubnetPlan:
    """A subnet with its address range."""

    key: str
    kind: SubnetKind
    availability_zone: str
    cidr: str
    nodes: int = 0
    fabric: str | None = None
    zone: str | None = None

    @property
    def public(self) -> bool:
        """True for the public (NAT and load-balancer) subnets."""
        return self.kind == "public"


def _power_of_two(addresses: int) -> int:
    size = MIN_SUBNET_ADDRESSES
    while size < addresses:
        size *= 2
    return size


def _sizes(demands: list[SubnetDemand], capacity: int) -> list[int]:
    """Step 1 and 2: the smallest sizes, then round-robin doubling toward each target."""
    sizes, targets = [], []
    for demand in demands:
        if demand.kind == "public":
            sizes.append(PUBLIC_SUBNET_ADDRESSES)
            targets.append(PUBLIC_SUBNET_ADDRESSES)
            continue
        sizes.append(_power_of_two(demand.nodes + AWS_RESERVED_ADDRESSES))
        target = _power_of_two(demand.nodes * TARGET_ADDRESSES_PER_NODE + AWS_RESERVED_ADDRESSES)
        targets.append(min(target, MAX_SUBNET_ADDRESSES))
    grew = True
    while grew:
        grew = False
        for index, size in enumerate(sizes):
            if size < targets[index] and sum(sizes) + size <= capacity:
                sizes[index] = size * 2
                grew = True
    return sizes


def carve_subnets(vpc_cidr: IPv4Network, demands: list[SubnetDemand]) -> tuple[SubnetPlan, ...]:
    """Give every demanded subnet a CIDR inside `vpc_cidr`; results keep the demands' order.

    Raises `PlanError` when even the smallest sizes don't fit, naming what they need.
    """
    capacity = vpc_cidr.num_addresses
    sizes = _sizes(demands, capacity)
    if sum(sizes) > capacity or any(size > MAX_SUBNET_ADDRESSES for size in sizes):
        largest = max(zip(sizes, demands), key=lambda pair: pair[0])
        raise PlanError(
            f"cloud.vpc_cidr {vpc_cidr} holds {capacity} addresses, but its {len(demands)} subnets need at least "
            f"{sum(sizes)} (the largest, '{largest[1].key}', needs {largest[0]} for {largest[1].nodes} nodes); "
            "use a larger vpc_cidr such as a /16, or fewer nodes per subnet"
        )
    order = sorted(range(len(demands)), key=lambda index: (-sizes[index], index))
    offsets: dict[int, int] = {}
    cursor = 0
    for index in order:
        offsets[index] = cursor
        cursor += sizes[index]
    base = int(vpc_cidr.network_address)
    plans = []
    for index, demand in enumerate(demands):
        prefix = 32 - (sizes[index].bit_length() - 1)
        cidr = IPv4Network((base + offsets[index], prefix))
        plans.append(SubnetPlan(demand.key, demand.kind, demand.availability_zone, str(cidr),
                                demand.nodes, demand.fabric, demand.zone))
    return tuple(plans)
