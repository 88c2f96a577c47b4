"""Mocked previews for the policy tests, shared per session, and ways to mutate their resources.

`railyard.mocked.run_preview` records each registration as the engine sees it:
URN, type, name, parent, inputs, and the id and dependencies stack policies
follow between resources. The helpers here mutate copies of those records so a
rule can be shown to fire on otherwise-real compiled resources.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tests.preview.conftest import previewed

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "blueprints" / "examples"


@dataclass(frozen=True)
class Preview:
    """What `run_policies` reads: the resources (and the result they came from)."""

    resources: list
    result: Any = None

    def of_type(self, type_token: str) -> list:
        """Resources of one type, in URN order."""
        return [resource for resource in self.resources if resource.type == type_token]

    def one(self, type_token: str, predicate: Callable[[Any], bool] = lambda resource: True):
        """The first resource of a type that satisfies `predicate`."""
        return next(resource for resource in self.of_type(type_token) if predicate(resource))


@functools.cache
def preview(path: str | None = None, stack: str | None = None) -> Preview:
    """The mocked preview of a blueprint (or stack); the same run the preview tests read (`previewed`)."""
    result = previewed(path, stack)
    assert result.ok, [finding.message for finding in result.findings if finding.severity == "error"]
    return Preview(list(result.resources), result)


def example(name: str) -> Preview:
    """The preview of `blueprints/examples/<name>.yaml`."""
    return preview(str(EXAMPLES / f"{name}.yaml"))


def mutated(base: Preview, target: Any, change: Callable[[dict], Any]) -> Preview:
    """`base` with `change` applied to a deep copy of `target`'s inputs (the original stays untouched)."""
    inputs = copy.deepcopy(target.inputs)
    change(inputs)
    swapped = [replace(resource, inputs=inputs) if resource.urn == target.urn else resource for resource in base.resources]
    return Preview(swapped, base.result)


def without(base: Preview, predicate: Callable[[Any], bool]) -> Preview:
    """`base` minus the resources matching `predicate`."""
    return Preview([resource for resource in base.resources if not predicate(resource)], base.result)


def edit(base: Preview, type_token: str, name_part: str, change: Callable[[dict], Any]) -> Preview:
    """`base` with `change` applied to the first resource of `type_token` whose name contains `name_part`."""
    return mutated(base, base.one(type_token, lambda resource: name_part in resource.name), change)


def edit_all(base: Preview, type_token: str, change: Callable[[dict], Any]) -> Preview:
    """`base` with `change` applied to every resource of `type_token`."""
    for target in base.of_type(type_token):
        base = mutated(base, target, change)
    return base


def setter(path: str, new) -> Callable[[dict], None]:
    """A change that sets `a.b.c` (creating dicts on the way) to `new`."""
    *parents, last = path.split(".")

    def change(inputs: dict) -> None:
        for step in parents:
            inputs = inputs.setdefault(step, {})
        inputs[last] = new

    return change


def deleter(path: str) -> Callable[[dict], None]:
    """A change that removes `a.b.c`."""
    *parents, last = path.split(".")

    def change(inputs: dict) -> None:
        for step in parents:
            inputs = inputs[step]
        del inputs[last]

    return change
