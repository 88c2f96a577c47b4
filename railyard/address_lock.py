"""`railyard lock`'s two halves: the pins a plan resolves, and writing them into a YAML file without disturbing it.

A pin is a subnet key, its range and the zone it was deployed in
(`cloud.subnet_cidrs`; a pin written before pins knew their zone is a range
alone, and is still read). Writing edits the
text, not a re-dumped document, so the file's comments, order and quoting
stay as they are: the mapping at a path of block-style keys (`cloud`, or
`config` / `railyard:overrides` / `cloud` in a stack file) gets a
`subnet_cidrs` block, added or replaced. The result is parsed again and must
read exactly as the old file plus the new pins; anything else (a section
written in flow style, `cloud: {kind: aws, ...}`) is refused with a
`LockWriteError` and the caller prints the block to paste instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from copy import deepcopy
from typing import Any

import yaml

from topology.cluster.subnets import SubnetPlan

PINS_KEY = "subnet_cidrs"


class LockWriteError(ValueError):
    """The file can't be edited in place safely; the message says why."""


def pins_of(subnets: Sequence[SubnetPlan]) -> dict[str, str]:
    """The ranges of the subnets railyard creates, by key, in key order (an existing VPC's subnets are not railyard's to pin)."""
    return {plan.key: plan.cidr for plan in sorted(subnets, key=lambda plan: plan.key) if plan.existing_id is None}


def zoned_pins(subnets: Sequence[SubnetPlan]) -> dict[str, dict[str, str]]:
    """What `railyard lock` writes: each subnet's range and zone, by key (a pin that knows its zone refuses a zone move)."""
    return {
        plan.key: {"cidr": plan.cidr, "availability_zone": plan.availability_zone}
        for plan in sorted(subnets, key=lambda plan: plan.key)
        if plan.existing_id is None
    }


def _pin_text(pin: str | Mapping[str, str]) -> str:
    """A pin's value on its line: the range alone, or `{cidr: ..., availability_zone: ...}` (flow style, one line a pin)."""
    if isinstance(pin, str):
        return pin
    return "{" + ", ".join(f"{key}: {value}" for key, value in pin.items()) + "}"


def pins_block(pins: Mapping[str, str | Mapping[str, str]], keys: Sequence[str], indent: int = 2) -> str:
    """The YAML to paste: `keys` nested, then `subnet_cidrs` with one pin a line."""
    lines = [f"{' ' * (indent * depth)}{key}:" for depth, key in enumerate([*keys, PINS_KEY])]
    lines += [f"{' ' * (indent * (len(keys) + 1))}{key}: {_pin_text(pin)}" for key, pin in pins.items()]
    return "\n".join(lines) + "\n"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """The index after the last line of the block that opens at `start` (lines indented deeper, or blank, or comments)."""
    end = start + 1
    last = start + 1
    while end < len(lines):
        if _content(lines[end]):
            if _indent(lines[end]) <= indent:
                break
            last = end + 1
        end += 1
    return last


def _find(lines: list[str], low: int, high: int, key: str, indent: int) -> int | None:
    """The line in [low, high) that opens `key:` as a block at `indent`; flow-style or inline values are refused."""
    pattern = re.compile(rf"^ {{{indent}}}['\"]?{re.escape(key)}['\"]?:(.*)$")
    for index in range(low, high):
        match = pattern.match(lines[index].rstrip("\n"))
        if match:
            rest = match.group(1).strip()
            if rest and not rest.startswith("#"):
                raise LockWriteError(f"'{key}' is written on one line ({lines[index].strip()}); write it as a block, or paste the pins by hand")
            return index
    return None


def _child_indent(lines: list[str], low: int, high: int, parent: int) -> int:
    return next((_indent(lines[index]) for index in range(low, high) if _content(lines[index])), parent + 2)


def set_pins(text: str, keys: Sequence[str], pins: Mapping[str, str | Mapping[str, str]]) -> str:
    """`text` with the mapping at `keys` given a `subnet_cidrs` block holding `pins` (added, or replacing the one there)."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    low, high, parent = 0, len(lines), -1
    path = [*keys, PINS_KEY]
    for depth, key in enumerate(path):
        indent = _child_indent(lines, low, high, parent) if parent >= 0 or depth else 0
        found = _find(lines, low, high, key, indent)
        if found is None or key == PINS_KEY:
            end = _block_end(lines, found, indent) if found is not None else high
            while found is None and end > low and not _content(lines[end - 1]):
                end -= 1
            step = max(indent - parent, 2) if parent >= 0 else 2
            block = pins_block(pins, path[depth:-1], step).splitlines(keepends=True)
            block = [" " * indent + line for line in block]
            lines[found if found is not None else end : end] = block
            break
        low, high, parent = found + 1, _block_end(lines, found, indent), indent
    updated = "".join(lines)
    _check(text, updated, keys, pins)
    return updated


def _without_pins(document: Any, keys: Sequence[str]) -> Any:
    """The document with the pins (and any parent left empty by their removal) taken out."""
    document = deepcopy(document)
    trail = [document]
    for key in keys:
        node = trail[-1].get(key) if isinstance(trail[-1], dict) else None
        trail.append(node)
    if isinstance(trail[-1], dict):
        trail[-1].pop(PINS_KEY, None)
    for parent, key, child in reversed(list(zip(trail, keys, trail[1:], strict=False))):
        if isinstance(parent, dict) and child == {}:
            parent.pop(key, None)
    return document


def _check(before: str, after: str, keys: Sequence[str], pins: Mapping[str, str | Mapping[str, str]]) -> None:
    """The edited text must read as the old document plus exactly these pins."""
    old, new = yaml.safe_load(before), yaml.safe_load(after)
    node = new
    for key in [*keys, PINS_KEY]:
        node = node.get(key) if isinstance(node, dict) else None
    if node != {key: dict(pin) if isinstance(pin, Mapping) else pin for key, pin in pins.items()} or _without_pins(old, keys) != _without_pins(
        new, keys
    ):
        raise LockWriteError("the file's layout could not be edited safely in place; paste the pins by hand")
