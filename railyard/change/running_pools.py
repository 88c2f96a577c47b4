"""The acceptance gate turned on for a pool whose nodes already run: EKS gates the running nodes too.

A gated pool's node groups carry the `railyard.dev/acceptance=pending` taint and label
(`topology.cluster.labels`). Turning the gate on changes the groups' `taints` and `labels`,
which pulumi-aws updates in place through UpdateNodegroupConfig, whose members say what EKS
does with them: "The Kubernetes taints to be applied to the nodes in the node group after the
update" and "The Kubernetes labels to apply to the nodes in the node group after the update"
(botocore's eks model, read at run time). So every node the group runs is labelled pending and
tainted: the checker's DaemonSet, which selects pending nodes, starts on each of them, and on
an NVIDIA node its DCGM diagnostic runs on GPUs that jobs hold, fails, and leaves the node
tainted when its jobs end (docs/acceptance.md). `diff` says so per pool, in nodes and
accelerators, with a warning (`change.acceptance-on-running`). A group with no node at the
moment `--at` names (a Capacity Block that hasn't started, or was scaled down) gates only the
nodes that join later, as intended: nothing is said. Karpenter pools carry the taint as a
NodePool `startupTaints` change, which Karpenter sees as drift (`railyard.change.karpenter_drift`):
their nodes are replaced by gated ones, not gated in place.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from blueprints.findings import Finding, warning
from railyard.change.capacity import instance_spec
from railyard.change.compare import ResourceChange
from railyard.change.terraform_source import UPDATE
from topology.cluster.labels import ACCEPTANCE_KEY, POOL_LABEL

if TYPE_CHECKING:
    from railyard.pipeline import Validation

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
CODES = ("change.acceptance-on-running",)


@functools.cache
def applies_to_running_nodes() -> str:
    """What botocore's eks model says UpdateNodegroupConfig does with a node group's taints (the quoted rule)."""
    import botocore.session

    shape = botocore.session.get_session().get_service_model("eks").operation_model("UpdateNodegroupConfig").input_shape
    assert shape is not None and "taints" in shape.members, "botocore's eks model has UpdateNodegroupConfig's taints"
    text = shape.members["taints"].documentation
    return text.removeprefix("<p>").split(" For more information")[0].strip()


def _gated(resource: Any) -> bool:
    return any(taint.get("key") == ACCEPTANCE_KEY for taint in resource.inputs.get("taints") or [])


def _running(resource: Any) -> int:
    return int((resource.inputs.get("scalingConfig") or {}).get("desiredSize") or 0)


def gated_running_pools(changes: Sequence[ResourceChange]) -> dict[str, list[ResourceChange]]:
    """The node groups, by pool, that gain the acceptance taint in place while they run nodes."""
    by_pool: dict[str, list[ResourceChange]] = {}
    for change in changes:
        if change.type != NODE_GROUP or change.old is None or change.new is None or change.action != UPDATE:
            continue
        if _gated(change.new) and not _gated(change.old) and _running(change.new) > 0:
            by_pool.setdefault(str((change.new.inputs.get("labels") or {}).get(POOL_LABEL)), []).append(change)
    return by_pool


def acceptance_on_running(changes: Sequence[ResourceChange], new: Validation) -> tuple[list[tuple[str, str, dict[str, Any]]], list[Finding]]:
    """(kind, subject, figures) per pool whose running nodes the gate would hold, and a warning for each."""
    blueprint = new.blueprint
    if blueprint is None:
        return [], []
    indexes = {pool.name: index for index, pool in enumerate(blueprint.pools)}
    impacts, findings = [], []
    for pool, groups in sorted(gated_running_pools(changes).items()):
        spec = instance_spec(new, pool)
        per_node = spec.accelerator_count if spec is not None else 0
        nodes = sum(_running(change.new) for change in groups if change.new is not None)
        names = sorted(str(change.new.inputs.get("nodeGroupName") or change.name) for change in groups if change.new is not None)
        impacts.append(("acceptance-on-running", f"pool {pool}", {"nodes": nodes, "accelerators": nodes * per_node, "node_groups": len(groups)}))
        message = (
            f"pool {pool} turns the acceptance gate on while its node groups ({', '.join(names)}) run {nodes} nodes ({nodes * per_node} "
            f'accelerators): EKS taints and labels the running nodes too (UpdateNodegroupConfig: "{applies_to_running_nodes()}"), so the '
            "checker starts on every one; its DCGM diagnostic runs on GPUs that jobs hold and fails, and the node stays tainted after its jobs end"
        )
        hint = (
            "turn the gate on while the pool runs no node (outside its Capacity Block's window, or drained to 0 first), or in the same "
            "change as one that rolls the pool, so only new nodes join under it (docs/acceptance.md)"
        )
        index = indexes.get(pool)
        path = ("pools", index, "acceptance") if index is not None else ()
        findings.append(new.load.source_map.place(warning("change.acceptance-on-running", path, message, hint, pool=pool)))
    return impacts, findings
