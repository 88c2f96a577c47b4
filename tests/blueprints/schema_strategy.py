"""Blueprints generated from railyard's own JSON Schema (`railyard schema`), as Hypothesis strategies.

hypothesis-jsonschema would do this, but its last release (0.23.1) breaks on
Hypothesis 6.170's internals, so this module covers the keywords the schema
uses, and nothing else: `$ref`, `anyOf`/`oneOf`, `const`, `enum`, `type`
(object, array, string, integer, number, boolean, null), `properties` with
`required`, `additionalProperties` and `patternProperties` with
`propertyNames` and `maxProperties`, string `pattern`, `format` (date-time, ipv4network),
`minLength`/`maxLength`, numeric `minimum`/`maximum`/`exclusiveMinimum`/
`exclusiveMaximum`, `minItems`/`maxItems`. An unknown keyword that constrains
values raises, so the generator can't silently drift from the schema.

Sizes are kept small (lists of at most 3, integers at most 4,096 unless the
schema's own bound is lower) so one case validates in milliseconds; the
mutation fuzzer covers the absurd values.
"""

from __future__ import annotations

from datetime import UTC, datetime
from ipaddress import IPv4Address, IPv4Network
from typing import Any

from hypothesis import strategies as st

# Keywords that only describe; everything else must be handled below.
DESCRIPTIVE = {"title", "description", "default", "discriminator", "examples", "$schema", "$defs"}
HANDLED = {
    "$ref", "anyOf", "oneOf", "const", "enum", "type", "properties", "required", "additionalProperties",
    "patternProperties", "propertyNames", "maxProperties", "pattern", "format", "minLength", "maxLength",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "items", "minItems", "maxItems",
}  # fmt: skip
LARGEST = 4096
MOST_ITEMS = 3


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A strategy for documents valid under `schema` (a whole schema with its `$defs`)."""
    return _strategy(schema, schema.get("$defs", {}))


def _strategy(node: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    unknown = set(node) - DESCRIPTIVE - HANDLED
    if unknown:
        raise NotImplementedError(f"schema keywords {sorted(unknown)} are not generated")
    if "$ref" in node:
        return st.deferred(lambda: _strategy(defs[node["$ref"].rsplit("/", 1)[-1]], defs))
    if "anyOf" in node or "oneOf" in node:
        return st.one_of([_strategy(option, defs) for option in node.get("anyOf", node.get("oneOf"))])
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    kind = node.get("type")
    if kind == "object":
        return _object(node, defs)
    if kind == "array":
        items = _strategy(node.get("items", {"type": "string"}), defs)
        return st.lists(
            items, min_size=node.get("minItems", 0), max_size=min(node.get("maxItems", MOST_ITEMS), max(MOST_ITEMS, node.get("minItems", 0)))
        )
    if kind == "string":
        return _string(node)
    if kind == "integer":
        low = node.get("minimum", node.get("exclusiveMinimum", -LARGEST - 1) + 1)
        return st.integers(min_value=low, max_value=min(node.get("maximum", LARGEST), max(low, LARGEST)))
    if kind == "number":
        low = node.get("minimum", node.get("exclusiveMinimum", 0.0))
        high = min(node.get("maximum", node.get("exclusiveMaximum", float(LARGEST))), max(low + 1, LARGEST))
        exclusive = {"exclude_min": "exclusiveMinimum" in node, "exclude_max": "exclusiveMaximum" in node}
        return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False, **exclusive)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    raise NotImplementedError(f"schema node {node} has no type to generate")


def _object(node: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    properties = node.get("properties", {})
    if properties:
        required = set(node.get("required", ()))
        return st.fixed_dictionaries(
            {name: _strategy(value, defs) for name, value in properties.items() if name in required},
            optional={name: _strategy(value, defs) for name, value in properties.items() if name not in required},
        )
    patterns = node.get("patternProperties", {})
    if patterns:
        [(pattern, values)] = patterns.items()
        keys: st.SearchStrategy[str] = st.from_regex(pattern, fullmatch=True)
    else:
        values = node.get("additionalProperties") if isinstance(node.get("additionalProperties"), dict) else {"type": "string"}
        keys = _string(node.get("propertyNames", {"type": "string", "maxLength": 20}))
    return st.dictionaries(keys, _strategy(values, defs), max_size=min(node.get("maxProperties", MOST_ITEMS), MOST_ITEMS))


def _network(address: IPv4Address, prefix: int) -> str:
    return str(IPv4Network(f"{address}/{prefix}", strict=False))


FORMATS: dict[str, st.SearchStrategy[str]] = {
    "date-time": st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2040, 1, 1), timezones=st.just(UTC)).map(
        lambda moment: moment.isoformat().replace("+00:00", "Z")
    ),
    # pydantic's name for an IPv4 network (`10.0.0.0/16`, host bits zero).
    "ipv4network": st.builds(_network, st.ip_addresses(v=4), st.integers(min_value=8, max_value=28)),
}


def _string(node: dict[str, Any]) -> st.SearchStrategy[str]:
    if "format" in node:
        if node["format"] not in FORMATS:
            raise NotImplementedError(f"string format {node['format']!r} is not generated")
        return FORMATS[node["format"]]
    low, high = node.get("minLength", 0), node.get("maxLength", 40)
    if "pattern" in node:
        return st.from_regex(node["pattern"], fullmatch=True).filter(lambda text: low <= len(text) <= high)
    return st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=low, max_size=min(high, 40))
