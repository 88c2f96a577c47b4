"""Carving the VPC's address space into subnets.

Each zone of `cloud.availability_zones` gets a public subnet (NAT gateway and
load balancers only) and a private subnet (the system nodes and every pool not
on an EFA fabric); each EFA fabric domain - one fabric in one zone - gets a
private subnet of its own, because EFA traffic is only sure to flow inside one
subnet (aws-facts.md 2.4).

With CNI custom networking, pods take their addresses from subnets of their
own (kind `pods`, one per node group) carved out of the secondary VPC blocks
`pod_networking.pod_cidrs`, each block on its own. With `cloud.secondary_cidrs`
the node subnets are spread the same way over the primary block and those:
largest first, each into the first block with room.

Sizing, in three steps:

1. every node subnet starts at the smallest power of two holding the
   addresses its nodes take at their largest (`topology.cluster.addresses`:
   the primary interface and the VPC CNI's pod addresses; `efa-only`
   interfaces take none) plus the 5 addresses AWS reserves; public subnets are
   a fixed /27;
2. node subnets then double in turn, round-robin, until each holds twice
   that (headroom for growth and for /28 prefixes, which need free contiguous
   blocks) or the VPC is full;
3. blocks are laid out largest first from the start of the VPC, which keeps
   every power-of-two block aligned without gaps.

A demand no block can hold (a subnet is at most a /16) is a `PlanError` that
names the subnet, what it needs and the ways out.

The result is a pure function of the blueprint: the same blueprint always gives
the same CIDRs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from ipaddress import IPv4Network
from typing import Literal

from topology.cluster.errors import PlanError

SubnetKind = Literal["public", "private", "efa", "pods"]

AWS_RESERVED_ADDRESSES = 5
PUBLIC_SUBNET_ADDRESSES = 32
MIN_SUBNET_ADDRESSES = 16
MAX_SUBNET_ADDRESSES = 65536
HEADROOM = 2
REMEDIES = (
    "set kubernetes.pod_networking warm_ip_target / minimum_ip_target (or pods_per_node) so nodes hold only the "
    "addresses their pods use, or mode: prefix_delegation, or mode: custom_networking with pod_cidrs "
    "(100.64.0.0/16 blocks) so pods' addresses leave the node subnets; or a larger vpc_cidr, or blocks in cloud.secondary_cidrs"
)


@dataclass(frozen=True)
class SubnetDemand:
    """A subnet the design needs, before it has an address range."""

    key: str
    kind: SubnetKind
    availability_zone: str
    nodes: int = 0
    fabric: str | None = None
    zone: str | None = None
    addresses: int = 0

    @property
    def needed(self) -> int:
        """Addresses the subnet must hold for its nodes (at least one each)."""
        return max(self.addresses, self.nodes)


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
    addresses: int = 0
    block: str | None = None
    # The id of the existing subnet this plan uses (cloud.existing_vpc); None = railyard creates it.
    existing_id: str | None = None

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
        sizes.append(_power_of_two(demand.needed + AWS_RESERVED_ADDRESSES))
        target = _power_of_two(HEADROOM * demand.needed + AWS_RESERVED_ADDRESSES)
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
        largest = max(zip(sizes, demands, strict=True), key=lambda pair: pair[0])
        raise PlanError(
            f"{vpc_cidr} holds {capacity} addresses, but its {len(demands)} subnets need at least {sum(sizes)}: "
            f"the largest, '{largest[1].key}', needs {largest[1].needed} addresses for {largest[1].nodes} nodes "
            f"(a subnet holds at most {MAX_SUBNET_ADDRESSES}); {REMEDIES}",
            ("kubernetes", "pod_networking") if largest[1].kind == "pods" else ("cloud", "vpc_cidr"),
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
        plans.append(
            SubnetPlan(
                demand.key, demand.kind, demand.availability_zone, str(cidr), demand.nodes, demand.fabric, demand.zone, demand.needed, str(vpc_cidr)
            )
        )
    return tuple(plans)


def carve_into_blocks(blocks: Sequence[IPv4Network], demands: list[SubnetDemand]) -> tuple[SubnetPlan, ...]:
    """Subnets over several VPC blocks: largest first, each into the first block with room, then carved per block.

    The node subnets over the primary block and `cloud.secondary_cidrs`, or
    the pod subnets (custom networking) over `pod_cidrs`. Raises `PlanError`
    when one doesn't fit. Results keep the demands' order.
    """
    pods = all(demand.kind == "pods" for demand in demands)
    sizes = {
        demand.key: PUBLIC_SUBNET_ADDRESSES if demand.kind == "public" else _power_of_two(demand.needed + AWS_RESERVED_ADDRESSES)
        for demand in demands
    }
    free = [block.num_addresses for block in blocks]
    placed: dict[int, list[SubnetDemand]] = {index: [] for index in range(len(blocks))}
    for demand in sorted(demands, key=lambda item: -sizes[item.key]):
        home = next((index for index, room in enumerate(free) if room >= sizes[demand.key]), None)
        if home is None or sizes[demand.key] > MAX_SUBNET_ADDRESSES:
            what = "pod CIDR block" if pods else "VPC block"
            fix = (
                "add a 100.64.0.0/10 block to kubernetes.pod_networking.pod_cidrs, or hold fewer addresses per node (pods_per_node, warm_ip_target)"
                if pods
                else f"add a block to cloud.secondary_cidrs (100.64.0.0/16, ...); or {REMEDIES}"
            )
            raise PlanError(
                f"{'pod ' if pods else ''}subnet '{demand.key}' needs {demand.needed} addresses for {demand.nodes} nodes, but no {what} "
                f"({', '.join(str(block) for block in blocks)}) has room for a /{33 - sizes[demand.key].bit_length()} left; {fix}",
                ("kubernetes", "pod_networking", "pod_cidrs") if pods else ("cloud", "secondary_cidrs"),
            )
        free[home] -= sizes[demand.key]
        placed[home].append(demand)
    carved = {plan.key: plan for index, block in enumerate(blocks) for plan in carve_subnets(block, placed[index])}
    return tuple(carved[demand.key] for demand in demands)


def place_in_existing(subnets: Sequence[tuple[str, str, IPv4Network]], demands: list[SubnetDemand]) -> tuple[SubnetPlan, ...]:
    """Every node subnet the design needs, placed in the existing subnet of its zone (`(id, zone, cidr)` each).

    An existing VPC's owner runs its egress, so public subnets aren't needed;
    every node of a zone, EFA fabric domains included, lands in that zone's
    subnet (EFA traffic flows within one subnet). Raises `PlanError` when a
    subnet can't hold the addresses its zone's nodes take at their largest.
    """
    by_zone = {zone: (index, subnet_id, cidr) for index, (subnet_id, zone, cidr) in enumerate(subnets)}
    held: dict[str, int] = {}
    plans = []
    for demand in demands:
        if demand.kind == "public":
            continue
        index, subnet_id, cidr = by_zone[demand.availability_zone]
        held[subnet_id] = held.get(subnet_id, 0) + demand.needed
        room = cidr.num_addresses - AWS_RESERVED_ADDRESSES
        if held[subnet_id] > room:
            raise PlanError(
                f"existing subnet {subnet_id} ({cidr}) holds {room} addresses, but the nodes placed in "
                f"{demand.availability_zone} take {held[subnet_id]} at their largest; set kubernetes.pod_networking "
                "warm_ip_target / minimum_ip_target (or pods_per_node) so nodes hold only the addresses their pods use, "
                "or mode: prefix_delegation; or list a larger subnet",
                ("cloud", "existing_vpc", "subnets", index, "cidr"),
            )
        plans.append(
            SubnetPlan(
                demand.key, demand.kind, demand.availability_zone, str(cidr), demand.nodes, demand.fabric, demand.zone, demand.needed, None, subnet_id
            )
        )
    return tuple(plans)
