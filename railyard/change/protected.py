"""Deleting what Pulumi protects: refused in one step, so the diff says the two steps it takes.

Pulumi refuses to delete a resource its state marks protected: "unable to delete resource ...
as it is currently marked for protection" (pulumi/pulumi `pkg/resource/deploy/step.go`,
`DeleteStep.Apply`, at ef316af5, which checks the *old* state's `Protect`). A resource removed
from the program can't be unprotected by that same program, so turning `cloud.protect_stateful`
off in the change that removes a storage tier doesn't help: the `up` still fails on the
delete. A replacement differs: the engine allows "unprotecting and replacing to happen in a
single update cycle" (`step_generator.go`, which checks `new.Protect && old.Protect`), which is
why `accept_replacement` works in one change.

So a delete of a resource the old side compiles protected is an error
(`change.protected-delete`) whose hint gives the two steps: first keep the tier and set
`protect: false` on it alone (or `cloud.protect_stateful: false`, which unprotects every
stateful resource) and `pulumi up`, which changes only the stack's state; then remove it. Once
the deployed side has it unprotected, the delete is a loss the blueprint accepted
(`change.state-lost-accepted`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from blueprints.findings import Finding, error
from railyard.change.compare import ResourceChange, match_key

if TYPE_CHECKING:
    from railyard.mocked import PreviewResource
    from railyard.pipeline import Validation

CODES = ("change.protected-delete",)
STATEFUL_TYPES = ("aws:fsx/lustreFileSystem:LustreFileSystem", "aws:s3/bucket:Bucket", "aws:kms/key:Key", "aws:eks/cluster:Cluster")
# The tier kinds whose resources a tier's own `protect` covers (the file system or the bucket).
TIER_TYPES = {"aws:fsx/lustreFileSystem:LustreFileSystem": "fsx_lustre", "aws:s3/bucket:Bucket": "s3"}


def _tier(change: ResourceChange, validation: Validation) -> tuple[int, str] | None:
    """(index, name) of the storage tier in `validation`'s blueprint that made this resource, or None."""
    blueprint = validation.blueprint
    kind = TIER_TYPES.get(change.type)
    if blueprint is None or kind is None:
        return None
    return next(
        ((index, tier.name) for index, tier in enumerate(blueprint.storage) if tier.kind == kind and change.name.endswith("-" + tier.name)),
        None,
    )


def protected_delete(change: ResourceChange, old: Validation, lost: str) -> Finding:
    """The error for deleting a resource the deployed stack protects, with the two steps that delete it."""
    tier = _tier(change, old)
    message = (
        f"{change.name} is deleted, which loses {lost}, and the deployed stack has it protected: Pulumi refuses to delete a "
        "protected resource in the run that removes it from the program, whatever the new blueprint says"
    )
    if tier is not None:
        index, name = tier
        hint = (
            f"two changes: first keep storage tier '{name}' and set `protect: false` on it (storage[{index}], this tier alone) and run "
            "`pulumi up`, which only unprotects it in the stack's state; then remove the tier and run `pulumi up` again (docs/day2.md)"
        )
        path: tuple = ("storage", index)
    else:
        hint = (
            "two changes: first keep it and set `cloud.protect_stateful: false` and run `pulumi up`, which only unprotects it in the "
            "stack's state; then remove it and run `pulumi up` again (docs/day2.md)"
        )
        path = ()
    return old.load.source_map.place(error("change.protected-delete", path, message, hint))


def unprotected_tier(change: ResourceChange, validation: Validation) -> str | None:
    """`storage[i].protect: false` when the resource's own tier is compiled unprotected there, else None."""
    tier = _tier(change, validation)
    blueprint = validation.blueprint
    if tier is None or blueprint is None:
        return None
    return f"storage[{tier[0]}].protect: false" if not getattr(blueprint.storage[tier[0]], "protect", True) else None


def protection_lifted(before: Sequence[PreviewResource], after: Sequence[PreviewResource]) -> list[tuple[str, str, dict[str, Any]]]:
    """(subject, summary, figures) per stateful resource the old side protects and the new side doesn't: the first of the
    two steps of deleting it, which changes only the stack's state (no input changes, so no resource change shows it)."""
    protected = {match_key(resource.urn): resource for resource in before if resource.protect and resource.type in STATEFUL_TYPES}
    found = []
    for resource in after:
        was = protected.get(match_key(resource.urn))
        if was is not None and not resource.protect:
            summary = (
                f"{resource.name} is no longer protected: this `pulumi up` changes only the stack's state, and a later change may "
                "delete or replace it (the first of the two steps of removing it)"
            )
            found.append((resource.name, summary, {"type": resource.type}))
    return found
