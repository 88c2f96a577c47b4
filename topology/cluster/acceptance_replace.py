"""`on_failure: replace`, checked: what a pool that replaces its failed nodes needs, and where replacing can't help.

A pool with `acceptance.on_failure: replace` has its checker mark a failed node's instance
Unhealthy (Auto Scaling SetInstanceHealth), so the node group's Auto Scaling group terminates it and
launches another (docs/acceptance.md). That needs two things the design decides:

- **EKS Pod Identity.** The checker's credentials come from a Pod Identity association, which the
  node's Pod Identity agent serves (https://docs.aws.amazon.com/eks/latest/userguide/pod-identities.html);
  with the agent turned off the checker has no credentials and every failed node stays where it is
  (`acceptance.replace-without-pod-identity`). The agent tolerates every taint (its chart's values,
  `tolerations: [{operator: Exists}]`), so it runs on a pending node: `topology.cluster.acceptance.NODE_ADDONS`.
- **Room for the replacement.** On a Capacity Block the replacement launches into the same block:
  "If you terminate an instance running in the Capacity Block before the reservation ends, you can
  launch a new instance in its place", after "several minutes" of clean-up (EC2 user guide, "Launch
  instances using Capacity Blocks", https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-launch.html). Until then, and whenever the
  block has no free slot, the group's launch fails and Auto Scaling retries; EC2 does not say the new
  instance lands on other hardware. That is a warning, not a refusal: without replacement the failed
  node holds its paid slot for the rest of the block (`acceptance.replace-capacity-block`).

Karpenter pools can't replace at all (no Auto Scaling group): the model refuses them
(`pool.acceptance-replace-karpenter`, blueprints/models/pools.py); what a gated Karpenter pool's failed node does
instead is `topology.cluster.acceptance_karpenter`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from blueprints.findings import Finding, error, warning
from blueprints.models import Blueprint, CapacityBlock, Pool, ReservationGroup
from topology.cluster.acceptance import AcceptanceGate

CODES = ("acceptance.replace-without-pod-identity", "acceptance.replace-capacity-block")


def _block(pool: Pool) -> CapacityBlock | ReservationGroup | None:
    """The pool's Capacity Block capacity (one block, or a reservation group of them), or None."""
    capacity = pool.capacity
    if isinstance(capacity, CapacityBlock) or (isinstance(capacity, ReservationGroup) and capacity.capacity_blocks):
        return capacity
    return None


def _block_room(pool: Pool, block: CapacityBlock | ReservationGroup) -> str:
    """What the blueprint says of the block's free slots: the pool's most nodes against the block's instances, when both are known."""
    count = block.instance_count
    if count is None:
        return "the block's size is read online, so its free slots are not known here"
    if pool.max_nodes >= count:
        return f"the pool fills the block ({pool.max_nodes} nodes, {count} instances): a replacement waits for the failed instance's clean-up"
    return f"the block keeps {count - pool.max_nodes} of its {count} instances free beside the pool's {pool.max_nodes} nodes"


def replace_findings(blueprint: Blueprint, gates: Sequence[AcceptanceGate]) -> Iterable[Finding]:
    """Every finding for the pools whose failed nodes are replaced: the Pod Identity agent off, Capacity Block capacity."""
    replacing = [gate for gate in gates if gate.replaces]
    if replacing and not blueprint.kubernetes.addons.pod_identity_agent.enabled:
        pools = [gate.pool for gate in replacing]
        yield error(
            "acceptance.replace-without-pod-identity",
            ("kubernetes", "addons", "pod_identity_agent", "enabled"),
            f"pools {pools} replace failed nodes, which the checker asks of Auto Scaling with credentials from an EKS Pod Identity "
            "association, but the Pod Identity agent that serves them is turned off: no failed node would ever be replaced",
            "turn pod_identity_agent on, or set those pools' acceptance.on_failure to taint",
            pools=pools,
        )
    for gate in replacing:
        pool = blueprint.pools[gate.pool_index]
        if (block := _block(pool)) is not None:
            yield warning(
                "acceptance.replace-capacity-block",
                ("pools", gate.pool_index, "acceptance", "on_failure"),
                f"pool '{gate.pool}' replaces failed nodes from Capacity Block capacity ({block.reservation_id}): the replacement "
                f"launches into the same block only after EC2 has cleaned up the failed instance (several minutes), and only while the "
                f"block has a free slot; {_block_room(pool, block)}. EC2 does not say the new instance lands on other hardware",
                "keep replace to free the failed node's paid slot (plan a spare slot in the block), or set on_failure: taint "
                "to keep the node for AWS support",
                reservation=block.reservation_id,
            )
