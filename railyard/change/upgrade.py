"""A Kubernetes upgrade read as `pulumi up` carries it out: one minor version at a time, in dependency order.

EKS moves a control plane one minor version per update and never back
(`UpdateClusterVersion`; eksctl's cluster-upgrade guide: "Upgrades of more
than one Kubernetes version are not supported"), so a diff whose cluster jumps
further, or goes down, is an error (`change.version-skip`). An upgrade that
is allowed is written as the order the engine applies it in: Pulumi updates
a resource only after everything it depends on, so the control plane comes
first, then the add-ons the nodes wait for (VPC CNI, kube-proxy, Pod
Identity agent), then the node groups roll onto the new version, and the
add-ons that run on the nodes (CoreDNS, EBS CSI, metrics-server, the
monitoring agent) follow the system node groups: they depend on those alone,
so they update while the accelerator groups may still be rolling. The phases
are dependency depths read from the previews, not assumed, and the summary
names the groups the later add-ons wait for.

A node group created before railyard set its `version` runs the cluster's
version already (EKS gives a new group the cluster's), so adopting a plan
that now states it is no change (`settle_adopted_versions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from blueprints.findings import Finding, error
from railyard.change.compare import ResourceChange, match_key
from railyard.change.impact_record import Impact

if TYPE_CHECKING:
    from railyard.mocked import PreviewResource
    from railyard.pipeline import Validation

CLUSTER = "aws:eks/cluster:Cluster"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
CODES = ("change.version-skip",)


def _minor(version: str) -> int:
    return int(version.split(".")[1])


def cluster_version(resources: Sequence[PreviewResource]) -> str | None:
    """The Kubernetes version the preview gives the EKS cluster, or None when it has none."""
    return next((str(resource.inputs.get("version")) for resource in resources if resource.type == CLUSTER and resource.inputs.get("version")), None)


def settle_adopted_versions(changes: list[ResourceChange], old_resources: Sequence[PreviewResource]) -> list[ResourceChange]:
    """The changes without a node group's `version` going from unset to the old cluster's version (a group already there)."""
    running = cluster_version(old_resources)
    settled = []
    for change in changes:
        if change.type == NODE_GROUP and change.old is not None and change.new is not None and running is not None:
            kept = [item for item in change.inputs if not (item.path == "version" and not item.via and item.old is None and item.new == running)]
            if not kept:
                continue
            change.inputs = kept
        settled.append(change)
    return settled


def version_findings(old: Validation, new: Validation) -> list[Finding]:
    """An error when the cluster's Kubernetes version moves by more than one minor version, or down."""
    if old.blueprint is None or new.blueprint is None:
        return []
    before, after = old.blueprint.kubernetes.version, new.blueprint.kubernetes.version
    step = _minor(after) - _minor(before)
    if step in (0, 1):
        return []
    if step < 0:
        message = f"kubernetes.version goes from {before} down to {after}: EKS never downgrades a control plane"
        hint = f"keep {before}; a cluster on an older version is a new cluster"
    else:
        message = f"kubernetes.version goes from {before} to {after}: EKS upgrades a control plane one minor version at a time"
        hint = f"upgrade to 1.{_minor(before) + 1} first, apply it (control plane, add-ons, then the node groups), then to the next"
    return [new.load.source_map.place(error("change.version-skip", ("kubernetes", "version"), message, hint))]


def _depth(urn: str, resources: dict[str, PreviewResource], changed: set[str], memo: dict[str, int]) -> int:
    """How many changed resources stand before `urn` on its longest chain of dependencies."""
    if urn in memo:
        return memo[urn]
    memo[urn] = 0  # a cycle can't happen in a Pulumi program; this only guards the recursion
    resource = resources[urn]
    sources = {match_key(source) for source in resource.dependencies}
    sources |= {match_key(source) for values in resource.property_dependencies.values() for source in values}
    depth = max(
        (_depth(source, resources, changed, memo) + (1 if source in changed else 0) for source in sources if source in resources),
        default=0,
    )
    memo[urn] = depth
    return depth


def upgrade_order(changes: list[ResourceChange], old: Validation, new: Validation, resources: Sequence[PreviewResource]) -> list[Impact]:
    """The upgrade's phases in the order `pulumi up` applies them, when the cluster's version moves up by one."""

    if old.blueprint is None or new.blueprint is None:
        return []
    before, after = old.blueprint.kubernetes.version, new.blueprint.kubernetes.version
    if _minor(after) - _minor(before) != 1:
        return []
    by_urn = {match_key(resource.urn): resource for resource in resources}
    changed = {match_key(change.urn) for change in changes if change.new is not None and change.old is not None}
    memo: dict[str, int] = {}
    phases: dict[int, list[str]] = {}
    for change in changes:
        key = match_key(change.urn)
        if key in changed and key in by_urn and change.type in (CLUSTER, NODE_GROUP, "aws:eks/addon:Addon"):
            phases.setdefault(_depth(key, by_urn, changed, memo), []).append(_label(change))
    steps = [f"{number}. {', '.join(sorted(labels))}" for number, (_, labels) in enumerate(sorted(phases.items()), 1)]
    summary = f"Kubernetes {before} -> {after}, applied by `pulumi up` in this order: " + "; ".join(steps) + _waited_for(changes, by_urn, changed)
    return [
        Impact("upgrade", f"kubernetes {after}", summary, {"from": before, "to": after, "phases": [labels for _, labels in sorted(phases.items())]})
    ]


def _upstream(urn: str, resources: dict[str, PreviewResource], seen: set[str]) -> set[str]:
    """Every resource `urn` depends on, directly or through others."""
    resource = resources.get(urn)
    if resource is None:
        return seen
    sources = {match_key(source) for source in resource.dependencies}
    sources |= {match_key(source) for values in resource.property_dependencies.values() for source in values}
    for source in sources - seen:
        seen.add(source)
        _upstream(source, resources, seen)
    return seen


def _waited_for(changes: list[ResourceChange], resources: dict[str, PreviewResource], changed: set[str]) -> str:
    """Which rolling node groups the add-ons that follow them wait for, when that is not all of them (only the system groups)."""
    groups = {match_key(change.urn): change for change in changes if change.type == NODE_GROUP and match_key(change.urn) in changed}
    waiting: set[str] = set()
    for change in changes:
        if change.type == "aws:eks/addon:Addon" and match_key(change.urn) in changed:
            waiting |= _upstream(match_key(change.urn), resources, set()) & set(groups)
    if not waiting or waiting == set(groups):
        return ""
    names = ", ".join(sorted(_label(groups[key]).removesuffix(" rolls").removeprefix("node group ") for key in waiting))
    return f" (the add-ons after the node groups wait for {names} only; the other node groups may still be rolling while they update)"


def _label(change: ResourceChange) -> str:
    resource = change.new or change.old
    assert resource is not None
    if change.type == CLUSTER:
        return "control plane"
    if change.type == NODE_GROUP:
        # EKS asks for a Capacity Block group's desired size to be 0 before an upgrade: the order says so where it rolls.
        block = (
            " (a Capacity Block group: desired size 0 first, see change.capacity-block-roll)"
            if resource.inputs.get("capacityType") == "CAPACITY_BLOCK"
            else ""
        )
        return f"node group {resource.inputs.get('nodeGroupName') or change.name} rolls{block}"
    return f"add-on {resource.inputs.get('addonName') or change.name}"
