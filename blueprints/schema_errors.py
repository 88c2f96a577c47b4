"""Turn pydantic validation errors into findings users can act on.

Pydantic's `loc` is almost a blueprint path; it also names union members
(`capacity_block`, `fixed`) that are not in the YAML. `clean_path` walks the
data to drop those. Each pydantic error type maps to a stable finding code, a
message that quotes the bad value, and a hint: the allowed values, the field's
description, or "did you mean" for a misspelt key.
"""

from __future__ import annotations

import difflib
import typing
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from blueprints.findings import Finding, Path, PathPart, error, format_path

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

CODES: tuple[str, ...] = (
    "schema.unknown-key",
    "schema.missing-field",
    "schema.missing-kind",
    "schema.unknown-kind",
    "schema.invalid-value",
    "schema.out-of-range",
    "schema.bad-length",
    "schema.bad-format",
    "schema.wrong-type",
    "schema.invalid",
)
"""Every code a pydantic error becomes."""
# What `railyard explain` says for the codes whose wording is built from pydantic's error at run time.
EXPLAIN = {
    "schema.wrong-type": {
        "meaning": "a field holds a value of the wrong type: text where a number belongs, a single value where a list belongs",
        "fix": "write the type the message names; quote a value YAML would read as a number or a boolean ('1.31', 'on')",
    },
    "schema.invalid": {
        "meaning": "a value breaks a rule of its field that has no finding code of its own; the message carries pydantic's words",
        "fix": "see `railyard schema` (or the field reference) for what the field allows",
    },
}

_TYPE_WORDS = {
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "string_type": "a string",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "datetime_type": "a date-time such as 2026-12-01T11:30:00Z",
    "datetime_parsing": "a date-time such as 2026-12-01T11:30:00Z",
    "ip_v4_network": "an IPv4 network such as 10.0.0.0/16",
}
_RANGE_WORDS = {
    "greater_than_equal": ("at least", "ge"),
    "greater_than": ("more than", "gt"),
    "less_than_equal": ("at most", "le"),
    "less_than": ("less than", "lt"),
}


def _show(value: Any) -> str:
    """Quote a user's value compactly for a message."""
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _holds(current: Any, part: PathPart) -> bool:
    """True when `part` is a key of the mapping `current` or an index into the list `current`."""
    return isinstance(current, dict) and part in current or isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current)


def clean_path(loc: tuple[PathPart, ...], data: Any, missing_leaf: bool = False) -> tuple[Path, list[str]]:
    """Map a pydantic `loc` onto the data, dropping union-member names.

    Returns the blueprint path and the union-member names that were dropped
    (the last one tells which variant the error is about). With
    `missing_leaf`, a last element absent from the data is kept: it names the
    missing field.
    """
    path: list[PathPart] = []
    members: list[str] = []
    current = data
    for index, part in enumerate(loc):
        if _holds(current, part):
            path.append(part)
            current = current[part]
        elif missing_leaf and index == len(loc) - 1 and isinstance(current, dict):
            path.append(part)  # a missing field: not in the data, but the finding names it
        else:
            members.append(str(part))
    return tuple(path), members


def _unwrap(annotation: Any, value: Any) -> type[BaseModel] | None:
    """Find the model class an annotation resolves to for this value, if any."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0], value)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        for member in typing.get_args(annotation):
            found = _unwrap(member, value)
            if found is None:
                continue
            kind = found.model_fields.get("kind")
            if kind is None or not isinstance(value, dict):
                return found
            if value.get("kind") in typing.get_args(kind.annotation):
                return found
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def model_at(root: type[BaseModel], data: Any, path: Path) -> type[BaseModel] | None:
    """The model class that validates the mapping at `path` in `data`."""
    model: type[BaseModel] | None = root
    annotation: Any = root
    current = data
    for part in path:
        if isinstance(part, int):
            args = typing.get_args(_strip_annotated(annotation))
            annotation = args[-1] if args else None
            current = current[part] if isinstance(current, list) and part < len(current) else None
        else:
            if model is None or part not in model.model_fields:
                return None
            annotation = model.model_fields[part].annotation
            current = current.get(part) if isinstance(current, dict) else None
        model = _unwrap(_strip_container(annotation), current)
    return model


def _strip_annotated(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _strip_container(annotation: Any) -> Any:
    """For a list/dict annotation the model is reached through an index, not here."""
    bare = _strip_annotated(annotation)
    if typing.get_origin(bare) in (list, dict):
        return None
    return annotation


def _unknown_key(path: Path, root: type[BaseModel], data: Any) -> Finding:
    key = str(path[-1])
    parent = model_at(root, data, path[:-1])
    allowed = sorted(parent.model_fields) if parent else []
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    hint = f"did you mean '{close[0]}'? " if close else ""
    hint += f"allowed keys here: {', '.join(allowed)}" if allowed else "remove it"
    where = format_path(path[:-1])
    return error("schema.unknown-key", path, f"unknown key '{key}' in {where}", hint)


def _missing(path: Path, root: type[BaseModel], data: Any) -> Finding:
    key = str(path[-1])
    parent = model_at(root, data, path[:-1])
    field = parent.model_fields.get(key) if parent else None
    described = field.description if field and field.description else ""
    return error(
        "schema.missing-field",
        path,
        f"{format_path(path[:-1])} is missing the required key '{key}'",
        f"add '{key}:' ({described})" if described else f"add '{key}:'",
    )


def _not_finite(path: Path, value: Any, root: type[BaseModel], data: Any) -> Finding:
    """YAML's `.inf` or `.nan` where a quantity belongs: out of every range, with what the field measures."""
    parent = model_at(root, data, path[:-1])
    field = parent.model_fields.get(str(path[-1])) if parent else None
    described = f" ({field.description.rstrip('.')})" if field and field.description else ""
    return error(
        "schema.out-of-range",
        path,
        f"{_show(value)} is out of range: {format_path(path)} must be a finite number",
        f"write a finite number here{described}; .inf and .nan are YAML's infinity and not-a-number",
    )


def _one(item: ErrorDetails, root: type[BaseModel], data: Any) -> Finding:
    kind = item["type"]
    path, _ = clean_path(tuple(item["loc"]), data, missing_leaf=kind == "missing")
    value = item.get("input")
    ctx = item.get("ctx") or {}
    if kind == "extra_forbidden":
        return _unknown_key(path, root, data)
    if kind == "missing":
        return _missing(path, root, data)
    if kind == "railyard_rule":
        field = ctx.get("field") or ""
        suffix = tuple(int(p) if p.isdigit() else p for p in field.split(".")) if field else ()
        return error(ctx["code"], path + suffix, ctx["message"], ctx["hint"])
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        expected = ctx.get("expected_tags", "")
        got = ctx.get("tag")
        where = path + ("kind",)
        if kind == "union_tag_not_found":
            return error("schema.missing-kind", where, f"{format_path(path)} has no 'kind'", f"add 'kind:' with one of {expected}")
        return error("schema.unknown-kind", where, f"kind {_show(got)} is not one of {expected}", f"use one of {expected}")
    if kind == "literal_error":
        return error("schema.invalid-value", path, f"{_show(value)} is not allowed", f"use one of {ctx.get('expected')}")
    if kind in _RANGE_WORDS:
        words, key = _RANGE_WORDS[kind]
        limit = ctx.get(key)
        return error("schema.out-of-range", path, f"{_show(value)} is out of range: must be {words} {limit}", f"use a value {words} {limit}")
    if kind in ("too_short", "too_long"):
        bound = ctx.get("min_length") if kind == "too_short" else ctx.get("max_length")
        words = "at least" if kind == "too_short" else "at most"
        return error(
            "schema.bad-length", path, f"{format_path(path)} has {ctx.get('actual_length')} items; it needs {words} {bound}", f"give {words} {bound}"
        )
    if kind == "string_pattern_mismatch":
        return error(
            "schema.bad-format",
            path,
            f"{_show(value)} does not have the required form {ctx.get('pattern')}",
            "see `railyard schema` for the field's format",
        )
    if kind == "value_error":
        # A field validator's own words (a CIDR or a time written the wrong way): they already name the value and the fix.
        return error("schema.invalid-value", path, str(ctx.get("error", item["msg"])), "see `railyard schema` for what is allowed here")
    if kind == "finite_number":
        return _not_finite(path, value, root, data)
    if kind in _TYPE_WORDS:
        got = type(value).__name__ if value is not None else "nothing"
        return error("schema.wrong-type", path, f"{_show(value)} is a {got}; expected {_TYPE_WORDS[kind]}", f"write {_TYPE_WORDS[kind]} here")
    return error("schema.invalid", path, f"{_show(value)}: {item['msg']}", "see `railyard schema` for what is allowed here")


def findings_from_validation(exc: ValidationError, root: type[BaseModel], data: Any) -> list[Finding]:
    """Convert every error in a pydantic `ValidationError` into findings (deduplicated)."""
    seen: set[tuple[str, Path]] = set()
    findings: list[Finding] = []
    for item in exc.errors(include_url=False):
        finding = _one(item, root, data)
        key = (finding.code, finding.path)
        if key not in seen:
            seen.add(key)
            findings.append(finding)
    return findings
