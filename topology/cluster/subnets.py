"""The VPC's subnets: what each must hold, and where it sits, pinned once and never moved.

Each zone of `cloud.availability_zones` gets a public subnet (NAT gateway and
load balancers only) and a private subnet (the system nodes and every pool not
on an EFA fabric); each EFA fabric domain - one fabric in one zone - gets a
private subnet of its own, because EFA traffic is only sure to flow inside one
subnet (aws-facts.md 2.4). With CNI custom networking, pods take their
addresses from subnets of their own (kind `pods`, one per node group) in the
secondary blocks `pod_networking.pod_cidrs`. A subnet's key (`private-us-east-1a`,
`efa-ultra-use1a`, `pods-train-use1a`) is its identity: it names the Pulumi
resource and depends on nothing but the zone, fabric or node group it serves.

A subnet's range can't change without replacing the subnet and everything in
it (node groups, file systems, NAT gateways), so the layout is stable by
construction rather than recomputed from demand each time:

* **Pinned subnets** (`cloud.subnet_cidrs`, written by `railyard lock`) keep
  their range whatever else changes. A pinned subnet too small for its nodes
  is a `PlanError` that names the ways that move nothing, never a re-carve.
* **New subnets** (a first deployment, a pool on a new fabric or zone) take
  free space around the pinned ones: each the smallest power of two holding
  its nodes' addresses at their largest plus the 5 AWS reserves (public
  subnets a fixed /27), doubled toward `HEADROOM` times that, the least headroom first, while
  all subnets together take at most `1 / FILL` of the blocks (room for what
  is added later), then placed largest first at the lowest free range aligned
  on its size.

So growth a subnet's headroom holds never moves it, a pool added on an
existing fabric or zone lands in subnets that exist, and one on a new fabric
gets a new subnet without touching the others. The layout a plan resolves is
what `railyard lock` writes down; docs/day2.md says why this design and not
fixed slots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from ipaddress import IPv4Network
from typing import Literal, NoReturn

from blueprints.findings import Finding, error, info, warning
from blueprints.records import record
from topology.cluster.address_space import AddressSpace
from topology.cluster.errors import PlanError

SubnetKind = Literal["public", "private", "efa", "pods"]

AWS_RESERVED_ADDRESSES = 5
PUBLIC_SUBNET_ADDRESSES = 32
MIN_SUBNET_ADDRESSES = 16
MAX_SUBNET_ADDRESSES = 65536
# A new subnet grows toward this many times its nodes' addresses ...
HEADROOM = 8
# ... while all subnets together leave at least 1/KEEP_FREE of their blocks free for what is added later.
KEEP_FREE = 4
LESS_PER_NODE = (
    "set kubernetes.pod_networking warm_ip_target / minimum_ip_target (or pods_per_node) so nodes hold only the "
    "addresses their pods use, or mode: prefix_delegation, or mode: custom_networking with pod_cidrs "
    "(100.64.0.0/16 blocks) so pods' addresses leave the node subnets"
)
REMEDIES = f"{LESS_PER_NODE}; or a larger vpc_cidr, or blocks in cloud.secondary_cidrs"


@record
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


@record
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
    # True when the range comes from cloud.subnet_cidrs rather than from this plan.
    pinned: bool = False

    @property
    def public(self) -> bool:
        """True for the public (NAT and load-balancer) subnets."""
        return self.kind == "public"


def unused_pins(pins: Mapping[str, IPv4Network], plans: Sequence[SubnetPlan]) -> list[Finding]:
    """A warning for each pin naming a subnet the plan no longer has (its pool or fabric was retired: the subnet is deleted)."""
    planned = {plan.key for plan in plans}
    return [
        warning(
            "compile.pin-unused",
            ("cloud", "subnet_cidrs", key),
            f"subnet_cidrs pins '{key}' at {cidr}, but the plan has no such subnet: nothing uses it any more, so it is deleted",
            f"drop the pin once the subnet is gone (`railyard lock --write` rewrites the pins); planned subnets: {', '.join(sorted(planned))}",
        )
        for key, cidr in pins.items()
        if key not in planned
    ]


def unlocked_plan(pins: Mapping[str, IPv4Network], plans: Sequence[SubnetPlan]) -> list[Finding]:
    """A note when the plan has subnets and `cloud.subnet_cidrs` pins none of them: the address plan isn't locked.

    Unpinned, every run lays the subnets out again from demand, so a later change (the first zone or EFA
    pool added) can move one, which replaces it and every node group and file system in it; `railyard diff`
    then refuses that change (`change.subnet-moved`). Locking before the first deployment is what keeps it
    from happening.
    """
    if pins or not plans:
        return []
    return [
        info(
            "compile.unlocked",
            ("cloud",),
            f"the address plan isn't locked: cloud.subnet_cidrs pins none of its {len(plans)} subnets, so each run lays them out again, "
            "and a later change (a zone or an EFA pool added) can move one, which replaces it with every node group and file system in it",
            "before the first deployment, run `railyard lock FILE --write` (or `railyard lock --stack STACK --write`) and commit the pins "
            "(docs/day2.md, 'First: lock the address plan')",
        )
    ]


def moved_pins(zones: Mapping[str, str], plans: Sequence[SubnetPlan]) -> list[Finding]:
    """An error for each pinned subnet the plan now puts in another zone than the one its pin records.

    A subnet's zone can't change in place, so it is replaced; its pin keeps the
    range, and Pulumi creates a replacement before it deletes the old resource
    (Pulumi docs, "deleteBeforeReplace"), so EC2 is asked for a second subnet on
    the range the old one holds and refuses it: "A subnet CIDR block must not
    overlap the CIDR block of an existing subnet in the VPC" (EC2 API reference,
    CreateSubnet). The old subnet can't go first either while nodes and file
    systems sit in it.
    """
    findings = []
    for plan in plans:
        pinned = zones.get(plan.key)
        if pinned is None or pinned == plan.availability_zone:
            continue
        findings.append(
            error(
                "compile.pin-zone-moved",
                ("cloud", "subnet_cidrs", plan.key),
                f"subnet '{plan.key}' is pinned at {plan.cidr} in {pinned}, but the plan now puts it in {plan.availability_zone} "
                f"(its failure domain moved): the subnet is replaced at the same range, and EC2 refuses the new subnet while the "
                "old one still holds that range, with every node group and file system in it",
                f"keep the failure domain in {pinned}; to use {plan.availability_zone}, add a failure domain of its own there "
                "(a new subnet at a free range, nothing moved), move the pools to it, then retire the old domain and its pin",
            )
        )
    return findings


def smallest_size(demand: SubnetDemand, addresses: int | None = None) -> int:
    """The smallest power-of-two subnet holding `addresses` (default: the demand's need plus AWS's 5); public: a /27."""
    if demand.kind == "public" and addresses is None:
        return PUBLIC_SUBNET_ADDRESSES
    wanted = demand.needed + AWS_RESERVED_ADDRESSES if addresses is None else addresses
    size = MIN_SUBNET_ADDRESSES
    while size < wanted:
        size *= 2
    return size


def _target(demand: SubnetDemand) -> int:
    if demand.kind == "public":
        return PUBLIC_SUBNET_ADDRESSES
    return min(smallest_size(demand, HEADROOM * demand.needed + AWS_RESERVED_ADDRESSES), MAX_SUBNET_ADDRESSES)


def _plan(demand: SubnetDemand, cidr: IPv4Network, block: IPv4Network, pinned: bool = False) -> SubnetPlan:
    return SubnetPlan(
        demand.key,
        demand.kind,
        demand.availability_zone,
        str(cidr),
        demand.nodes,
        demand.fabric,
        demand.zone,
        demand.needed,
        str(block),
        None,
        pinned,
    )


def _pinned(space: AddressSpace, demand: SubnetDemand, cidr: IPv4Network, what: str) -> SubnetPlan:
    """A pinned subnet, checked: inside a block, clear of the other pins, big enough for its nodes."""
    path = ("cloud", "subnet_cidrs", demand.key)
    index = space.block_of(cidr)
    if index is None:
        raise PlanError(
            f"subnet '{demand.key}' is pinned at {cidr}, outside the {what} ({', '.join(str(block) for block in space.blocks)}); "
            "a pin must lie in the block the subnet is carved from",
            path,
        )
    clash = space.overlapping(cidr)
    if clash is not None:
        raise PlanError(f"subnet '{demand.key}' is pinned at {cidr}, which overlaps another pinned subnet; pins must be disjoint", path)
    room = cidr.num_addresses - AWS_RESERVED_ADDRESSES
    if demand.kind != "public" and demand.needed > room:
        raise PlanError(
            f"subnet '{demand.key}' is pinned at {cidr} and holds {room} addresses, but its {demand.nodes} nodes take "
            f"{demand.needed} at their largest; a deployed subnet can't grow without being replaced with everything in it. "
            f"Ways that move nothing: {LESS_PER_NODE}; or put the new capacity in a pool of its own on another fabric or zone "
            "(a new subnet). To re-carve on purpose, drop the pin: the subnet and every node group and file system in it are replaced",
            path,
        )
    space.take(cidr)
    return _plan(demand, cidr, space.blocks[index], pinned=True)


def _grown(demands: Sequence[SubnetDemand], budget: int) -> dict[str, int]:
    """Each new subnet's size: the smallest, then doubled while the total stays in `budget`, the least headroom first.

    Doubling the subnet whose size is the smallest multiple of its need keeps
    the zones' subnets alike (a pool spread over two zones grows in both); ties
    go in the demands' order. None grows past its target.
    """
    sizes = {demand.key: smallest_size(demand) for demand in demands}
    growable = [demand for demand in demands if demand.kind != "public"]
    total = sum(sizes[demand.key] for demand in growable)  # the fixed /27s of public subnets are not counted
    while True:
        room = [demand for demand in growable if sizes[demand.key] < _target(demand) and total + sizes[demand.key] <= budget]
        if not room:
            return sizes
        chosen = min(room, key=lambda demand: sizes[demand.key] / max(demand.needed, 1))
        total += sizes[chosen.key]
        sizes[chosen.key] *= 2


def _placed(space: AddressSpace, demands: Sequence[SubnetDemand], sizes: dict[str, int]) -> dict[str, SubnetPlan] | None:
    """Every new subnet at the lowest free aligned range, largest first; None when one doesn't fit."""
    plans = {}
    for demand in sorted(demands, key=lambda item: -sizes[item.key]):
        found = space.place(sizes[demand.key])
        if found is None:
            return None
        plans[demand.key] = _plan(demand, found[1], space.blocks[found[0]])
    return plans


def lay_out_subnets(
    blocks: Sequence[IPv4Network], demands: Sequence[SubnetDemand], pins: Mapping[str, IPv4Network] | None = None, what: str = "VPC blocks"
) -> tuple[SubnetPlan, ...]:
    """Every demanded subnet with its range in `blocks` (in the demands' order): pinned ones where pinned, new ones in free space.

    `what` names the blocks in messages (the VPC blocks, the pod CIDR blocks).
    Raises `PlanError` when a pin is outside the blocks, overlaps another or
    is too small, or when the new subnets don't fit even at their smallest.
    """
    pins = pins or {}
    space = AddressSpace(blocks)
    plans = {demand.key: _pinned(space, demand, pins[demand.key], what) for demand in demands if demand.key in pins}
    new = [demand for demand in demands if demand.key not in pins]
    for demand in new:
        if smallest_size(demand) > MAX_SUBNET_ADDRESSES:
            raise PlanError(
                f"subnet '{demand.key}' needs {demand.needed} addresses for {demand.nodes} nodes, more than a subnet holds "
                f"({MAX_SUBNET_ADDRESSES}, a /16); {REMEDIES}",
                ("kubernetes", "pod_networking") if demand.kind == "pods" else ("cloud", "vpc_cidr"),
            )
    sizes = _grown(new, max(space.capacity - space.capacity // KEEP_FREE - space.taken, 0))
    while (placed := _placed(space.copy(), new, sizes)) is None:
        grown = [demand for demand in new if sizes[demand.key] > smallest_size(demand)]
        if not grown:
            _too_small(space, new, what)
        largest = max(grown, key=lambda demand: sizes[demand.key])
        sizes[largest.key] //= 2
    laid_out = {**plans, **placed}
    return tuple(laid_out[demand.key] for demand in demands)


def _too_small(space: AddressSpace, demands: Sequence[SubnetDemand], what: str) -> NoReturn:
    """The new subnets don't fit even at their smallest: say what they need and the ways out."""
    smallest = sum(smallest_size(demand) for demand in demands)
    largest = max(demands, key=smallest_size)
    pods = largest.kind == "pods"
    free = space.capacity - space.taken
    fix = (
        "add a 100.64.0.0/10 block to kubernetes.pod_networking.pod_cidrs, or hold fewer addresses per node (pods_per_node, warm_ip_target)"
        if pods
        else REMEDIES
    )
    raise PlanError(
        f"the {what} ({', '.join(str(block) for block in space.blocks)}) have {free} addresses free, but the {len(demands)} "
        f"subnets to place need at least {smallest} in aligned ranges: the largest, '{largest.key}', needs {largest.needed} "
        f"addresses for {largest.nodes} nodes; {fix}",
        ("kubernetes", "pod_networking", "pod_cidrs") if pods else ("cloud", "secondary_cidrs" if len(space.blocks) > 1 else "vpc_cidr"),
    )


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
