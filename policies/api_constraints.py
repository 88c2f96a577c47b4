"""The AWS and Kubernetes input rules of `data/api_constraints.json`, applied to one resource's inputs.

A mocked preview accepts any string; the real APIs do not. Each `Constraint`
is one rule the publishing API applies to one input (an enum, a length, a
numeric range, a whole-value pattern, a forbidden prefix, a count), with the
source that publishes it. `violations(type, name, props)` answers, for one
resource, every input that breaks a rule, quoting the value, the rule and its
source. Values that are unknown during a preview are skipped (nothing can be
said of them yet); the engine's numbers arrive as floats and are compared as
numbers.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pulumi_policy.proxy import UnknownValueError

TABLE = Path(__file__).resolve().parent / "data" / "api_constraints.json"
# Pulumi appends "-" and 7 random characters to a logical name it auto-names from.
AUTONAME_SUFFIX = 8
UNKNOWN_MARKERS = ("[unknown]", "04da6b54-80e4-46f7-96ec-b56ff0331ba9")


@dataclass(frozen=True)
class Constraint:
    """One published rule for one input of one resource type (or of every type under a provider prefix)."""

    type: str
    source: str
    path: str | None = None
    enum: tuple[str, ...] | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    not_patterns: tuple[str, ...] = ()
    min: float | None = None
    max: float | None = None
    max_items: int | None = None
    forbidden_prefixes: tuple[str, ...] = ()
    autoname_max_length: int | None = None

    def applies_to(self, resource_type: str) -> bool:
        """True when this rule covers resources of `resource_type`."""
        if self.type.endswith("*"):
            return resource_type.startswith(self.type[:-1])
        return resource_type == self.type

    def problems(self, value: Any) -> list[str]:
        """What is wrong with one value under this rule, as phrases (empty when it obeys)."""
        if self.max_items is not None:
            count = len(value) if isinstance(value, (Mapping, Sequence)) and not isinstance(value, str) else 1
            return [f"has {count} entries, over the limit of {self.max_items}"] if count > self.max_items else []
        if isinstance(value, bool):
            return []
        if isinstance(value, (int, float)):
            return self._number_problems(float(value))
        if isinstance(value, str):
            return self._string_problems(value)
        return []

    def _number_problems(self, number: float) -> list[str]:
        shown = int(number) if number.is_integer() else number
        if self.min is not None and number < self.min:
            return [f"{shown} is below the minimum {self.min:g}"]
        if self.max is not None and number > self.max:
            return [f"{shown} is above the maximum {self.max:g}"]
        return []

    def _string_problems(self, text: str) -> list[str]:
        found = []
        if self.enum is not None and text not in self.enum:
            found.append(f"'{text}' is not one of {', '.join(self.enum)}")
        if self.min_length is not None and len(text) < self.min_length:
            found.append(f"'{text}' is {len(text)} characters, under the minimum {self.min_length}")
        if self.max_length is not None and len(text) > self.max_length:
            found.append(f"'{text[:60]}{'...' if len(text) > 60 else ''}' is {len(text)} characters, over the limit of {self.max_length}")
        if self.pattern is not None and not re.fullmatch(self.pattern, text, re.DOTALL):
            found.append(f"'{text}' does not match {self.pattern}")
        for pattern in self.not_patterns:
            if re.fullmatch(pattern, text, re.DOTALL):
                found.append(f"'{text}' has a form the API reserves ({pattern})")
        for prefix in self.forbidden_prefixes:
            if text.lower().startswith(prefix.lower()):
                found.append(f"'{text}' starts with the reserved prefix '{prefix}'")
        return found


@functools.cache
def load_constraints() -> tuple[Constraint, ...]:
    """The generated table (`python -m policies.generate_constraints` writes it)."""
    document = json.loads(TABLE.read_text())
    found = []
    for entry in document["constraints"]:
        fields: dict[str, Any] = {key: tuple(value) if isinstance(value, list) else value for key, value in entry.items()}
        found.append(Constraint(**fields))
    return tuple(found)


def values_at(props: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every (concrete path, value) at a constraint path; `[]` walks list items, `{key}`/`{value}` a map's keys/values."""
    yield from _walk(props, path.split("."), "")


def _walk(data: Any, steps: list[str], where: str) -> Iterator[tuple[str, Any]]:
    if not steps:
        if data is not None and data not in UNKNOWN_MARKERS:
            yield where, data
        return
    step, rest = steps[0], steps[1:]
    try:
        if step == "[]":
            if isinstance(data, Sequence) and not isinstance(data, str):
                for index in range(len(data)):
                    yield from _walk(data[index], rest, f"{where}[{index}]")
        elif step in ("{key}", "{value}"):
            if isinstance(data, Mapping):
                for key in list(data):
                    target = key if step == "{key}" else data[key]
                    label = f"{where} key '{key}'" if step == "{key}" else f"{where}.{key}"
                    yield from _walk(target, rest, label)
        elif isinstance(data, Mapping) and step in data:
            yield from _walk(data[step], rest, f"{where}.{step}" if where else step)
    except UnknownValueError:
        return


def violations(resource_type: str, name: str, props: Mapping[str, Any]) -> list[str]:
    """Every input of one resource that breaks a published rule: `<input>: <problem> (<source>)`."""
    found = []
    for constraint in load_constraints():
        if not constraint.applies_to(resource_type):
            continue
        if constraint.autoname_max_length is not None:
            if _autonamed(props) and len(name) + AUTONAME_SUFFIX > constraint.autoname_max_length:
                found.append(
                    f"auto-named from '{name}' ({len(name)} characters + {AUTONAME_SUFFIX} random), over the "
                    f"API's {constraint.autoname_max_length}-character limit ({constraint.source})"
                )
            continue
        for where, value in values_at(props, constraint.path or ""):
            found += [f"{where}: {problem} ({constraint.source})" for problem in constraint.problems(value)]
    return found


def _autonamed(props: Mapping[str, Any]) -> bool:
    try:
        return props.get("name") is None and props.get("namePrefix") is None
    except UnknownValueError:
        return False
