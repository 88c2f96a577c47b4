"""The shipped examples validate clean, and the published JSON Schema accepts every one of them."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from railyard.cli import main
from railyard.commands.schema import blueprint_schema

EXAMPLES = sorted(Path("blueprints/examples").glob("*.yaml"))


def _as_json_data(value):
    """YAML gives datetimes; an editor's schema check sees the ISO strings."""
    if isinstance(value, dict):
        return {key: _as_json_data(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_json_data(item) for item in value]
    if isinstance(value, datetime.datetime):
        return value.isoformat().replace("+00:00", "Z")
    return value


def test_there_are_the_four_required_examples():
    names = {path.stem for path in EXAMPLES}
    assert {"dev-g6e", "p5-capacity-block", "heterogeneous", "rail-131k"} <= names


# insecure.yaml breaks the policy pack on purpose, so `validate` refuses it with the pack's ids (tests/policies/test_preflight.py).
SOUND = [path for path in EXAMPLES if path.stem != "insecure"]


@pytest.mark.parametrize("path", SOUND, ids=[path.stem for path in SOUND])
def test_example_validates_with_exit_zero(path, capsys):
    assert main(["validate", str(path)]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.stem for path in EXAMPLES])
def test_schema_accepts_example(path):
    data = _as_json_data(yaml.safe_load(path.read_text()))
    jsonschema.Draft202012Validator(blueprint_schema()).validate(data)


def test_schema_rejects_an_unknown_key():
    data = _as_json_data(yaml.safe_load(EXAMPLES[0].read_text()))
    data["metadata"]["colour"] = "red"
    errors = list(jsonschema.Draft202012Validator(blueprint_schema()).iter_errors(data))
    assert any("colour" in error.message for error in errors)


def test_every_schema_property_is_described():
    schema = blueprint_schema()
    undescribed = [
        f"{name}.{prop}"
        for name, definition in schema["$defs"].items()
        for prop, spec in definition.get("properties", {}).items()
        if "description" not in spec
    ]
    assert undescribed == []


def test_schema_command_prints_the_schema(capsys):
    assert main(["schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["title"] == "railyard blueprint" and "pools" in printed["properties"]
