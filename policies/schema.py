"""Cerberus schemas over engine props: the validator, the projection, and the wording.

A single-resource rule is a Cerberus schema over the resource's props as the
engine hands them to a policy (camelCase keys, numbers as floats). Three
pieces make that work:

* `project` copies out of the props only the fields a schema names, reading
  them through the engine's unknown-checking proxy, so a value that is
  unknown during preview raises `UnknownValueError` exactly as a hand-written
  policy would (the engine then reports "can't run policy during preview");
* `RailyardValidator` adds two rules Cerberus lacks, `absent: True` (the field
  must not be set at all) and `any_item: <schema>` (some item of a list obeys
  the schema), and reports errors through `Sentences`;
* `Sentences` turns Cerberus errors into phrases that quote the path and the
  bad value: `metadataOptions.httpTokens is 'optional'; allowed: 'required'`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import cerberus
from cerberus import errors as cerberus_errors

_SHOWN_ALLOWED = 6
ABSENT_MESSAGE = "must not be set"
ANY_ITEM_MESSAGE = "has no item of the required form"


def plain(value: Any) -> Any:
    """A plain dict/list copy of a (possibly proxied) engine value; unknowns raise on access."""
    if isinstance(value, Mapping):
        return {key: plain(value[key]) for key in value}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [plain(value[index]) for index in range(len(value))]
    return value


def project(props: Mapping[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """The part of `props` that `schema` constrains, as plain data.

    Only fields the schema names are read, so an unknown value elsewhere in the
    resource never stops the rule; a nested `schema` is followed into dicts
    (field rules) and lists (item rules).
    """
    projected: dict[str, Any] = {}
    for field, rules in schema.items():
        if field not in props:
            continue
        projected[field] = _project_value(props[field], rules.get("schema"))
    return projected


def _project_value(value: Any, subschema: Mapping[str, Any] | None) -> Any:
    if subschema is None:
        return plain(value)
    if isinstance(value, Mapping):
        return project(value, subschema)
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        # For a list, `schema` holds the rules every item obeys.
        return [_project_value(value[index], subschema.get("schema")) for index in range(len(value))]
    return plain(value)


def _shown(values: Any) -> str:
    values = list(values)
    if not values:
        return "none"
    text = ", ".join(repr(value) for value in values[:_SHOWN_ALLOWED])
    return text + (f", ... ({len(values)} in all)" if len(values) > _SHOWN_ALLOWED else "")


def _number(value: Any) -> Any:
    """The engine sends every number as a float; show 2.0 as 2."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def dotted(path: Sequence[Any]) -> str:
    """`("networkInterfaces", 1, "interfaceType")` -> `networkInterfaces[1].interfaceType`;
    `("labels", "railyard.dev/role")` -> `labels['railyard.dev/role']`."""
    text = ""
    for step in path:
        if isinstance(step, int) or any(mark in str(step) for mark in "./"):
            # List indices, and map keys such as label names that contain dots or slashes.
            text += f"[{step}]" if isinstance(step, int) else f"[{str(step)!r}]"
        else:
            text += f".{step}" if text else str(step)
    return text or "<resource>"


def _sentence(error: cerberus_errors.ValidationError) -> str:
    """One leaf Cerberus error as a phrase naming the path and the value."""
    path = dotted(error.document_path)
    value = _number(error.value)
    rule, constraint = error.rule, error.constraint
    if rule == "required":
        return f"{path} is not set"
    if error.code == cerberus_errors.CUSTOM.code and error.info == (ABSENT_MESSAGE,):
        return f"{path} is set ({value!r}) and must not be"
    if error.code == cerberus_errors.CUSTOM.code:
        return f"{path} {error.info[0]}"
    if rule == "allowed":
        bad = error.info[0] if error.code == cerberus_errors.UNALLOWED_VALUES.code else value
        shown = _shown(bad) if isinstance(bad, (list, tuple)) else repr(bad)
        return (
            f"{path} has {shown}; allowed: {_shown(constraint)}"
            if isinstance(bad, (list, tuple))
            else f"{path} is {shown}; allowed: {_shown(constraint)}"
        )
    if rule == "forbidden" and error.code == cerberus_errors.FORBIDDEN_VALUES.code:
        return f"{path} includes {_shown(sorted(error.info[0]))}, which is not allowed"
    if rule == "forbidden":
        return f"{path} is {value!r}, which is not allowed"
    if rule == "contains":
        return f"{path} is {value!r} and lacks {_shown(sorted(error.info[0], key=str))}"
    if rule == "empty":
        return f"{path} is empty"
    if rule in ("min", "max"):
        return f"{path} is {value!r}; {rule}imum {_number(constraint)}"
    if rule in ("minlength", "maxlength"):
        return f"{path} has {len(error.value)} item(s); {rule[:3]}imum {constraint}"
    if rule == "type":
        return f"{path} is {value!r}, not of type {constraint}"
    # Cerberus's own wording for the rest, filled in as its BasicErrorHandler does (`{constraint}`, `{value}`).
    template = cerberus_errors.BasicErrorHandler.messages.get(error.code, rule)
    return f"{path}: {template.format(*error.info, constraint=constraint, field=path, value=error.value)}"


class Sentences(cerberus_errors.BaseErrorHandler):
    """Cerberus error handler whose `Validator.errors` is a flat, ordered list of phrases."""

    def __call__(self, errors):
        phrases: list[str] = []
        for error in sorted(errors):
            phrases.extend(self._leaves(error))
        return phrases

    def _leaves(self, error):
        if error.is_group_error:
            for child in sorted(error.child_errors):
                yield from self._leaves(child)
        else:
            yield _sentence(error)


class RailyardValidator(cerberus.Validator):
    """Cerberus with `absent` (a field that must not be set), `any_item` (some list item obeys a schema) and sentence errors."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("error_handler", Sentences)
        super().__init__(*args, **kwargs)

    def _validate_absent(self, absent, field, value):
        """Fail when the field is present at all.

        The rule's arguments are validated against this schema:
        {'type': 'boolean'}
        """
        if absent:
            self._error(field, ABSENT_MESSAGE)

    def _validate_any_item(self, schema, field, value):
        """Fail unless at least one item of the list obeys `schema`.

        The rule's arguments are validated against this schema:
        {'type': 'dict'}
        """
        items = value if isinstance(value, list) else []
        if not any(isinstance(item, Mapping) and validator_for(schema).validate(item, normalize=False) for item in items):
            self._error(field, ANY_ITEM_MESSAGE)


_PER_THREAD = threading.local()


def validator_for(schema: Mapping[str, Any]) -> RailyardValidator:
    """A validator for a JSON-able schema, cached per thread.

    Building one checks the schema itself, so it is done once; a Cerberus
    validator holds the state of its last run, and the analyzer serves
    requests on several threads, hence one cache per thread.
    """
    cache = _PER_THREAD.__dict__.setdefault("validators", {})
    key = json.dumps(schema, sort_keys=True)
    if key not in cache:
        cache[key] = RailyardValidator(json.loads(key), allow_unknown=True)
    return cache[key]


def problems(props: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """Phrases for every way the projected props break `schema`; empty when they obey it."""
    validator = validator_for(schema)
    if validator.validate(project(props, schema), normalize=False):
        return []
    return list(validator.errors)


def matches(props: Mapping[str, Any], schema: Mapping[str, Any]) -> bool:
    """True when the props obey `schema` (used for a rule's `applies_when`)."""
    return not problems(props, schema)
