"""A held node group whose launch template changes: the update request carries no version, and the hold may end.

A pool held behind the cluster (`pools[].kubernetes_version`) keeps its node
groups' `version` at the held minor. When only its launch template changes
(instance type, user data, root volume, a new Capacity Block), `version`
does not: terraform-provider-aws's node group Update (`node_group.go`
`resourceNodeGroupUpdate` @ 012e0a32) calls `UpdateNodegroupVersion` on any
change to `launch_template`, `release_version` or `version`, but sets the
request's `Version` only `if ... d.HasChange(names.AttrVersion)`. So the
request goes out without a version, and railyard can't make the provider
send the held one: an unchanged input is never sent.

What EKS does with that request is where the sources disagree. The
parameter's text: "If no version is specified, then the node group will be
updated to match the cluster's current Kubernetes version, and the latest
available AMI for that version will be used" (EKS API reference,
`UpdateNodegroupVersionRequest.version`, as botocore 1.44.5 ships it). The
operation's own text speaks of keeping "a node group's current Kubernetes
version" when the request has no version, but only for an update *without*
a launch template. If the parameter's reading holds, the roll ends the hold,
the provider then reads the cluster's version back, and every later
`pulumi up` asks EKS for the held version again, which EKS refuses ("You
cannot roll back a node group to an earlier Kubernetes version"). railyard
warns (`change.held-template`), naming the group, with the way round it and
the check that tells which reading held.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from blueprints.findings import Finding, warning
from railyard.change.compare import ResourceChange
from railyard.change.terraform_source import UPDATE
from topology.cluster.labels import POOL_LABEL

if TYPE_CHECKING:
    from railyard.pipeline import Validation

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
CODES = ("change.held-template",)


def _pool_index(validation: Validation, pool: str | None) -> int | None:
    blueprint = validation.blueprint
    assert blueprint is not None
    return next((index for index, entry in enumerate(blueprint.pools) if entry.name == pool), None)


def _held_template_change(change: ResourceChange, cluster: str) -> str | None:
    """The held version of a node group updated in place whose template changes and whose version doesn't, else None."""
    if change.type != NODE_GROUP or change.action != UPDATE or change.new is None:
        return None
    held = change.new.inputs.get("version")
    if not held or held == cluster:
        return None
    roots = {item.path.split(".")[0] for item in change.inputs}
    return str(held) if "launchTemplate" in roots and "version" not in roots else None


def held_template_findings(changes: Sequence[ResourceChange], new: Validation) -> list[Finding]:
    """A warning per held node group whose launch template changes while its version stays, naming the group."""
    if new.blueprint is None:
        return []
    cluster = new.blueprint.kubernetes.version
    findings = []
    for change in changes:
        held = _held_template_change(change, cluster)
        if held is None:
            continue
        assert change.new is not None
        name = change.new.inputs.get("nodeGroupName") or change.name
        cluster_name = change.new.inputs.get("clusterName") or "<cluster>"
        pool = (change.new.inputs.get("labels") or {}).get(POOL_LABEL)
        index = _pool_index(new, pool)
        path = ("pools", index, "kubernetes_version") if index is not None else ()
        message = (
            f"node group {change.name} is held at Kubernetes {held} (the cluster runs {cluster}) and its launch template changes: "
            "terraform-provider-aws sends UpdateNodegroupVersion without `version` when the version itself is unchanged, and the "
            "EKS API reference says such a request updates the group to the cluster's version; if it does, the hold ends, and every "
            f"later `pulumi up` asks EKS to take the group back to {held}, which EKS refuses"
        )
        hint = (
            f"to keep the hold for sure, leave the template as it is until the pool may move, then drop `kubernetes_version` and change "
            f"both in one step; or apply it and read `aws eks describe-nodegroup --cluster-name {cluster_name} --nodegroup-name {name} "
            f"--query nodegroup.version`: if it says {cluster}, the hold has ended, so drop pools[{index}].kubernetes_version "
            "before the next `pulumi up`"
        )
        findings.append(new.load.source_map.place(warning("change.held-template", path, message, hint, node_group=change.name)))
    return findings
