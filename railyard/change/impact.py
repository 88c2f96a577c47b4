"""A change read in accelerator terms: capacity added or removed, node groups rolled, data lost.

* **Node groups.** A change to an input of EKS's UpdateNodegroupVersion
  (`launchTemplate`, `version`, `releaseVersion`; botocore's eks model) rolls
  the group: EKS replaces its nodes `maxUnavailable` at a time (the
  percentage rounded up, at most 100 nodes; default one node), after launching
  up to twice its zones or `maxUnavailable` new nodes first, unless the group
  updates with the `MINIMAL` strategy (EKS user guide, "Understand each phase
  of node updates"); the roll says how long Pulumi waits for each group (its
  customTimeouts, `topology.cluster.update_time`) and why. A change to
  `scalingConfig.desiredSize` resizes it in place. A replaced group is deleted before its replacement is created
  (railyard sets deleteBeforeReplace, since the name is fixed): all its
  accelerators are out until the new group is up.
* **State.** Replacing or deleting an FSx for Lustre file system, an S3
  bucket, a KMS key or the EKS cluster loses what it holds. That is an error,
  unless the new blueprint accepts it: `accept_replacement: true` on the
  file system's storage tier, or `cloud.protect_stateful: false` (which also
  lets `pulumi up` carry it out; a protected resource refuses deletion).
* **Karpenter pools** drift rather than roll: `railyard.change.karpenter_drift`.

Every code a diff raises is in `CODES` (`change.different-stacks` comes from
`railyard.change.diff`, which compares the stacks).
"""

from __future__ import annotations

import functools
import math
from dataclasses import field
from typing import TYPE_CHECKING, Any

from blueprints.findings import Finding, error, info, warning
from blueprints.records import record
from railyard.change.capacity import instance_spec, wave_figures
from railyard.change.compare import CREATE, DELETE, MAY_REPLACE, UNCLASSIFIED, ResourceChange
from railyard.change.karpenter_drift import drift
from railyard.change.subnets import moved_subnets
from railyard.change.terraform_source import CONDITIONAL, REPLACE
from topology.cluster.labels import POOL_LABEL
from topology.cluster.update_time import MAX_UNAVAILABLE_CAP, update_time

if TYPE_CHECKING:
    from railyard.pipeline import Validation

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
FILE_SYSTEM = "aws:fsx/lustreFileSystem:LustreFileSystem"
STATEFUL = {
    FILE_SYSTEM: "its file system and every file on it",
    "aws:s3/bucket:Bucket": "the bucket and its objects (a non-empty bucket also refuses deletion)",
    "aws:kms/key:Key": "the key (scheduled for deletion); data encrypted under it can't be read once it is gone",
    "aws:eks/cluster:Cluster": "the control plane: every node group, add-on and workload is rebuilt",
}
CODES = ("change.state-lost", "change.state-lost-accepted", "change.may-replace-state", "change.unclassified", "change.different-stacks")
# What `railyard explain` says for the accepted loss, whose hint only names the setting that accepted it.
EXPLAIN = {
    "change.state-lost-accepted": {
        "fix": "nothing, if losing the data is intended; otherwise keep the old value and drop the acceptance "
        "(accept_replacement on the storage tier, or cloud.protect_stateful: false)",
    },
}


@functools.cache
def rolling_inputs() -> frozenset[str]:
    """The node-group inputs that roll its nodes: UpdateNodegroupVersion's members, as pulumi-aws names them."""
    import botocore.session

    shape = botocore.session.get_session().get_service_model("eks").operation_model("UpdateNodegroupVersion").input_shape
    assert shape is not None, "botocore's eks model has UpdateNodegroupVersion's input"
    return frozenset(shape.members) - {"clusterName", "nodegroupName", "force", "clientRequestToken"}


@record
class Impact:
    """One effect on the running cluster, in its users' terms, with the figures behind it."""

    kind: str
    subject: str
    summary: str
    figures: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict:
        """The impact's `--json` entry."""
        return {"kind": self.kind, "subject": self.subject, "summary": self.summary, "figures": self.figures}


def _accelerators_per_node(validation: Validation, pool: str | None) -> int:
    spec = instance_spec(validation, pool)
    return spec.accelerator_count if spec else 0


def _pool(resource) -> str | None:
    return (resource.inputs.get("labels") or {}).get(POOL_LABEL) if resource is not None else None


def _desired(resource) -> int:
    return int((resource.inputs.get("scalingConfig") or {}).get("desiredSize") or 0) if resource is not None else 0


def per_wave(inputs: dict) -> int:
    """Nodes EKS takes down at once in a rolling update of a group with these inputs."""
    config = inputs.get("updateConfig") or {}
    desired = int((inputs.get("scalingConfig") or {}).get("desiredSize") or 0)
    if config.get("maxUnavailable"):
        return min(MAX_UNAVAILABLE_CAP, int(config["maxUnavailable"]))
    if config.get("maxUnavailablePercentage"):
        return max(1, min(MAX_UNAVAILABLE_CAP, math.ceil(desired * int(config["maxUnavailablePercentage"]) / 100)))
    return 1


def _why_rolled(item) -> str:
    """Why an input rolls the group: its own change, or a new version of the launch template it reads."""
    if not item.via:
        return f"{item.path} changed"
    source = item.via.rsplit("::", 1)[-1]
    return f"a new version of launch template {source}" if item.path.startswith("launchTemplate") else f"{item.path} follows {source}"


def _node_group(change: ResourceChange, old: Validation, new: Validation) -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, subject, figures) for one node group's change; `_merged` sums a pool's groups and words them."""
    pool = _pool(change.new) or _pool(change.old)
    subject = f"pool {pool}" if pool else change.name
    per_node = _accelerators_per_node(new if change.new is not None else old, pool)
    if change.action in (CREATE, DELETE):
        nodes = _desired(change.new or change.old) * (1 if change.action == CREATE else -1)
        kind = "capacity-added" if change.action == CREATE else "capacity-removed"
        return [(kind, subject, {"nodes": nodes, "accelerators": nodes * per_node, "node_groups": 1})]
    assert change.new is not None  # an update or a replacement has both sides
    nodes = _desired(change.new)
    if change.action == REPLACE:
        because = sorted({item.path for item in change.inputs if item.effect.kind == REPLACE})
        return [("node-group-replaced", subject, {"nodes": nodes, "accelerators": nodes * per_node, "node_groups": 1, "because": because})]
    found: list[tuple[str, str, dict[str, Any]]] = []
    delta = nodes - _desired(change.old)
    if delta:
        found.append(("resized", subject, {"nodes": delta, "accelerators": delta * per_node, "node_groups": 1}))
    rolled = sorted({_why_rolled(item) for item in change.inputs if item.path.split(".")[0] in rolling_inputs()})
    if rolled:
        wave = per_wave(change.new.inputs)
        strategy = (change.new.inputs.get("updateConfig") or {}).get("updateStrategy", "DEFAULT")
        zones = len(change.new.inputs.get("subnetIds") or [])
        figures = {
            **wave_figures(nodes, per_node, wave),
            "surge_nodes": 0 if strategy == "MINIMAL" else max(2 * zones, wave),
            "strategy": strategy,
            "because": rolled,
            **_waited(change.new),
        }
        found.append(("rolling", subject, figures))
    return found


def _waited(resource) -> dict[str, Any]:
    """How long Pulumi waits for the group's update (its customTimeouts), with the arithmetic behind the figure."""
    waits = resource.custom_timeouts.get("update")
    if not waits:
        return {}
    scaling, config = resource.inputs.get("scalingConfig") or {}, resource.inputs.get("updateConfig") or {}
    planned = update_time(int(scaling.get("maxSize") or 0), int(config.get("maxUnavailablePercentage") or 0))
    return {"update_timeout": waits, "timeout_arithmetic": planned.arithmetic()}


def _merged(items: list[tuple[str, str, dict[str, Any]]]) -> list[Impact]:
    """One impact per kind and pool: a pool's node groups (one per zone) update side by side, so counts add and waves overlap."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for kind, subject, figures in items:
        into = merged.setdefault((kind, subject), {})
        for key, value in figures.items():
            if key == "waves":
                into[key] = max(into.get(key, 0), value)
            elif key in ("update_timeout", "timeout_arithmetic"):
                into[key] = max(into.get(key, value), value, key=_minutes)
            elif key == "because":
                into[key] = sorted(set(into.get(key, [])) | set(value))
            elif key == "strategy":
                into[key] = value if into.get(key, value) == value else "mixed"
            else:
                into[key] = into.get(key, 0) + value
    return [Impact(kind, subject, _worded(kind, figures), figures) for (kind, subject), figures in merged.items()]


def _minutes(text: str) -> int:
    """The leading minutes of a timeout (`401m`) or of its arithmetic (the figure after the last `=`)."""
    return int(text.rsplit("=", 1)[-1].strip().removesuffix(" min").removesuffix("m"))


def _worded(kind: str, figures: dict[str, Any]) -> str:
    nodes, accelerators, groups = figures["nodes"], figures["accelerators"], figures["node_groups"]
    across = f" across {groups} {'NodePools' if kind == 'karpenter-drift' else 'node groups'}" if groups > 1 else ""
    if kind == "karpenter-drift":
        return (
            f"Karpenter replaces drifted nodes{across} ({'; '.join(figures['because'])}): up to {nodes} nodes ({accelerators} accelerators) "
            f"at the pool's limit, {figures['nodes_per_wave']} at a time ({figures['accelerators_per_wave']} accelerators), "
            "the NodePool's disruption budget"
        )
    if kind in ("capacity-added", "capacity-removed"):
        word = "new" if kind == "capacity-added" else "removed"
        return f"{word} capacity{across}: {nodes:+d} nodes, {accelerators:+d} accelerators"
    if kind == "resized":
        return f"resized in place{across}: {nodes:+d} nodes, {accelerators:+d} accelerators"
    if kind == "node-group-replaced":
        return (
            f"replaced{across} ({', '.join(figures['because'])}): deleted before the replacement is created, so all {nodes} nodes "
            f"({accelerators} accelerators) are out until the new group is up"
        )
    wave = figures["nodes_per_wave"]
    surge = figures["surge_nodes"]
    return (
        f"rolling update{across} ({'; '.join(figures['because'])}): {nodes} nodes ({accelerators} accelerators) in {figures['waves']} "
        f"waves of {wave} node{'s' if wave != 1 else ''} ({figures['accelerators_per_wave']} accelerators drained at a time)"
        + (f"; up to {surge} new nodes launch before the first drain" if surge else "; MINIMAL strategy: drains before it launches")
        + (
            f"; Pulumi waits up to {figures['update_timeout']} per group ({figures['timeout_arithmetic']}); "
            "a drain over 15 min fails the update (PodEvictionFailure)"
            if "update_timeout" in figures
            else ""
        )
    )


def _accepted(change: ResourceChange, new: Validation) -> str | None:
    """What in the new blueprint accepts losing this resource's state, or None."""
    blueprint = new.blueprint
    if blueprint is None:
        return None
    if not blueprint.cloud.protect_stateful:
        return "cloud.protect_stateful: false"
    if change.type == FILE_SYSTEM:
        for index, tier in enumerate(blueprint.storage):
            if getattr(tier, "kind", "") == "fsx_lustre" and change.name.endswith("-" + tier.name) and tier.accept_replacement:
                return f"storage[{index}].accept_replacement: true"
    return None


def _blueprint_path(change: ResourceChange, validation: Validation) -> tuple:
    blueprint = validation.blueprint
    if blueprint is not None and change.type == FILE_SYSTEM:
        for index, tier in enumerate(blueprint.storage):
            if change.name.endswith("-" + tier.name):
                return ("storage", index)
    if blueprint is not None and change.type == NODE_GROUP:
        pool = _pool(change.new) or _pool(change.old)
        for index, entry in enumerate(blueprint.pools):
            if entry.name == pool:
                return ("pools", index)
    return ()


def _state(change: ResourceChange, old: Validation, new: Validation) -> tuple[list[Impact], list[Finding]]:
    lost = STATEFUL[change.type]
    reasons = sorted({item.path for item in change.inputs if item.effect.kind in (REPLACE, CONDITIONAL)})
    validation = new if change.new is not None else old
    path = _blueprint_path(change, validation)
    if change.action == MAY_REPLACE:
        message = f"{change.name} may be replaced ({', '.join(reasons)}): the provider decides when it diffs, and a replacement loses {lost}"
        return [Impact("state-at-risk", change.name, message, {"because": reasons})], [
            validation.load.source_map.place(
                warning("change.may-replace-state", path, message, "run `pulumi preview --diff` to see the provider's decision before `pulumi up`")
            )
        ]
    verb = "deleted" if change.action == DELETE else f"replaced ({', '.join(reasons)})"
    message = f"{change.name} is {verb}: that loses {lost}"
    accepted = _accepted(change, new)
    impact = Impact(
        "state-lost", change.name, message + (f" (accepted by {accepted})" if accepted else ""), {"because": reasons, "accepted_by": accepted}
    )
    if accepted:
        finding = warning("change.state-lost-accepted", path, message, f"accepted by {accepted}")
    else:
        hint = (
            "keep the old value; or, to replace it on purpose, set `accept_replacement: true` on this storage tier "
            "(the file system is then left unprotected)"
            if change.type == FILE_SYSTEM
            else "keep the old value; or, to let it go on purpose, set `cloud.protect_stateful: false` for this change"
        )
        finding = error("change.state-lost", path, message, hint)
    return [impact], [validation.load.source_map.place(finding)]


def impacts(changes: list[ResourceChange], old: Validation, new: Validation, resources: list | None = None) -> tuple[list[Impact], list[Finding]]:
    """The changes' effects on the running cluster, and the findings they raise (state lost is an error unless accepted).

    `resources` is the new preview's, for the NodePools an EC2NodeClass change drifts.
    """
    groups: list[tuple[str, str, dict[str, Any]]] = list(drift(changes, resources or [], new))
    found: list[Impact] = []
    findings: list[Finding] = []
    for change in changes:
        if change.type == NODE_GROUP:
            groups.extend(_node_group(change, old, new))
        elif change.type in STATEFUL and change.action in (REPLACE, DELETE, MAY_REPLACE):
            more, raised = _state(change, old, new)
            found.extend(more)
            findings.extend(raised)
    found = _merged(groups) + found
    findings += moved_subnets(changes, old, new)
    unclassified = [change for change in changes if change.action == UNCLASSIFIED]
    if unclassified:
        names = ", ".join(sorted({change.type for change in unclassified}))
        findings.append(
            info(
                "change.unclassified",
                (),
                f"{len(unclassified)} changed resource(s) have inputs the replace table does not cover ({names}): "
                "in place or replaced, `pulumi preview --diff` decides",
                "the table lists the inputs its provider source names; see docs/diff.md for how it is made",
            )
        )
    return found, findings
