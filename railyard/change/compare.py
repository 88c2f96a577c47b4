"""Two previews compared resource by resource, each changed input classified by the replace table.

Resources are matched by URN, as the Pulumi engine matches them. A changed
input takes the effect the table gives it (`replace`, `conditional`, `update`,
or `unknown` when the table doesn't list it); a resource is replaced when any
of its changes replaces it. Changes also travel along dependencies, as they do
in a real deployment:

* a replaced resource gets a new id, so every input that reads it changes
  (a node group whose subnet is replaced is replaced too);
* an in-place update recomputes the outputs the table lists for it (a launch
  template's `latestVersion`), so every input that reads the resource changes.

An input the table marks optional and computed that goes from a value to
none is no change: the provider keeps the value AWS has (the SDK's
`diffString`: "if removed && schema.Computed { return nil }"), so a node
group that drops `amiType` and `version` for a custom AMI is updated in place,
not replaced (`railyard.change.node_group_steps` says what EKS makes of that).

The mocked ids are the same on both sides (they depend on type and name only),
which is why this propagation is explicit rather than seen in the inputs.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from blueprints.records import record
from railyard.change.replace_table import UNKNOWN, Effect, ReplaceTable
from railyard.change.terraform_source import CONDITIONAL, REPLACE, UPDATE

if TYPE_CHECKING:
    from railyard.mocked import PreviewResource

LAYER_STACK_SUFFIX = "-kubernetes"  # railyard.mocked's, kept here so comparing needs no Pulumi SDK
CREATE = "create"
DELETE = "delete"
MAY_REPLACE = "may-replace"
RECOMPUTED = "recomputed"
UNCLASSIFIED = "unclassified"
ACTION_ORDER = (REPLACE, MAY_REPLACE, UNCLASSIFIED, UPDATE)


@record
class InputChange:
    """One changed input: its wire path (list indexes dropped), old and new values, its effect, and where it came from."""

    path: str
    old: Any
    new: Any
    effect: Effect
    via: str = ""  # empty for a change in the resource's own inputs; else the URN of the dependency it flows from
    cause: str = ""  # for a flowed change: REPLACE (the dependency's id changes) or RECOMPUTED (its outputs do)
    # Values under the same wire path that changed too (list items share a path once indexes are dropped): a
    # ClusterQueue's nominalQuota per flavor and resource is one path; `old` and `new` are the first pair.
    more: int = 0

    def as_json(self) -> dict:
        """The change's `--json` entry (a flowed change has `via` and `cause` instead of values; `more` when some)."""
        document: dict[str, Any] = {"path": self.path, "effect": self.effect.kind, "rule": self.effect.entry}
        if self.via:
            document.update(via=self.via, cause=self.cause)
        else:
            document.update(old=self.old, new=self.new)
        if self.more:
            document["more"] = self.more
        return document


@record(frozen=False)
class ResourceChange:
    """What happens to one resource: created, deleted, replaced, maybe replaced, updated in place, or unclassified."""

    urn: str
    type: str
    name: str
    action: str
    old: PreviewResource | None
    new: PreviewResource | None
    inputs: list[InputChange] = field(default_factory=list)

    def as_json(self) -> dict:
        """The resource's `--json` entry."""
        return {"urn": self.urn, "type": self.type, "name": self.name, "action": self.action, "inputs": [change.as_json() for change in self.inputs]}


def _leaves(old: Any, new: Any, prefix: str, out: dict[str, tuple[Any, Any, int]]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            _leaves(old.get(key), new.get(key), f"{prefix}.{key}" if prefix else key, out)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new) and all(isinstance(item, dict) for item in old + new):
        for before, after in zip(old, new, strict=True):
            _leaves(before, after, prefix, out)
    elif old != new:
        first = out.get(prefix)
        out[prefix] = (old, new, 0) if first is None else (first[0], first[1], first[2] + 1)


def changed_inputs(old: dict, new: dict) -> dict[str, tuple[Any, Any, int]]:
    """The inputs that differ, by wire path with list indexes dropped: the first old and new values at each path,
    and how many more values under that path changed too."""
    out: dict[str, tuple[Any, Any, int]] = {}
    _leaves(old, new, "", out)
    return out


def _action(changes: list[InputChange]) -> str:
    kinds = {change.effect.kind for change in changes}
    if REPLACE in kinds:
        return REPLACE
    if CONDITIONAL in kinds:
        return MAY_REPLACE
    if UNKNOWN in kinds:
        return UNCLASSIFIED
    return UPDATE


def _effect(table: ReplaceTable, type_token: str, path: str) -> Effect:
    rules = table.rules(type_token)
    if rules is None:
        return Effect(UNKNOWN, f"{type_token} is not in the replace table ({table.described})")
    return rules.effect(path)


def _paths_holding(value: Any, wanted: str, prefix: str, loose: bool = False) -> list[str]:
    """The paths inside an input whose value is `wanted` (where a dependency's id sits); `loose` compares as text (1 and "1")."""
    if isinstance(value, dict):
        return [path for key in sorted(value) for path in _paths_holding(value[key], wanted, f"{prefix}.{key}", loose)]
    if isinstance(value, list):
        return sorted({path for item in value for path in _paths_holding(item, wanted, prefix, loose)})
    return [prefix] if value == wanted or (loose and value is not None and str(value) == wanted) else []


def _recomputed_paths(value: Any, upstream: PreviewResource, table: ReplaceTable, prop: str) -> list[str]:
    """The paths inside an input that hold one of the upstream's recomputed outputs, as the mocks answered them."""
    rules = table.rules(upstream.type)
    outputs = {str(upstream.outputs[name]) for name in (rules.recomputed if rules else ()) if upstream.outputs.get(name) is not None}
    return sorted({path for wanted in outputs for path in _paths_holding(value, wanted, prop, loose=True)})


def match_key(urn: str) -> str:
    """A URN without its stack's name, so two stacks' previews (dev and prod) match resource by resource.

    A Kubernetes layer's own stack (`<stack>-kubernetes`) stays apart from the cluster's.
    """
    head, _, rest = urn.partition("::")
    stack = head.rsplit(":", 1)[-1]
    return ("layer::" if stack.endswith(LAYER_STACK_SUFFIX) else "cluster::") + rest


def _tracked(resource: PreviewResource) -> bool:
    """Resources a provider manages: not railyard's components, not providers or the stack."""
    return not resource.is_component and not resource.type.startswith("pulumi:")


def compare(old: list[PreviewResource], new: list[PreviewResource], table: ReplaceTable) -> list[ResourceChange]:
    """Every resource that is created, deleted or changed between two previews, in URN order."""
    before = {match_key(resource.urn): resource for resource in old if _tracked(resource)}
    after = {match_key(resource.urn): resource for resource in new if _tracked(resource)}
    changes: dict[str, ResourceChange] = {}
    for urn in sorted(set(before) | set(after)):
        was, now = before.get(urn), after.get(urn)
        if was is None or now is None:
            present = now or was
            assert present is not None
            changes[urn] = ResourceChange(present.urn, present.type, present.name, CREATE if was is None else DELETE, was, now)
            continue
        rules = table.rules(now.type)
        changed = changed_inputs(was.inputs, now.inputs).items()
        # An optional-and-computed input dropped from the config makes no diff: the provider keeps what it has.
        inputs = [
            InputChange(path, a, b, _effect(table, now.type, path), more=more)
            for path, (a, b, more) in changed
            if not (b is None and a is not None and rules is not None and rules.dropped_is_no_change(path))
        ]
        if inputs:
            changes[urn] = ResourceChange(now.urn, now.type, now.name, _action(inputs), was, now, inputs)
    _propagate(changes, before, after, table)
    return [changes[urn] for urn in sorted(changes)]


def _propagate(changes: dict[str, ResourceChange], before: dict, after: dict, table: ReplaceTable) -> None:
    """Carry replacements and recomputed outputs to the resources that read them, until nothing more changes."""
    moved = True
    while moved:
        moved = False
        for urn, resource in after.items():
            if urn not in before or (urn in changes and changes[urn].action == REPLACE):
                continue
            for prop, sources in sorted(resource.property_dependencies.items()):
                for source in map(match_key, sources):
                    if _flows(changes.get(source), table) and _add_flow(changes, urn, before[urn], resource, prop, source, after, table):
                        moved = True


def _flows(change: ResourceChange | None, table: ReplaceTable) -> bool:
    """True when a change gives the resource new outputs: a replacement (new id), or an update that recomputes outputs."""
    if change is None or change.new is None:
        return False
    if change.action == REPLACE:
        return True
    rules = table.rules(change.type)
    return change.action in (UPDATE, MAY_REPLACE, UNCLASSIFIED) and rules is not None and bool(rules.recomputed)


def _add_flow(changes: dict, urn: str, was: PreviewResource, now: PreviewResource, prop: str, source: str, after: dict, table: ReplaceTable) -> bool:
    """Add to `urn` the change its input `prop` takes from `source`; False when it is already there.

    A dependency first seen updating may later turn out replaced (by its own
    dependencies): its id then changes too, and that flow replaces the one
    recorded for its recomputed outputs.
    """
    change = changes.get(urn)
    upstream = changes[source]
    cause = REPLACE if upstream.action == REPLACE else RECOMPUTED
    if change is not None:
        earlier = [item for item in change.inputs if item.via == upstream.urn and item.path.split(".")[0] == prop]
        if earlier and (earlier[0].cause == REPLACE or cause == RECOMPUTED):
            return False
        change.inputs = [item for item in change.inputs if item not in earlier]
    # A replaced dependency changes the inputs that hold its id (else the whole input that reads it);
    # recomputed outputs change only the inputs that hold one of them (a node group's launchTemplate.version).
    if cause == REPLACE:
        paths = _paths_holding(now.inputs.get(prop), after[source].id, prop) or [prop]
    else:
        paths = _recomputed_paths(now.inputs.get(prop), after[source], table, prop)
        if not paths:
            return False
    flowed = [InputChange(path, None, None, _effect(table, now.type, path), upstream.urn, cause) for path in paths]
    if change is None:
        change = changes[urn] = ResourceChange(now.urn, now.type, now.name, UPDATE, was, now)
    change.inputs.extend(flowed)
    change.action = _action(change.inputs)
    return True
