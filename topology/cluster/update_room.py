"""Room for a rolling update: the vCPUs a node-group update launches before it drains.

EKS updates a managed node group by first raising its Auto Scaling group's
size by the larger of twice its zones and its maxUnavailable, launching the
new nodes, and only then draining the old (EKS user guide, "Understand each
phase of node updates", scale-up phase). railyard sets maxUnavailable to 10%
of the group (`MAX_UNAVAILABLE_PERCENT`; EKS caps it at 100 nodes), and
Pulumi updates every node group of a changed launch template at once. So an
on-demand or spot vCPU quota that just fits the groups at their largest
leaves no room: the update's new nodes fail to launch and the update stalls.
Groups on a reservation or Capacity Block update with the `MINIMAL` strategy,
which drains before launching, and need no room.

The count is an upper bound: maxUnavailable's percentage is rounded up here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from blueprints.catalog import Catalog
from blueprints.catalog.quotas import load_quotas, vcpu_family
from blueprints.catalog.system_types import load_system_types
from blueprints.findings import Finding, warning
from topology.cluster.node_groups import MAX_UNAVAILABLE_PERCENT, NodeGroupPlan
from topology.cluster.quotas import MARKETS, QuotaNeed
from topology.cluster.update_time import MAX_UNAVAILABLE_CAP

CODES = ("quota.no-update-room",)


def update_surge(group: NodeGroupPlan) -> int:
    """The most nodes EKS launches ahead of draining when it updates `group` (0 with the MINIMAL strategy)."""
    if group.update_strategy == "MINIMAL":
        return 0
    unavailable = min(MAX_UNAVAILABLE_CAP, math.ceil(group.max_size * MAX_UNAVAILABLE_PERCENT / 100))
    return max(2 * len(group.availability_zones), unavailable)


def update_room_findings(needs: Sequence[QuotaNeed], node_groups: Iterable[NodeGroupPlan], catalog: Catalog) -> list[Finding]:
    """A warning per vCPU quota that holds the groups at their largest but not the nodes an update adds."""
    codes = {(quota.family, quota.market): code for code, quota in load_quotas().items() if quota.family}
    surge: dict[str, int] = {}
    for group in node_groups:
        if not group.managed:
            continue  # Karpenter replaces nodes under its own disruption budget, not an EKS node-group update
        market = MARKETS.get(group.capacity_type)
        spec = catalog.get(group.instance_type)
        # The system group's type isn't an accelerator type in the catalog; its vCPUs come from the system types.
        system = load_system_types().get(group.instance_type)
        vcpus = spec.vcpus if spec else system.vcpus if system else 0
        if market is None or not vcpus:
            continue
        code = codes[(vcpu_family(group.instance_type), market)]
        surge[code] = surge.get(code, 0) + update_surge(group) * vcpus
    findings = []
    for need in needs:
        extra = surge.get(need.code, 0)
        if extra and need.available is not None and need.needed <= need.available < need.needed + extra:
            findings.append(
                warning(
                    "quota.no-update-room",
                    need.path,
                    f"{need.name} ({need.code}): the groups at their largest need {need.needed:,} vCPUs and fit the "
                    f"{need.available:,} available, but updating them launches up to {extra:,} more vCPUs before draining "
                    f"(EKS's scale-up phase), {need.needed + extra:,} in all",
                    f"raise the quota to {need.needed + extra} so updates can run, or keep the groups below their maximum",
                    quota=need.code,
                    needed=need.needed,
                    surge=extra,
                    available=need.available,
                )
            )
    return findings
