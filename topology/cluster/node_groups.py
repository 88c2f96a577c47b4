"""EKS managed node groups per pool and failure domain, plus a small system group.

A pool placed in several failure domains gets one node group in each, with its
node counts split evenly (the first domains take the remainder), so losing a
domain's group leaves the others running. A node group's nodes carry the
labels and taints of `topology.cluster.labels`, the contract the Kubernetes layer
selects on. Resources grow with pools x failure domains, never with nodes.

A share over EKS's nodes-per-group quota is split along the blocks the
placement put the pool in (`topology.cluster.splitting`). Each group knows
the addresses its nodes take (`topology.cluster.addresses`), which size the
subnets.

The system group (untainted, general-purpose, across the private subnets of
every zone; one per zone under CNI custom networking) runs what must not sit
on tainted accelerator nodes: CoreDNS, Kueue and the device-plugin and CSI
controllers.

A Capacity Block node group follows EKS's documented lifecycle (EKS user
guide, "Create a managed node group with Capacity Blocks for ML"): its
minimum is 0, because EKS scales it to 0 forty minutes before the block
ends ("Amazon EKS Node Group Capacity Scaledown Before Reservation End") and
an update needs desired 0; created before the block starts, its desired
size is 0 (nothing can launch yet) and a scheduled action scales it up at
the start; created while the block runs, its desired size is the pool's
share; after EKS's scale-down, 0. Which of the three applies depends on when
the plan is made (`now`), and EKS, not Pulumi, owns the desired size from
then on (the node group ignores later changes to it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import field
from datetime import datetime
from typing import Literal, TypedDict

from blueprints.catalog import Catalog, InstanceType
from blueprints.catalog.system_types import load_system_types
from blueprints.models import Blueprint
from blueprints.models.capacity import RESERVED_KINDS, CapacityBlock, CapacityReservation, ReservationGroup
from blueprints.models.kubernetes import PodNetworking, SystemNodes
from blueprints.models.pools import Pool, RootVolume
from blueprints.records import record
from blueprints.rules.context import Context
from topology.cluster.addresses import NodeAddresses, cni_enis, node_addresses
from topology.cluster.interfaces import PRIMARY, InterfaceSpec, efa_count, interface_layout
from topology.cluster.labels import ENI_CONFIG_LABEL, LNET_GATE, POOL_LABEL, ROLE_LABEL, NodeGate, NodeTaint, node_labels, node_taints
from topology.cluster.pool_facts import (
    block_sizing,
    bounded_name,
    local_nvme,
    lustre_over_efa,
    nodes_per_group_limit,
    pool_domains,
    pool_is_efa,
    split_evenly,
)
from topology.cluster.splitting import Share, split_share
from topology.cluster.update_time import UpdateTime, update_time
from topology.placement import Placement, place_pools

CapacityType = Literal["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"]

SYSTEM_GROUP = "system"
ACCELERATOR_ROOT_GIB: int = RootVolume.model_fields["size_gib"].default  # the blueprint's default root volume
MAX_UNAVAILABLE_PERCENT = 10
ROOT_DEVICE = "/dev/xvda"  # the root device of the EKS AL2023 AMIs
# Where nodeadm mounts the RAID0 of instance-store disks unless told otherwise (nodeadm `localStorage`).
DEFAULT_LOCAL_MOUNT = "/mnt/k8s-disks"
_CAPACITY_TYPES: dict[str, CapacityType] = {
    "on_demand": "ON_DEMAND",
    "spot": "SPOT",
    "capacity_reservation": "ON_DEMAND",
    "capacity_block": "CAPACITY_BLOCK",
    "reservation_group": "ON_DEMAND",  # CAPACITY_BLOCK when its members are Capacity Blocks
}


@record
class NodeGroupPlan:
    """Everything one managed node group and its launch template are made from."""

    name: str
    pool: str
    domain: str
    zone: str | None
    availability_zones: tuple[str, ...]
    subnet_keys: tuple[str, ...]
    instance_type: str
    ami_type: str
    role: str
    capacity_type: CapacityType
    min_size: int
    desired_size: int
    max_size: int
    interfaces: tuple[InterfaceSpec, ...]
    labels: dict[str, str] = field(hash=False)
    taints: tuple[NodeTaint, ...] = ()
    reservation_id: str | None = None
    market_type: Literal["capacity-block"] | None = None
    placement_key: str | None = None
    # A reservation group: the reservations railyard groups (one group per pool), or an existing group's ARN.
    reservation_members: tuple[str, ...] = ()
    reservation_group_arn: str | None = None
    # The cluster placement group a reservation was created in: the nodes launch into it (railyard doesn't make it).
    reservation_placement_group: str | None = None
    raid0: bool = False
    local_nvme_gb: int = 0
    lustre_efa_interfaces: int = 0
    local_mount_path: str = DEFAULT_LOCAL_MOUNT
    root_volume_gib: int = ACCELERATOR_ROOT_GIB
    root_volume_iops: int | None = None
    root_volume_throughput: int | None = None
    update_strategy: Literal["DEFAULT", "MINIMAL"] = "DEFAULT"
    fabric: str | None = None
    system: bool = False
    scale_up_at: datetime | None = None
    # A custom AMI (pools[].ami_id): the launch template names it and the user data bootstraps the node.
    ami_id: str | None = None
    # The nodes' Kubernetes version (EKS picks the AMI release for it); None for a custom AMI, whose image fixes it.
    kubernetes_version: str | None = None
    # Who launches the nodes: a managed node group, or Karpenter (a NodePool and EC2NodeClass made from this plan).
    provisioner: Literal["managed_node_group", "karpenter"] = "managed_node_group"
    part: str = ""
    addresses: NodeAddresses = NodeAddresses(1, 0, 0)
    pod_subnet_key: str | None = None
    pods_limited: bool = False

    @property
    def max_pods(self) -> int | None:
        """The kubelet's pod limit railyard sets: when the pod-networking mode changes it, and where the setting holds.

        It holds in a custom AMI's NodeConfig (railyard writes the whole
        document) and in a Karpenter NodePool. On an EKS-AMI managed node group
        EKS appends its own NodeConfig with its own maxPods, which "takes
        precedence over any other maxPods configuration" (EKS user guide,
        choosing-instance-type, "How maxPods is determined"), so railyard sets
        none there and `network.max-pods-by-eks` says what that leaves.
        """
        if not self.pods_limited or self.eks_sets_max_pods:
            return None
        return self.addresses.kubelet_max_pods

    @property
    def gates(self) -> tuple[NodeGate, ...]:
        """The gates its nodes register behind (`topology.cluster.labels.NodeGate`): LNet where they mount Lustre over EFA."""
        return gates_of(self.lustre_efa_interfaces)

    @property
    def eks_sets_max_pods(self) -> bool:
        """True for an EKS-AMI managed node group: EKS, not railyard, decides its kubelet's maxPods."""
        return self.provisioner == "managed_node_group" and self.ami_id is None

    @property
    def update_time(self) -> UpdateTime:
        """How many waves EKS rolls the group in at its largest, and how long Pulumi waits for it (`update_time`)."""
        return update_time(self.max_size, MAX_UNAVAILABLE_PERCENT)

    @property
    def child_suffix(self) -> str:
        """What the node group's Pulumi names add to their pool component's: the domain, or the split part (`b01-02`)."""
        return self.part or self.domain

    @property
    def managed(self) -> bool:
        """True when an EKS managed node group launches the nodes (False: Karpenter does)."""
        return self.provisioner == "managed_node_group"

    @property
    def targets_reservation(self) -> bool:
        """True when the launch template targets a reservation, a Capacity Block or a reservation group."""
        return self.reservation_id is not None or bool(self.reservation_members) or self.reservation_group_arn is not None

    @property
    def desired_owned_by_eks(self) -> bool:
        """True for a Capacity Block group: EKS's scheduled actions move its desired size, so Pulumi must not."""
        return self.capacity_type == "CAPACITY_BLOCK"

    @property
    def ephemeral_gib(self) -> int:
        """Ephemeral storage the kubelet reports per node (GiB): the RAID0 of local NVMe (nodeadm moves the
        kubelet onto it), else the root volume."""
        if self.raid0 and self.local_nvme_gb:
            return self.local_nvme_gb * 10**9 // 2**30
        return self.root_volume_gib

    @property
    def efa_interfaces(self) -> int:
        """EFA devices per node (what the EFA device plugin advertises)."""
        return efa_count(self.interfaces)


def _shares(pool: Pool, index: int, ctx: Context, limit: int, placed: Callable[[], Placement]) -> list[tuple[Share, str, str]]:
    """(share, zone name, availability zone) of each node group of a pool: its domains, split to `limit` nodes."""
    domains = pool_domains(pool, ctx)
    sizes = zip(*(split_evenly(count, len(domains)) for count in (pool.min_nodes, pool.desired_nodes, pool.max_nodes)), strict=True)
    found: list[tuple[Share, str, str]] = []
    for (domain, zone, availability_zone), share in zip(domains, sizes, strict=True):
        blocks: list[tuple[str, int]] = []
        if share[2] > limit:
            by_block = placed().hosts_by(index, "block")
            names = [block.name for block in ctx.zones[domain].blocks] if domain in ctx.zones else [domain]
            blocks = [(name, by_block.get(name, 0)) for name in names]
        found += [(part, zone, availability_zone) for part in split_share(domain, blocks, share, limit)]
    return found


def plan_pool(
    pool: Pool, ctx: Context, now: datetime | None = None, limit: int | None = None, placed: Callable[[], Placement] | None = None, index: int = 0
) -> list[NodeGroupPlan]:
    """The node groups of one pool: one per failure domain with its share of the nodes, split to at most `limit` each.

    `placed` gives the topology placement (where the pool's hosts sit, by
    block), needed only when a share is over the limit; `index` is the pool's.
    """
    spec = ctx.catalog.get(pool.instance_type)
    assert spec is not None, f"{pool.instance_type}: a blueprint that validated names only catalog instance types"
    efa = pool_is_efa(pool, spec, ctx)
    source = pool.capacity
    reserved = source.kind in RESERVED_KINDS
    nvme = local_nvme(pool, ctx)
    placed = placed or (lambda: place_pools(ctx.blueprint, ctx.catalog))
    limit = limit or nodes_per_group_limit(ctx.blueprint)
    networking = ctx.blueprint.kubernetes.pod_networking
    plans: list[NodeGroupPlan] = []
    for share, zone, availability_zone in _shares(pool, index, ctx, limit, placed):
        domain, low, desired, high = share.domain, share.low, share.desired, share.high
        subnet = f"efa-{pool.fabric}-{zone}" if efa else f"private-{availability_zone}"
        name = bounded_name(f"{pool.name}-{share.suffix}")
        interfaces = interface_layout(spec, efa)
        addresses = _addresses(spec, interfaces, networking)
        lustre = lustre_over_efa(pool, spec, ctx, efa)
        custom = networking.mode == "custom_networking"
        pod_subnet = bounded_name(f"pods-{name}") if custom else None  # a label value: at most 63 characters
        labels = node_labels(pool, spec, domain, efa) | ({ENI_CONFIG_LABEL: pod_subnet} if pod_subnet else {})
        scale_up_at = None
        blocks = isinstance(source, CapacityBlock) or (isinstance(source, ReservationGroup) and source.capacity_blocks)
        if isinstance(source, CapacityBlock):
            low = 0
            desired, scale_up_at = block_sizing(source, high, now)
        elif blocks:
            low = 0  # EKS scales Capacity Block groups to 0 before their end; a group of blocks has no one window to plan in
        group_of = source if isinstance(source, ReservationGroup) else None
        plans.append(
            NodeGroupPlan(
                name=name,
                pool=pool.name,
                domain=domain,
                zone=zone,
                availability_zones=(availability_zone,),
                subnet_keys=(subnet,),
                instance_type=pool.instance_type,
                ami_type=spec.ami_type,
                role=pool.role,
                capacity_type="CAPACITY_BLOCK" if blocks else _CAPACITY_TYPES[source.kind],
                # EKS needs max_size >= 1 even for a domain whose share rounds to zero.
                min_size=low,
                desired_size=desired,
                max_size=max(1, high),
                interfaces=interfaces,
                labels=dict(sorted(labels.items())),
                taints=tuple(node_taints(pool, spec)) + tuple(gate.taint for gate in gates_of(lustre)),
                reservation_id=source.reservation_id if isinstance(source, (CapacityReservation, CapacityBlock)) else None,
                market_type="capacity-block" if blocks else None,
                reservation_members=tuple(group_of.reservation_ids) if group_of else (),
                reservation_group_arn=group_of.group_arn if group_of else None,
                reservation_placement_group=source.placement_group if isinstance(source, CapacityReservation | ReservationGroup) else None,
                placement_key=f"{pool.name}-{zone}",
                raid0=spec.instance_store is not None,
                local_nvme_gb=spec.instance_store.total_gb if spec.instance_store else 0,
                lustre_efa_interfaces=lustre,
                local_mount_path=nvme.mount_path if nvme else DEFAULT_LOCAL_MOUNT,
                # A reservation has no spare instances to surge into: replace nodes in place.
                update_strategy="MINIMAL" if reserved else "DEFAULT",
                fabric=pool.fabric,
                scale_up_at=scale_up_at,
                part=share.suffix,
                addresses=addresses,
                pods_limited=_pods_limited(addresses, networking),
                pod_subnet_key=pod_subnet,
                root_volume_gib=pool.root_volume.size_gib,
                root_volume_iops=pool.root_volume.iops,
                root_volume_throughput=pool.root_volume.throughput_mibps,
                ami_id=pool.ami_id,
                kubernetes_version=None if pool.ami_id else pool.kubernetes_version or ctx.blueprint.kubernetes.version,
                provisioner=pool.provisioner,
            )
        )
    return plans


class _SystemCommon(TypedDict):
    """What every system node group shares, passed to `NodeGroupPlan` by keyword."""

    pool: str
    instance_type: str
    ami_type: str
    role: str
    capacity_type: CapacityType
    interfaces: tuple[InterfaceSpec, ...]
    root_volume_gib: int
    system: bool
    addresses: NodeAddresses
    kubernetes_version: str | None


def system_groups(
    availability_zones: list[str], networking: PodNetworking, settings: SystemNodes | None = None, version: str | None = None
) -> list[NodeGroupPlan]:
    """The untainted system node group (`kubernetes.system_nodes`) across the private subnets of every zone.

    With custom networking a node's pod subnet (its ENIConfig) must be in its
    own zone, and a node group's labels are the same on all its nodes, so the
    system group becomes one group per zone, with the sizes split between them.
    """
    settings = settings or SystemNodes()
    kind = load_system_types()[settings.instance_type]
    addresses = node_addresses(kind.card_zero_interfaces, kind.ipv4_per_interface, kind.vcpus, networking)
    sizes = (settings.min, settings.desired, settings.max)
    common = _SystemCommon(
        pool=SYSTEM_GROUP,
        instance_type=kind.name,
        ami_type=kind.ami_type,
        role=SYSTEM_GROUP,
        capacity_type="ON_DEMAND",
        interfaces=(PRIMARY,),
        root_volume_gib=settings.root_volume_gib,
        system=True,
        addresses=addresses,
        kubernetes_version=version,
    )
    labels = {POOL_LABEL: SYSTEM_GROUP, ROLE_LABEL: SYSTEM_GROUP}
    if networking.mode != "custom_networking":
        low, desired, high = sizes
        return [
            NodeGroupPlan(
                name=SYSTEM_GROUP,
                domain="all-zones",
                zone=None,
                availability_zones=tuple(availability_zones),
                subnet_keys=tuple(f"private-{zone}" for zone in availability_zones),
                min_size=low,
                desired_size=desired,
                max_size=high,
                labels=labels,
                **common,
            )
        ]
    per_zone = zip(*(split_evenly(count, len(availability_zones)) for count in sizes), strict=True)
    groups: list[NodeGroupPlan] = []
    for zone, (low, desired, high) in zip(availability_zones, per_zone, strict=True):
        name, pods = f"{SYSTEM_GROUP}-{zone}", f"pods-{SYSTEM_GROUP}-{zone}"
        groups.append(
            NodeGroupPlan(
                name=name,
                domain=zone,
                zone=None,
                availability_zones=(zone,),
                subnet_keys=(f"private-{zone}",),
                min_size=low,
                desired_size=desired,
                max_size=max(1, high),
                labels={**labels, ENI_CONFIG_LABEL: pods},
                pod_subnet_key=pods,
                **common,
            )
        )
    return groups


def _addresses(spec: InstanceType, interfaces: tuple[InterfaceSpec, ...], networking: PodNetworking) -> NodeAddresses:
    """What one node of `spec` with these interfaces takes from its subnets (`topology.cluster.addresses`)."""
    efa_only = sum(1 for interface in interfaces if interface.network_card_index == 0 and interface.interface_type == "efa-only")
    enis = cni_enis(spec.network_cards[0].max_interfaces, efa_only)
    return node_addresses(enis, spec.ipv4_per_interface, spec.vcpus, networking, spec.network_cards[0].max_interfaces)


def gates_of(lustre_efa_interfaces: int) -> tuple[NodeGate, ...]:
    """The node gates of a group that sets up LNet on this many EFA interfaces (none when it sets up none)."""
    return (LNET_GATE,) if lustre_efa_interfaces else ()


def _pods_limited(addresses: NodeAddresses, networking: PodNetworking) -> bool:
    """True when the kubelet must be told its pod limit: the mode or `pods_per_node` changes it, or the default overcounts.

    The default (`NodeAddresses.default_max_pods`) counts card 0's `efa-only`
    slot as a pod ENI (p5: 100 where the CNI addresses 49 pods, plus the 2
    host-network ones), so a node left to it admits pods that never get an address.
    """
    overcounted = addresses.default_max_pods > addresses.kubelet_max_pods
    return networking.mode != "secondary_ips" or networking.pods_per_node is not None or overcounted


def plan_node_groups(blueprint: Blueprint, catalog: Catalog, now: datetime | None = None) -> tuple[NodeGroupPlan, ...]:
    """Every node group of the blueprint, planned at `now`: the system group first, then each pool's, in blueprint order."""
    ctx = Context(blueprint, catalog)
    limit = nodes_per_group_limit(blueprint)
    placed = functools.cache(lambda: place_pools(blueprint, catalog))
    kubernetes = blueprint.kubernetes
    plans = system_groups(list(blueprint.cloud.availability_zones), kubernetes.pod_networking, kubernetes.system_nodes, kubernetes.version)
    for index, pool in enumerate(blueprint.pools):
        plans += plan_pool(pool, ctx, now, limit, placed, index)
    return tuple(plans)
