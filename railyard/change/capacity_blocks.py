"""A Capacity Block node group that rolls: EKS asks for its desired size to be 0 first.

"When upgrading managed node groups with Capacity Blocks, make sure that the
desired size of the node group is set to `0`." (EKS user guide,
`latest/ug/ml/capacity-blocks-mng.adoc`, Considerations.) An upgrade is
UpdateNodegroupVersion, which a new Kubernetes version and a new launch
template version (another block, instance type, user data) both send. railyard
can't set the desired size to 0 itself: EKS's scheduled actions own it on a
Capacity Block group, so the node group ignores changes to it. What EKS does
with an upgrade of a group whose block is running (refuse it, or drain the
block's nodes one by one with nothing to surge into) is not documented.

So `diff` warns (`change.capacity-block-roll`) per pool, naming its groups,
the block and its window, with the steps: outside the window the group has
no nodes (before the start its desired size is 0; EKS scales it to 0 forty
minutes before the end), so the roll only moves the template; while the block
runs, hold the pool until it ends (for an upgrade), or drain the group to 0,
apply, and scale it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from blueprints.findings import Finding, warning
from blueprints.models.capacity import CapacityBlock
from railyard.change.compare import ResourceChange
from railyard.change.node_group_steps import version_goes_down
from railyard.change.terraform_source import UPDATE
from topology.cluster.labels import POOL_LABEL

if TYPE_CHECKING:
    from railyard.pipeline import Validation

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
CAPACITY_BLOCK = "CAPACITY_BLOCK"
CODES = ("change.capacity-block-roll",)
# `railyard explain`: the fix is built per change (the groups, the cluster, a held version), so it is said here in general.
EXPLAIN = {
    "change.capacity-block-roll": {
        "fix": "outside the block's window apply as is (the groups have no nodes); while it runs, hold the pool's Kubernetes "
        "version until the block ends, or set each group's desired size to 0 with `aws eks update-nodegroup-config`, wait "
        "for its nodes to go, `pulumi up`, then restore the desired sizes",
    },
}
ROLLING_ROOTS = frozenset({"launchTemplate", "version", "releaseVersion"})  # UpdateNodegroupVersion's inputs


def rolls_a_block(change: ResourceChange) -> bool:
    """True for a Capacity Block node group updated in place through UpdateNodegroupVersion."""
    if change.type != NODE_GROUP or change.action != UPDATE or change.new is None:
        return False
    # A version going down is refused, not rolled (`change.version-down`).
    refused = version_goes_down(change)
    rolling = [item for item in change.inputs if item.path.split(".")[0] in ROLLING_ROOTS and not (refused and item.path == "version")]
    return change.new.inputs.get("capacityType") == CAPACITY_BLOCK and bool(rolling)


def _window(validation: Validation, index: int) -> str:
    blueprint = validation.blueprint
    assert blueprint is not None
    source = blueprint.pools[index].capacity
    if not isinstance(source, CapacityBlock):
        return "its Capacity Blocks (a reservation group)"
    if source.start is None or source.end is None:
        return f"Capacity Block {source.reservation_id} (window read online)"
    return f"Capacity Block {source.reservation_id}, {source.start:%Y-%m-%dT%H:%MZ} to {source.end:%Y-%m-%dT%H:%MZ}"


def _steps(changes: Sequence[ResourceChange], upgrade: bool, before: str, index: int) -> str:
    first = changes[0].new
    assert first is not None
    cluster = first.inputs.get("clusterName") or "<cluster>"
    groups = " ".join(str(change.new.inputs.get("nodeGroupName") or change.name) for change in changes if change.new is not None)
    hold = f'hold the pool (pools[{index}].kubernetes_version: "{before}") until the block ends and drop the hold then; or ' if upgrade else ""
    return (
        "outside the block's window the groups have no nodes and the roll only moves their template: apply as is; while it runs, "
        + hold
        + f"drain first: for G in {groups}: `aws eks update-nodegroup-config --cluster-name {cluster} --nodegroup-name $G "
        "--scaling-config desiredSize=0`, wait until their nodes are gone, `pulumi up`, then set desiredSize back to each group's "
        "share (jobs on the block stop meanwhile)"
    )


def capacity_block_findings(changes: Sequence[ResourceChange], old: Validation, new: Validation) -> list[Finding]:
    """A warning per pool whose Capacity Block node groups roll, naming the groups and the block, with the steps."""
    if old.blueprint is None or new.blueprint is None:
        return []
    by_pool: dict[str, list[ResourceChange]] = {}
    for change in changes:
        if rolls_a_block(change):
            assert change.new is not None
            by_pool.setdefault(str((change.new.inputs.get("labels") or {}).get(POOL_LABEL)), []).append(change)
    indexes = {pool.name: index for index, pool in enumerate(new.blueprint.pools)}
    before, after = old.blueprint.kubernetes.version, new.blueprint.kubernetes.version
    findings = []
    for pool, rolled in sorted(by_pool.items()):
        index = indexes.get(pool)
        if index is None:
            continue
        upgrade = any(item.path == "version" for change in rolled for item in change.inputs)
        why = f"Kubernetes {before} -> {after}" if upgrade and before != after else "a new launch template version"
        message = (
            f"pool {pool}'s Capacity Block node groups {', '.join(sorted(change.name for change in rolled))} roll ({why}) on "
            f"{_window(new, index)}: EKS says to set a Capacity Block group's desired size to 0 before upgrading it, and doesn't say what "
            "it does to a group whose block is running; railyard leaves the desired size to EKS, so `pulumi up` rolls the group as it stands"
        )
        findings.append(
            new.load.source_map.place(
                warning("change.capacity-block-roll", ("pools", index, "capacity"), message, _steps(rolled, upgrade, before, index), pool=pool)
            )
        )
    return findings
