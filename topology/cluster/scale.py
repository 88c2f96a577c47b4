"""Where one EKS cluster stops, and the control-plane tier a design needs.

* Control plane: EKS's Provisioned Control Plane tiers (`standard`, `tier-xl`,
  `tier-2xl`, `tier-4xl`, `tier-8xl`; botocore eks `ProvisionedControlPlaneTier`)
  are published by API request concurrency (XL 1,700 seats, 2XL 3,400, 4XL
  6,800; EKS user guide, eks-provisioned-control-plane-introduction), pods
  scheduled per second and database size, not by node count. railyard's
  default maps nodes to a tier in proportion to those seats, about 1.5 nodes
  a seat (`TIER_NODES`, its own rule, not AWS's); `kubernetes.control_plane_tier`
  overrides it.
* One cluster: upstream Kubernetes is tested to 5,000 nodes and 150,000 pods
  (kubernetes.io "Considerations for large clusters"); EKS supports clusters
  of up to 100,000 nodes (AWS, "Under the hood: Amazon EKS ultra scale
  clusters", 2025). A design above 100,000 nodes needs more than one cluster
  (docs/scale.md).
* Placement: EC2 asks for all of a cluster placement group's instances in one
  launch request, and later additions risk insufficient-capacity errors (EC2
  user guide, placement groups); above a few hundred instances, reserve the
  capacity per block instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, Path, error, info, warning
from topology.cluster.placement_groups import PlacementDecision

CODES = ("scale.beyond-one-cluster", "scale.large-cluster", "scale.cluster-placement-group")
TIER_NODES = (("standard", 1000), ("tier-xl", 2500), ("tier-2xl", 5000), ("tier-4xl", 10000), ("tier-8xl", 100000))
UPSTREAM_TESTED_NODES = 5000
EKS_MAX_NODES = 100000
CLUSTER_GROUP_INSTANCES = 256  # the most instances Capacity Blocks give across blocks; railyard's line for one launch


def control_plane_tier(nodes: int, declared: str = "auto") -> str:
    """The tier for a cluster of `nodes` at their largest: the declared one, else the smallest whose range holds them."""
    if declared != "auto":
        return declared
    return next((tier for tier, most in TIER_NODES if nodes <= most), TIER_NODES[-1][0])


def cluster_size_findings(nodes: int, tier: str) -> list[Finding]:
    """The node count against one cluster's limits (it needs no plan: a design too big to plan is still reported)."""
    found = []
    where = ("pools",)
    if nodes > EKS_MAX_NODES:
        found.append(
            error(
                "scale.beyond-one-cluster",
                where,
                f"the design scales to {nodes:,} nodes; one EKS cluster supports up to {EKS_MAX_NODES:,}",
                "split it into one cluster (and stack) per failure domain: docs/scale.md",
            )
        )
    elif nodes > UPSTREAM_TESTED_NODES:
        found.append(
            info(
                "scale.large-cluster",
                where,
                f"the design scales to {nodes:,} nodes, past the {UPSTREAM_TESTED_NODES:,} upstream Kubernetes is tested to; "
                f"railyard provisions the control plane at {tier}",
                "set kubernetes.control_plane_tier to choose another tier; docs/scale.md",
            )
        )
    return found


def scale_findings(nodes: int, tier: str, placements: Iterable[PlacementDecision], pool_paths: dict[str, Path]) -> list[Finding]:
    """One cluster's limits against the design: node count, the control-plane tier, cluster groups too big to launch at once."""
    found = cluster_size_findings(nodes, tier)
    where = ("pools",)
    members: dict[str, list[PlacementDecision]] = {}  # a cluster group's decisions: its own pool's, then hot spares sharing it
    for decision in placements:
        if decision.strategy == "cluster":
            members.setdefault(decision.group_key, []).append(decision)
    for group in members.values():
        owner = next((decision for decision in group if decision.shares_group_of is None), group[0])
        total = sum(decision.nodes for decision in group)
        if total <= CLUSTER_GROUP_INSTANCES:
            continue
        spares = [decision for decision in group if decision is not owner]
        shared = f" ({owner.nodes:,} of its own and {total - owner.nodes:,} of its spares {[spare.pool for spare in spares]})" if spares else ""
        found.append(
            warning(
                "scale.cluster-placement-group",
                (*pool_paths.get(owner.pool, where), "capacity"),
                f"pool '{owner.pool}' puts {total:,} on-demand or spot nodes{shared} in one cluster placement "
                f"group in {owner.availability_zone}; EC2 wants them launched in one request, and adding "
                "instances later risks insufficient-capacity errors",
                "reserve the capacity (Capacity Blocks or capacity reservations, one per block) so no placement group is needed",
            )
        )
    return found
