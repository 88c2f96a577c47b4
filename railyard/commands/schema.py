"""`railyard schema`: the blueprint language's JSON Schema, for editors (yaml-language-server)."""

from __future__ import annotations

import json

from blueprints.models import Blueprint

NAME = "schema"
HELP = "Print the blueprint JSON Schema (point your editor's YAML plugin at it)."


def add_arguments(parser) -> None:
    """No arguments."""


def blueprint_schema() -> dict:
    """The JSON Schema of a blueprint, with an id and title editors show."""
    schema = Blueprint.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "railyard blueprint"
    return schema


def run(args) -> int:
    """Print the schema."""
    print(json.dumps(blueprint_schema(), indent=2, sort_keys=True))
    return 0
