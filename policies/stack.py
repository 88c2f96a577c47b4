"""A read-only view of a stack's resources for cross-resource (stack-level) rules.

Stack policies get `PolicyResource`s whose props are the engine's view of
each resource (camelCase, numbers as floats, unknowns behind a proxy that
raises `UnknownValueError` when read). `Stack` indexes them by type and
follows references between them:

* by id: a reference's string value equal to another resource's known `id`
  (what the props hold once ids are known, and in the offline preview)
  pins the exact target, even inside one element of a list;
* by dependency, where the reference is unknown: the engine fills
  `property_dependencies` from the program's Output graph, so they still
  link resources while ids are unknown during a first preview, though only
  per top-level property.

`value` and `known` read nested props; `known` swallows unknowns and is for
indexing only - a rule's verdict must read through `value`, so an unknown
there surfaces as "can't run during preview", never as a quiet pass.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from pulumi_policy import PolicyResource
from pulumi_policy.proxy import UnknownValueError

_MISSING = object()


def value(props: Mapping[str, Any], path: str, default: Any = None) -> Any:
    """The value at a dotted path (`vpcConfig.endpointPublicAccess`), or `default` when absent.

    Reading an unknown value raises `UnknownValueError`, as the engine intends.
    """
    current: Any = props
    for step in path.split("."):
        if not isinstance(current, Mapping) or step not in current:
            return default
        current = current[step]
    return current


def known(props: Mapping[str, Any], path: str, default: Any = None) -> Any:
    """Like `value`, but an unknown value reads as `default` (for indexing, not verdicts)."""
    try:
        return value(props, path, default)
    except UnknownValueError:
        return default


def items(sequence: Any) -> list[Any]:
    """The elements of a list-valued prop: none for None, one for a lone string.

    pulumi-aws 7 flattens some one-item lists to their item (an FSx file
    system's `subnetIds` is a single id on the wire), so a string is one item.
    """
    if sequence is None:
        return []
    if isinstance(sequence, str):
        return [sequence]
    return [sequence[index] for index in range(len(sequence))]


def strings_in(data: Any, unknowns: list[str] | None = None) -> Iterator[str]:
    """Every known string inside a prop value, depth first (for id references).

    An unknown value is skipped; when `unknowns` is given, its message is appended there.
    """
    if isinstance(data, str):
        yield data
        return
    keys = list(data) if isinstance(data, Mapping) else range(len(data)) if isinstance(data, Sequence) else ()
    for key in keys:
        try:
            item = data[key]
        except UnknownValueError as unknown:
            if unknowns is not None:
                unknowns.append(unknown.message)
            continue
        yield from strings_in(item, unknowns)


def number(data: Any) -> float | None:
    """A numeric prop as a float (the engine sends floats), None when absent."""
    return None if data is None else float(data)


class Stack:
    """The resources of one stack, indexed by type and by known id."""

    def __init__(self, resources: Iterable[PolicyResource]):
        self.resources = list(resources)
        self._by_type: dict[str, list[PolicyResource]] = defaultdict(list)
        self._by_id: dict[str, PolicyResource] = {}
        for resource in self.resources:
            self._by_type[resource.resource_type].append(resource)
            resource_id = known(resource.props, "id")
            if isinstance(resource_id, str) and resource_id:
                self._by_id[resource_id] = resource

    def of_type(self, *types: str) -> list[PolicyResource]:
        """Resources of any of `types`, in stack order."""
        if len(types) == 1:
            return list(self._by_type.get(types[0], ()))
        return [resource for resource in self.resources if resource.resource_type in types]

    def by_id(self, resource_id: Any) -> PolicyResource | None:
        """The resource with this known id, if any."""
        return self._by_id.get(resource_id) if isinstance(resource_id, str) else None

    def linked(
        self, resource: PolicyResource, prop: str, *types: str, within: Mapping[str, Any] | None = None, key: str | None = None
    ) -> list[PolicyResource]:
        """Resources of `types` that `resource`'s top-level property `prop` refers to.

        The reference read is `prop` of the resource's props, or `key` of
        `within` when it sits deeper (one element of a list under `prop`).
        Linked are the resources whose known ids appear as strings in it; when
        part of it is unknown, also the property dependencies of `prop` of
        those types. A known id of no resource here (an external resource)
        links nothing. Order follows the references; duplicates are dropped.
        """
        container, key = (resource.props, prop) if within is None else (within, key or prop)
        unknowns: list[str] = []
        try:
            data = container.get(key)
        except UnknownValueError as unknown:
            unknowns.append(unknown.message)
            data = None
        found: list[PolicyResource] = []
        for identifier in strings_in(data, unknowns) if data is not None else ():
            target = self.by_id(identifier)
            if target is not None and target.resource_type in types and target not in found:
                found.append(target)
        if unknowns:
            for target in (resource.property_dependencies or {}).get(prop, ()):
                if target.resource_type in types and target not in found:
                    found.append(target)
        return found
