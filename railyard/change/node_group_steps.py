"""Node-group changes EKS refuses in one step: a version going down, a group born at a held version, a switch to or from a custom AMI.

* **A version going down.** UpdateNodegroupVersion: "You cannot roll back a
  node group to an earlier Kubernetes version or AMI version" (botocore's eks
  model, the operation's documentation, read at run time by
  `railyard.change.impact.rolling_inputs`'s model). The provider sends the
  lower `version` as an in-place update, and EKS refuses it. It happens when a
  hold (`pools[].kubernetes_version`) is added after the pool's groups rolled
  onto the cluster's version. Error `change.version-down`.

* **A held group created.** A pool may hold its nodes behind the control
  plane (`pools[].kubernetes_version`), but only a group that exists can stay
  behind: CreateNodegroup's `version` says "By default, the Kubernetes version
  of the cluster is used, and this is the only accepted specified value" (EKS
  API reference, `CreateNodegroupRequest.version`, botocore's eks model). So a
  node group the diff creates or replaces at a version other than the
  cluster's is refused at apply: a pool added already held, a held group
  replaced (deleted first, so every node of it is out and the new one never
  comes), a held pool grown into a new split part or failure domain. Error
  `change.held-group-created`.
* **EKS AMI to custom AMI.** EKS: "You must create a new node group to switch
  between specifying an AMI ID in a launch template and not specifying an AMI
  ID" (EKS user guide, `launch-templates.adoc` @ 4d52b4d0). The provider plans
  no replacement for it: `amiType` and `version` are optional and computed,
  and dropping such an input from the config makes no diff
  (`railyard.change.compare`), so only the launch template's version moves and
  EKS refuses the update. The way that works is two steps: a new pool (a new
  group name) on the custom AMI beside the old one, then the old one retired.
  Error `change.ami-switch`. The other way (custom to EKS AMI) does replace the
  group (`amiType` gains a value), deleting it first: a warning with the same
  two steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from blueprints.findings import Finding, error, warning
from railyard.change.compare import CREATE, ResourceChange
from railyard.change.terraform_source import REPLACE
from railyard.change.upgrade import NODE_GROUP, cluster_version
from topology.cluster.labels import POOL_LABEL

if TYPE_CHECKING:
    from railyard.mocked import PreviewResource
    from railyard.pipeline import Validation

CODES = ("change.held-group-created", "change.ami-switch", "change.version-down")
TWO_STEPS = (
    "add a pool of its own beside this one (a new name, so a new node group) with the new setting, move the jobs to it, "
    "then retire this pool in a second change (docs/day2.md)"
)


def _pool_index(validation: Validation, resource: PreviewResource) -> tuple[str, int | None]:
    pool = (resource.inputs.get("labels") or {}).get(POOL_LABEL, "")
    blueprint = validation.blueprint
    pools = blueprint.pools if blueprint is not None else []
    return pool, next((index for index, entry in enumerate(pools) if entry.name == pool), None)


def _path(index: int | None, field: str) -> tuple:
    return ("pools", index, field) if index is not None else ()


def held_groups_created(changes: Sequence[ResourceChange], new: Validation, resources: Sequence[PreviewResource]) -> list[Finding]:
    """An error for each node group the change creates or replaces at a version other than the cluster's."""
    cluster = cluster_version(resources)
    findings = []
    for change in changes:
        resource = change.new
        if change.type != NODE_GROUP or resource is None or change.action not in (CREATE, REPLACE):
            continue
        version = resource.inputs.get("version")
        if cluster is None or version is None or str(version) == cluster:
            continue
        pool, index = _pool_index(new, resource)
        verb = "creates" if change.action == CREATE else "replaces (deletes, then creates)"
        message = (
            f"node group {resource.inputs.get('nodeGroupName') or change.name} (pool '{pool}') is held at Kubernetes {version}, and this "
            f"change {verb} it: EKS creates a node group only at the cluster's version ({cluster}; CreateNodegroup `version`: "
            '"this is the only accepted specified value"), so `pulumi up` is refused'
        )
        hint = (
            "a hold applies only to node groups that exist: drop this pool's kubernetes_version for the change (its new groups join at "
            f"{cluster}), or make the change once the pool has been brought to {cluster}"
        )
        findings.append(new.load.source_map.place(error("change.held-group-created", _path(index, "kubernetes_version"), message, hint)))
    return findings


def ami_switches(changes: Sequence[ResourceChange], new: Validation) -> list[Finding]:
    """A finding for each node group moved between an EKS AMI (`amiType`) and a custom AMI (none): refused, or replaced."""
    findings = []
    for change in changes:
        if change.type != NODE_GROUP or change.old is None or change.new is None:
            continue
        before, after = change.old.inputs.get("amiType"), change.new.inputs.get("amiType")
        if (before is None) == (after is None):
            continue
        pool, index = _pool_index(new, change.new)
        name = change.new.inputs.get("nodeGroupName") or change.name
        if after is None:
            message = (
                f"pool '{pool}' moves node group {name} from the EKS AMI ({before}) to a custom AMI: the provider updates the group in place "
                "(amiType and version are optional and computed, so dropping them is no change) and EKS refuses it: "
                '"You must create a new node group to switch between specifying an AMI ID in a launch template and not specifying an AMI ID"'
            )
            findings.append(new.load.source_map.place(error("change.ami-switch", _path(index, "ami_id"), message, TWO_STEPS)))
        else:
            message = (
                f"pool '{pool}' moves node group {name} from a custom AMI to the EKS AMI ({after}): the group is replaced, deleted before "
                "its replacement is created, so every node of it is out until the new group is up"
            )
            findings.append(new.load.source_map.place(warning("change.ami-switch", _path(index, "ami_id"), message, TWO_STEPS)))
    return findings


def _minor(version: object) -> int | None:
    """The minor number of a `1.NN` Kubernetes version, or None for anything else."""
    parts = str(version).split(".")
    return int(parts[1]) if len(parts) == 2 and parts[1].isdigit() else None


def version_goes_down(change: ResourceChange) -> bool:
    """True for a node group updated in place whose own `version` input moves to a lower minor version."""
    if change.type != NODE_GROUP or change.old is None or change.new is None:
        return False
    before, after = _minor(change.old.inputs.get("version")), _minor(change.new.inputs.get("version"))
    return before is not None and after is not None and after < before


def versions_down(changes: Sequence[ResourceChange], new: Validation) -> list[Finding]:
    """An error for each node group whose Kubernetes version goes down: EKS never rolls a node group back."""
    findings = []
    for change in changes:
        if not version_goes_down(change):
            continue
        assert change.old is not None and change.new is not None
        before, after = change.old.inputs.get("version"), change.new.inputs.get("version")
        pool, index = _pool_index(new, change.new)
        name = change.new.inputs.get("nodeGroupName") or change.name
        held = index is not None and new.blueprint is not None and new.blueprint.pools[index].kubernetes_version is not None
        message = (
            f"node group {name} (pool '{pool}') goes from Kubernetes {before} down to {after}: EKS refuses it "
            '("You cannot roll back a node group to an earlier Kubernetes version or AMI version", UpdateNodegroupVersion)'
        )
        hint = (
            f"a hold only keeps a group that still runs that version: drop pools[{index}].kubernetes_version (the group stays at {before}); "
            f"to run {after} again, add a pool of its own beside this one at the cluster's version"
            if held
            else f"keep Kubernetes {before} for this group; a node group never goes back to an earlier version"
        )
        field = "kubernetes_version" if held else ""
        path = _path(index, field) if field else (("pools", index) if index is not None else ())
        findings.append(new.load.source_map.place(error("change.version-down", path, message, hint, node_group=change.name)))
    return findings
