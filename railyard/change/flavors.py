"""Capacity split across Kueue flavors: what the largest single job can hold shrinks, though the total doesn't.

railyard's ClusterQueue lists every pool's ResourceFlavor in one resource group
(`topology.cluster.kueue`). Kueue admits a workload by giving each of its PodSets one
flavor per resource: "all the resources associated to the nodes ... should be assigned to
the same flavor during admission" (kubernetes-sigs/kueue v0.19.2, c3785e52,
`site/content/en/docs/concepts/cluster_queue.md`, "Resource Groups"), and the assignment it
computes maps each resource to a single flavor (`pkg/scheduler/flavorassigner/flavorassigner.go`,
`PodSetAssignment.Flavors`, a `ResourceAssignment` of resource to one `FlavorAssignment`). So
a PodSet (one job's workers) never spans two flavors: the largest it can be is the largest
flavor's quota. A change that splits a pool's capacity into two pools (two flavors) leaves the
total where it was and halves that largest job; `diff` names it, per accelerator resource,
from each side's compile plan (the same quotas the ceilings read).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from railyard.change.ceilings import QUEUE_UNITS

if TYPE_CHECKING:
    from railyard.mocked import PreviewResult

ACCELERATOR_RESOURCES = ("nvidia.com/gpu", "aws.amazon.com/neuron")


def _flavor_quotas(preview: PreviewResult, resource: str) -> dict[str, int]:
    """The ClusterQueue's nominal quota of `resource` per pool flavor that has some, from the side's compile plan."""
    kueue = preview.plan.kubernetes.kueue if preview.plan is not None else None
    if kueue is None:
        return {}
    return {flavor.pool: flavor.quotas.get(resource, 0) for flavor in kueue.flavors if flavor.quotas.get(resource, 0)}


def flavor_splits(old: PreviewResult, new: PreviewResult) -> list[tuple[str, str, dict[str, Any]]]:
    """(subject, summary, figures) per accelerator resource whose largest flavor shrinks while its total doesn't."""
    found = []
    for resource in ACCELERATOR_RESOURCES:
        before, after = _flavor_quotas(old, resource), _flavor_quotas(new, resource)
        if not before or not after:
            continue
        largest_before, largest_after = max(before.values()), max(after.values())
        if largest_after >= largest_before or sum(after.values()) < largest_before:
            continue  # no smaller ceiling for one job, or the capacity itself went (the ceilings say so)
        unit = QUEUE_UNITS[resource]
        new_pools = sorted(set(after) - set(before)) or sorted(after)
        summary = (
            f"capacity split across Kueue flavors: the largest {resource} quota one flavor holds goes from {largest_before:,} to "
            f"{largest_after:,} {unit} (total {sum(before.values()):,} -> {sum(after.values()):,}; pools {', '.join(new_pools)}): Kueue "
            f"gives each PodSet one flavor per resource, so no single job's workers can span them, and one that needs more than "
            f"{largest_after:,} {unit} is no longer admitted"
        )
        figures = {"resource": resource, "largest_before": largest_before, "largest_after": largest_after, "pools": sorted(after)}
        found.append((f"kueue {resource}", summary, figures))
    return found
