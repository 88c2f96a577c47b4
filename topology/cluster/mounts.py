"""Where FSx for Lustre is mounted: the FSx CSI node plugin's placement and the tiers it serves.

The driver's node plugin does the mounting, so it must run on exactly the
pools that mount an FSx tier, tolerating their taints (aws-facts.md 3.8).
Its placement is decided here, with the toleration the chart adds by itself,
so the cross-layer check proves what the compiler
(`components.kubernetes.storage`) installs.
"""

from __future__ import annotations

from collections.abc import Sequence

from blueprints.models import Blueprint
from blueprints.records import record
from topology.cluster.labels import POOL_LABEL
from topology.cluster.scheduling import Match, NodeGroupView, Placement, Toleration, tolerations_for

# The chart adds this toleration itself when `node.tolerateAllTaints` is false.
AGENT_NOT_READY = Toleration("fsx.csi.aws.com/agent-not-ready", "Exists")


@record
class MountPlacement:
    """The pools that mount an FSx tier, the node plugin's placement (None without mounts), the tiers mounted."""

    pools: tuple[str, ...]
    placement: Placement | None
    tiers: tuple[str, ...]


def place_fsx_mounts(blueprint: Blueprint, views: Sequence[NodeGroupView]) -> MountPlacement:
    """The node plugin's placement over the node groups whose pools mount an FSx tier; tiers in blueprint order."""
    mounters = [view for view in views if view.mounts]
    if not mounters:
        return MountPlacement((), None, ())
    pools = tuple(dict.fromkeys(view.pool for view in mounters))
    placement = Placement({}, ((Match(POOL_LABEL, "In", pools),),), (*tolerations_for(mounters), AGENT_NOT_READY))
    mounted = {tier for view in mounters for tier in view.mounts}
    tiers = tuple(tier.name for tier in blueprint.storage if tier.kind == "fsx_lustre" and tier.name in mounted)
    return MountPlacement(pools, placement, tiers)
