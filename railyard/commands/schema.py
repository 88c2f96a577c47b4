"""`railyard schema [blueprint|needs]`: the JSON Schema of a blueprint or of `railyard plan`'s needs file, for editors."""

from __future__ import annotations

import json

from blueprints.models import Blueprint

NAME = "schema"
HELP = "Print the blueprint JSON Schema, or the needs file's (`railyard schema needs`): point your editor's YAML plugin at it."


def add_arguments(parser) -> None:
    """Which schema: blueprint (the default) or needs."""
    parser.add_argument("document", nargs="?", choices=("blueprint", "needs"), default="blueprint", help="which file's schema (default: blueprint)")


def blueprint_schema() -> dict:
    """The JSON Schema of a blueprint, with an id and title editors show."""
    schema = Blueprint.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "railyard blueprint"
    return schema


def needs_schema() -> dict:
    """The JSON Schema of a needs file (`railyard plan`, docs/plan.md)."""
    from blueprints.models.needs import Needs

    schema = Needs.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "railyard needs"
    return schema


def run(args) -> int:
    """Print the schema."""
    print(json.dumps(needs_schema() if getattr(args, "document", "blueprint") == "needs" else blueprint_schema(), indent=2, sort_keys=True))
    return 0
