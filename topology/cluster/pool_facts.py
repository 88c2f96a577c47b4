"""What a pool's node groups are named and sized from: its domains, whether it is on EFA, how many EFA devices LNet
uses, its local NVMe tier, a Capacity Block's sizing at a given time, EKS's per-group limit, and names EKS accepts.

`topology.cluster.node_groups` plans the groups from these.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from blueprints.catalog import InstanceType
from blueprints.catalog.quotas import NODES_PER_NODE_GROUP, load_quotas
from blueprints.models import Blueprint
from blueprints.models.capacity import CapacityBlock
from blueprints.models.pools import Pool
from blueprints.models.storage import LocalNvme
from blueprints.rules.context import Context
from blueprints.rules.lustre_efa import lnet_interfaces, supports_lustre_efa

NODE_GROUP_NAME_LIMIT = 63
# EKS scales a Capacity Block node group to 0 this long before the block ends.
BLOCK_SCALE_DOWN_LEAD = timedelta(minutes=40)


def split_evenly(total: int, parts: int) -> list[int]:
    """`total` split into `parts` near-equal shares, larger shares first: 5 over 2 -> [3, 2]."""
    return [total // parts + (1 if index < total % parts else 0) for index in range(parts)]


def bounded_name(name: str, limit: int = NODE_GROUP_NAME_LIMIT) -> str:
    """`name`, or when longer than `limit`, its head plus a short stable hash (EKS caps names at 63)."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: limit - 9].rstrip('-')}-{digest}"


def pool_is_efa(pool: Pool, spec: InstanceType, ctx: Context) -> bool:
    """True when the pool joins an EFA fabric on an instance type that supports EFA."""
    fabric = ctx.fabrics.get(pool.fabric) if pool.fabric else None
    return fabric is not None and fabric.transport == "efa" and spec.efa_supported


def pool_domains(pool: Pool, ctx: Context) -> list[tuple[str, str, str]]:
    """(failure domain, its zone's name, its availability zone) for each domain the pool lists, in order."""
    found = []
    for name in dict.fromkeys(pool.placement.domains):
        zone = ctx.zones.get(name) or ctx.blocks[name][0]
        found.append((name, zone.name, zone.availability_zone))
    return found


def lustre_over_efa(pool: Pool, spec: InstanceType, ctx: Context, efa: bool) -> int:
    """EFA devices LNet should use on the pool's nodes: >0 when the pool is on EFA and mounts an EFA-enabled FSx tier.

    The FSx guide's count, but never more than the node has: it names 8 for p6e-gb200, whose layout gives 4.
    """
    mounts_efa_tier = any(getattr(ctx.tiers.get(use.tier), "efa", False) for use in pool.storage)
    return min(lnet_interfaces(spec), spec.efa_devices) if efa and mounts_efa_tier and supports_lustre_efa(spec) else 0


def local_nvme(pool: Pool, ctx: Context) -> LocalNvme | None:
    """The pool's local NVMe tier, if it uses one."""
    tiers = [ctx.tiers.get(use.tier) for use in pool.storage]
    return next((tier for tier in tiers if isinstance(tier, LocalNvme)), None)


def block_sizing(block: CapacityBlock, share: int, now: datetime | None) -> tuple[int, datetime | None]:
    """(desired size, when to scale up) for a Capacity Block group planned at `now` (None: as if the block runs).

    Before the start: 0, and a scheduled scale-up at the start (EKS asks for
    0 on a group created before its block); from 40 minutes before the end:
    0 (EKS has scaled it down); in between: the group's share. A block whose
    window the blueprint leaves to the account is sized as if it runs (the
    `online.reservation-not-started` warning says when it doesn't yet).
    """
    if block.start is None or block.end is None:
        return share, None
    if now is not None and now < block.start:
        return 0, block.start
    if now is not None and now >= block.end - BLOCK_SCALE_DOWN_LEAD:
        return 0, None
    return share, None


def nodes_per_group_limit(blueprint: Blueprint) -> int:
    """EKS's nodes-per-managed-node-group quota: the blueprint's declared value, else AWS's default."""
    default = load_quotas()[NODES_PER_NODE_GROUP].default
    assert default is not None, "quotas.yaml gives this quota's default: EKS sets it for every account alike"
    return blueprint.quotas.get(NODES_PER_NODE_GROUP, default)
