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
from typing import TYPE_CHECKING, Any

from blueprints.findings import Finding, error, info, warning
from railyard.change.capacity import instance_spec, wave_figures
from railyard.change.compare import CREATE, DELETE, MAY_REPLACE, UNCLASSIFIED, ResourceChange
from railyard.change.impact_record import Impact
from railyard.change.karpenter_drift import drift, karpenter_worded
from railyard.change.node_group_steps import version_goes_down
from railyard.change.protected import protected_delete, unprotected_tier
from railyard.change.running_pools import acceptance_on_running
from railyard.change.subnets import moved_subnets
from railyard.change.terraform_source import CONDITIONAL, REPLACE
from topology.cluster.labels import POOL_LABEL
from topology.cluster.update_time import MAX_UNAVAILABLE_CAP, update_time

if TYPE_CHECKING:
    from railyard.pipeline import Validation

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
BLOCK_START = "aws:autoscaling/schedule:Schedule"
BLOCK_START_SUFFIX = "-block-start"
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


def block_starts(resources: list) -> dict[str, dict[str, Any]]:
    """The scheduled scale-up of each Capacity Block node group created before its block starts, by the group's resource
    name: `{starts_at, nodes}` (the `<group>-block-start` schedule railyard emits, `components.node_groups`)."""
    found = {}
    for resource in resources:
        if resource.type == BLOCK_START and resource.name.endswith(BLOCK_START_SUFFIX):
            found[resource.name.removesuffix(BLOCK_START_SUFFIX)] = {
                "starts_at": str(resource.inputs.get("startTime")),
                "nodes": int(resource.inputs.get("desiredCapacity") or 0),
            }
    return found


def _arriving(change: ResourceChange, nodes: int, per_node: int, starts: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """For a group created with no node yet because its Capacity Block hasn't started: what arrives, and when."""
    start = starts.get(change.name)
    if change.action != CREATE or nodes or start is None:
        return {}
    return {"starts_at": start["starts_at"], "nodes_at_start": start["nodes"], "accelerators_at_start": start["nodes"] * per_node}


def _node_group(
    change: ResourceChange, old: Validation, new: Validation, starts: dict[str, dict[str, Any]] | None = None
) -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, subject, figures) for one node group's change; `_merged` sums a pool's groups and words them."""
    pool = _pool(change.new) or _pool(change.old)
    subject = f"pool {pool}" if pool else change.name
    per_node = _accelerators_per_node(new if change.new is not None else old, pool)
    if change.action in (CREATE, DELETE):
        nodes = _desired(change.new or change.old) * (1 if change.action == CREATE else -1)
        kind = "capacity-added" if change.action == CREATE else "capacity-removed"
        arriving = _arriving(change, nodes, per_node, starts or {})
        return [(kind, subject, {"nodes": nodes, "accelerators": nodes * per_node, "node_groups": 1, **arriving})]
    assert change.new is not None  # an update or a replacement has both sides
    nodes = _desired(change.new)
    if change.action == REPLACE:
        because = sorted({item.path for item in change.inputs if item.effect.kind == REPLACE})
        return [("node-group-replaced", subject, {"nodes": nodes, "accelerators": nodes * per_node, "node_groups": 1, "because": because})]
    found: list[tuple[str, str, dict[str, Any]]] = []
    delta = nodes - _desired(change.old)
    if delta:
        found.append(("resized", subject, {"nodes": delta, "accelerators": delta * per_node, "node_groups": 1}))
    # A version going down is refused by EKS (`change.version-down`), so it rolls nothing.
    refused = version_goes_down(change)
    rolled = sorted(
        {_why_rolled(item) for item in change.inputs if item.path.split(".")[0] in rolling_inputs() and not (refused and item.path == "version")}
    )
    if refused:
        found.append(("version-refused", subject, {"nodes": nodes, "accelerators": nodes * per_node, "node_groups": 1}))
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
            elif key in ("strategy", "budget"):
                into[key] = value if into.get(key, value) == value else "mixed"
            elif key == "starts_at":
                into[key] = min(into.get(key, value), value)
            else:
                into[key] = into.get(key, 0) + value
    return [Impact(kind, subject, _worded(kind, figures), figures) for (kind, subject), figures in merged.items()]


def _minutes(text: str) -> int:
    """The leading minutes of a timeout (`401m`) or of its arithmetic (the figure after the last `=`)."""
    return int(text.rsplit("=", 1)[-1].strip().removesuffix(" min").removesuffix("m"))


def _capacity_worded(kind: str, figures: dict[str, Any], across: str) -> str:
    """Capacity added or removed, as it stands at `--at`: a block's nodes arriving later, or a group with no node now."""
    nodes, accelerators, groups = figures["nodes"], figures["accelerators"], figures["node_groups"]
    word = "new" if kind == "capacity-added" else "removed"
    if "starts_at" in figures:
        now = f"{nodes:+d} nodes now, " if nodes else "no node now: "
        return (
            f"{word} capacity{across}: {now}{figures['nodes_at_start']:+d} nodes ({figures['accelerators_at_start']:+d} accelerators) "
            f"when its Capacity Block starts at {figures['starts_at']} (a scheduled scale-up; the group is created at desired size 0)"
        )
    if not nodes:  # a group with no node at this moment (a block not started, or scaled down before its end)
        return f"{word} capacity{across}: no node runs in {'them' if groups > 1 else 'it'} at this moment (desired size 0)"
    return f"{word} capacity{across}: {nodes:+d} nodes, {accelerators:+d} accelerators"


def _worded(kind: str, figures: dict[str, Any]) -> str:
    nodes, accelerators, groups = figures["nodes"], figures["accelerators"], figures["node_groups"]
    across = f" across {groups} {'NodePools' if kind.startswith('karpenter') else 'node groups'}" if groups > 1 else ""
    if kind.startswith("karpenter-"):
        return karpenter_worded(kind, figures, across)
    if kind in ("capacity-added", "capacity-removed"):
        return _capacity_worded(kind, figures, across)
    if kind == "version-refused":
        return (
            f"Kubernetes version going down{across}: EKS refuses it, so `pulumi up` fails on {'these groups' if groups > 1 else 'this group'} "
            f"and nothing of {'them' if groups > 1 else 'it'} rolls ({nodes} nodes, {accelerators} accelerators stay as they are; "
            "change.version-down)"
        )
    if kind == "acceptance-on-running":
        return (
            f"acceptance gate on for running nodes{across}: EKS taints and labels all {nodes} running nodes ({accelerators} accelerators) "
            "as pending, so the checker runs on each while jobs hold its GPUs, and no new pod lands on a node until it passes"
        )
    if kind == "resized":
        return f"resized in place{across}: {nodes:+d} nodes, {accelerators:+d} accelerators"
    if kind == "node-group-replaced":
        return (
            f"replaced{across} ({', '.join(figures['because'])}): deleted before the replacement is created, so all {nodes} nodes "
            f"({accelerators} accelerators) are out until the new group is up"
        )
    wave = figures["nodes_per_wave"]
    surge = figures["surge_nodes"]
    if not nodes:
        return (
            f"rolling update{across} ({'; '.join(figures['because'])}): no node runs in {'them' if groups > 1 else 'it'} at this moment "
            "(desired size 0), so only the launch template and version move and nothing drains; nodes that join later start on the new ones"
        )
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


def _accepted(change: ResourceChange, old: Validation, new: Validation) -> str | None:
    """What accepts losing this resource's state, or None: for a delete, the deployed side having unprotected it (the
    first of the two steps `railyard.change.protected` names); else a setting of the new blueprint."""
    if change.action == DELETE:
        assert change.old is not None
        return None if change.old.protect else f"the deployed blueprint, which left it unprotected ({_unprotected_by(change, old)})"
    blueprint = new.blueprint
    if blueprint is None:
        return None
    if not blueprint.cloud.protect_stateful:
        return "cloud.protect_stateful: false"
    tier = unprotected_tier(change, new)
    if tier is not None:
        return tier
    if change.type == FILE_SYSTEM:
        for index, tier in enumerate(blueprint.storage):
            if getattr(tier, "kind", "") == "fsx_lustre" and change.name.endswith("-" + tier.name) and tier.accept_replacement:
                return f"storage[{index}].accept_replacement: true"
    return None


def _unprotected_by(change: ResourceChange, old: Validation) -> str:
    """The setting of the deployed (old) blueprint that left a resource unprotected."""
    if old.blueprint is not None and not old.blueprint.cloud.protect_stateful:
        return "cloud.protect_stateful: false"
    return unprotected_tier(change, old) or "`protect: false` on every storage tier it serves"


def _blueprint_path(change: ResourceChange, validation: Validation) -> tuple:
    """Where a stateful resource's loss is placed: a file system at its storage tier; the others (a bucket, a key, the
    cluster) at the root."""
    blueprint = validation.blueprint
    if blueprint is not None and change.type == FILE_SYSTEM:
        for index, tier in enumerate(blueprint.storage):
            if change.name.endswith("-" + tier.name):
                return ("storage", index)
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
    accepted = _accepted(change, old, new)
    if change.action == DELETE and not accepted:
        two_steps = f"{message}; refused while the deployed stack protects it: unprotect it in one `pulumi up`, then delete it in another"
        return [Impact("state-lost", change.name, two_steps, {"because": reasons, "accepted_by": None, "steps": 2})], [
            protected_delete(change, old, lost)
        ]
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
            else "keep the old value; or, to let it go on purpose, set `protect: false` on its storage tier (that tier alone) or "
            "`cloud.protect_stateful: false` for this change"
        )
        finding = error("change.state-lost", path, message, hint)
    return [impact], [validation.load.source_map.place(finding)]


def impacts(changes: list[ResourceChange], old: Validation, new: Validation, resources: list | None = None) -> tuple[list[Impact], list[Finding]]:
    """The changes' effects on the running cluster, and the findings they raise (state lost is an error unless accepted).

    `resources` is the new preview's, for the NodePools an EC2NodeClass change drifts.
    """
    groups: list[tuple[str, str, dict[str, Any]]] = list(drift(changes, resources or [], new))
    starts = block_starts(resources or [])
    found: list[Impact] = []
    findings: list[Finding] = []
    for change in changes:
        if change.type == NODE_GROUP:
            groups.extend(_node_group(change, old, new, starts))
        elif change.type in STATEFUL and change.action in (REPLACE, DELETE, MAY_REPLACE):
            more, raised = _state(change, old, new)
            found.extend(more)
            findings.extend(raised)
    gated, raised = acceptance_on_running(changes, new)
    groups += gated
    findings += raised
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
