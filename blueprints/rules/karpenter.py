"""A Karpenter pool: what railyard's Karpenter NodePools can launch.

railyard gives Karpenter the pools that launch on demand or on spot, where
it earns its keep (nodes made for pending pods, removed when empty). A pool
on a capacity reservation, a reservation group or a Capacity Block stays on
a managed node group: EKS runs a Capacity Block group's lifecycle (scale to
zero before the end, scheduled by EKS) and a reservation is sized ahead,
so a node group holds it exactly. Karpenter can select reservations
(`capacityReservationSelectorTerms`, capacity type `reserved`), but railyard
does not emit that.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.catalog import Catalog
from blueprints.findings import Finding, Path, error, warning
from blueprints.models.capacity import RESERVED_KINDS
from blueprints.models.pools import Pool

CODES = ("pool.karpenter-reserved", "pool.karpenter-minimum")


def check(pool: Pool, path: Path, catalog: Catalog) -> Iterable[Finding]:
    """A Karpenter pool on reserved capacity, or one that asks for nodes kept when idle."""
    if pool.provisioner == "karpenter" and pool.capacity.kind in RESERVED_KINDS:
        yield error(
            "pool.karpenter-reserved",
            path + ("provisioner",),
            f"pool '{pool.name}' is on {pool.capacity.kind.replace('_', ' ')} capacity; railyard launches reserved capacity "
            "with managed node groups (EKS runs a Capacity Block's lifecycle, and a reservation is sized ahead)",
            "use provisioner: managed_node_group for this pool, or on-demand or spot capacity with Karpenter",
        )
    if pool.provisioner == "karpenter" and pool.min_nodes > 0:
        yield warning(
            "pool.karpenter-minimum",
            path + ("nodes",),
            f"pool '{pool.name}' asks for at least {pool.min_nodes} nodes, but a Karpenter NodePool keeps none: nodes exist "
            "while pods need them and are consolidated away when empty",
            "set min: 0 (and keep warm capacity with a low-priority placeholder Deployment), or use provisioner: managed_node_group",
        )
