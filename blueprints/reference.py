"""The blueprint field reference, docs/reference.md, generated from the models: `python -m blueprints.reference`.

Every field of the blueprint with its type, default, allowed values (enums, ranges, patterns, lengths) and
description, grouped as a blueprint reads: the top level, then each top-level section in the order the
`Blueprint` model declares it, each nested object under the path that first reaches it, and each variant of a
`kind` union under its kind. It is rendered from the JSON Schema the models publish (`railyard schema` prints
the same schema), with one change: defaults made by a factory (`labels: {}`, `root_volume: {}`) are written
out, where pydantic's schema leaves them unsaid. `--check` exits 1 when the file is not what the models give
(a test runs it), so the page can't fall behind a model.

A documentation generator for JSON Schema (json-schema-for-humans) was weighed: it renders one page per
schema in its own layout and knows nothing of `kind` discriminators as a reader of YAML meets them; the
rendering here is ~200 lines over the schema pydantic already produces.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic.json_schema import GenerateJsonSchema, NoDefault
from pydantic_core import core_schema

from blueprints.models import Blueprint

Schema = dict[str, Any]
DEFAULT_PATH = Path(__file__).resolve().parents[1] / "docs" / "reference.md"
RANGES = (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<"))
HEADER = """\
# Blueprint field reference

Every field a blueprint takes: its type, its default, the values it allows and what it means, in the
order a blueprint reads. A field whose default is "required" must be given. `none` is YAML's `null` (or
leaving the field out). A section whose fields are listed under a `kind` is a choice: write `kind:` and
the fields of that kind.

This page is generated from the blueprint models by `python -m blueprints.reference` (do not edit it by
hand; `tests/blueprints/test_reference_doc.py` fails when it is out of date). `railyard schema` prints the
same rules as JSON Schema for your editor, and `railyard explain CODE` explains a finding.
"""


class WithFactoryDefaults(GenerateJsonSchema):
    """pydantic's JSON Schema generator, writing out the defaults a factory makes (pydantic leaves them unsaid)."""

    def get_default_value(self, schema: core_schema.WithDefaultSchema) -> Any:
        """The static default, or the factory's value when the factory takes no arguments."""
        factory = schema.get("default_factory")
        if factory is not None and not schema.get("default_factory_takes_data"):
            return factory()  # type: ignore[call-arg]
        return schema.get("default", NoDefault)


def reference_schema() -> Schema:
    """The blueprint's JSON Schema, with factory defaults written out."""
    return Blueprint.model_json_schema(mode="validation", schema_generator=WithFactoryDefaults)


def _anchor(name: str) -> str:
    return f"def-{name.lower()}"


def _ref(node: Schema) -> str | None:
    reference = node.get("$ref")
    return reference.rsplit("/", 1)[-1] if isinstance(reference, str) else None


def _cell(text: str) -> str:
    """Text fit for a table cell: one line, pipes escaped (GitHub splits cells at a pipe even inside code)."""
    return " ".join(text.split()).replace("|", "\\|")


def _code(value: Any) -> str:
    text = value if isinstance(value, str) and value else json.dumps(value, sort_keys=True)  # the empty string as ""
    return f"`{text}`"


def _number(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def allowed(node: Schema) -> list[str]:
    """The values a node allows, in words: an enum, a constant, a range, a pattern, a length, a format."""
    found = []
    if "const" in node:
        found.append(f"{_code(node['const'])} only")
    if "enum" in node:
        found.append(", ".join(_code(value) for value in node["enum"]))
    found += [f"{sign} {_number(node[key])}" for key, sign in RANGES if key in node]
    if "pattern" in node:
        found.append(f"matches {_code(node['pattern'])}")
    for key, words in (("minLength", "at least {} characters"), ("maxLength", "at most {} characters")):
        if node.get(key):
            found.append(words.format(node[key]))
    for key, words in (("minItems", "at least {} item(s)"), ("maxItems", "at most {} item(s)")):
        if key in node:
            found.append(words.format(node[key]))
    if "format" in node:
        found.append(f"format {node['format']}")
    return found


def variants(node: Schema) -> list[tuple[str, Schema]]:
    """A `kind` union's (kind, variant) pairs in the order the model declares them."""
    kinds = {ref: kind for kind, ref in node["discriminator"]["mapping"].items()}
    return [(kinds[choice["$ref"]], choice) for choice in node["oneOf"]]


def type_of(node: Schema) -> tuple[str, list[str]]:
    """A node's type as a reader writes it (links to the sections of objects), and the values it allows."""
    name = _ref(node)
    if name is not None:
        return f"[{name}](#{_anchor(name)})", []
    choices = node.get("anyOf") or node.get("oneOf")
    if "discriminator" in node:
        return "one of, by `kind`: " + ", ".join(f"[{kind}](#{_anchor(_ref(choice) or kind)})" for kind, choice in variants(node)), []
    if choices:
        parts = [type_of(choice) for choice in choices if choice.get("type") != "null"]
        optional = " or none" if len(parts) < len(choices) else ""
        return " or ".join(text for text, _ in parts) + optional, [item for _, found in parts for item in found] + allowed(node)
    kind = node.get("type", "any")  # integer, number, string, boolean: the JSON Schema names read as they are
    if kind == "array":
        item, item_allowed = type_of(node.get("items", {}))
        return f"list of {item}", allowed(node) + [f"each: {text}" for text in item_allowed]
    if kind == "object" and ("patternProperties" in node or isinstance(node.get("additionalProperties"), dict)):
        (key, value) = next(iter(node["patternProperties"].items())) if "patternProperties" in node else ("", node["additionalProperties"])
        value_type, value_allowed = type_of(value)
        keys = f"keys matching {_code(key)}" if key else "string keys"
        return f"map of {value_type}", [keys] + [f"each value: {text}" for text in value_allowed]
    return str(kind), allowed(node)


def default_of(name: str, node: Schema, required: set[str]) -> str:
    """The default column: "required", or the default as YAML would write it (an object's `{}`: its fields' own)."""
    if name in required:
        return "required"
    if "default" not in node:
        return "—"
    value = node["default"]
    if value is None:
        return "none"
    if value == {} and _ref(node):
        return "its fields' defaults"
    return _code(value)


def field_rows(definition: Schema) -> list[str]:
    """A table of an object's fields: name, type, default, allowed values, description."""
    required = set(definition.get("required", ()))
    rows = ["| field | type | default | allowed | description |", "| --- | --- | --- | --- | --- |"]
    for name, node in definition.get("properties", {}).items():
        kind, values = type_of(node)
        description = node.get("description", "")
        cells = (f"`{name}`", kind, default_of(name, node, required), "; ".join(values), description)
        rows.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return rows


def nested(node: Schema) -> list[tuple[str, str | None, str]]:
    """The objects a node leads to: (definition name, its kind when it is a variant, the path suffix)."""
    name = _ref(node)
    if name is not None:
        return [(name, None, "")]
    if "discriminator" in node:
        return [(_ref(choice) or "", kind, "") for kind, choice in variants(node)]
    found = []
    for choice in node.get("anyOf", []) + node.get("oneOf", []):
        found += nested(choice)
    if node.get("type") == "array":
        found += [(name, kind, f"[]{suffix}") for name, kind, suffix in nested(node.get("items", {}))]
    for value in node.get("patternProperties", {}).values():
        found += [(name, kind, f".<key>{suffix}") for name, kind, suffix in nested(value)]
    return found


def sections(schema: Schema) -> list[str]:
    """Every object's section, depth first from the top-level fields in the order the model declares them."""
    definitions: Schema = schema["$defs"]
    written: set[str] = set()
    lines: list[str] = []

    def visit(name: str, kind: str | None, path: str, level: int) -> None:
        if name in written:
            return
        written.add(name)
        definition = definitions[name]
        title = f"`{path}` kind `{kind}`" if kind else f"`{path}`"
        lines.extend(["", f'<a id="{_anchor(name)}"></a>', "", f"{'#' * level} {title} ({name})", ""])
        lines.extend([" ".join(definition.get("description", "").split()), "", *field_rows(definition)])
        for field, node in definition.get("properties", {}).items():
            for child, child_kind, suffix in nested(node):
                visit(child, child_kind, f"{path}.{field}{suffix}", 3)

    for field, node in schema["properties"].items():
        children = nested(node)
        if any(kind for _, kind, _ in children):
            # A list of variants: a section of its own saying it is a choice, the variants under it.
            kinds, _ = type_of(node.get("items", node))
            lines.extend(["", f"## `{field}{children[0][2]}`", "", f"{node.get('description', '')} Each entry is {kinds}."])
        for child, kind, suffix in children:
            visit(child, kind, f"{field}{suffix}", 3 if kind else 2)
    missing = sorted(set(definitions) - written)
    assert not missing, f"definitions no field reaches: {missing}"
    return lines


def render(schema: Schema | None = None) -> str:
    """docs/reference.md's text: the header, the top-level fields, then every object's section."""
    schema = schema or reference_schema()
    top = ["", "## The top level", "", " ".join(schema.get("description", "").split()), "", *field_rows(schema)]
    return HEADER + "\n".join(top + sections(schema)) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the reference (default docs/reference.md), or with --check exit 1 when the file is stale."""
    parser = argparse.ArgumentParser(prog="python -m blueprints.reference", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_PATH, help="where the page lives (default: docs/reference.md)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the page differs from what the models give")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date: run python -m blueprints.reference", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
