"""Environments as Pulumi stacks: `Pulumi.<stack>.yaml` names the blueprint and its overrides.

    config:
      railyard:blueprint: blueprints/examples/p5-capacity-block.yaml
      railyard:overrides:
        metadata: {environment: dev}
        pools:
          - {name: train, nodes: 2, capacity: {kind: on_demand}}

The same file drives `pulumi up --stack dev` (the program reads it through this
module, so positions in findings point at the stack file's lines) and railyard's
offline `validate --stack dev` / `preview --stack dev`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from blueprints.loader import Overrides
from blueprints.source import SourceError, read_yaml_file

BLUEPRINT_KEY = "railyard:blueprint"
OVERRIDES_KEY = "railyard:overrides"


@dataclass(frozen=True)
class StackSettings:
    """What a stack file says: its name, the blueprint it renders, and its overrides."""

    name: str
    file: str
    blueprint: str | None
    overrides: Overrides


def stack_file(project_dir: str | Path, stack: str) -> Path:
    """The path of a stack's config file in a Pulumi project directory."""
    return Path(project_dir) / f"Pulumi.{stack}.yaml"


def read_stack(project_dir: str | Path, stack: str) -> StackSettings:
    """Read `Pulumi.<stack>.yaml`; a missing or malformed file raises `SourceError`."""
    path = stack_file(project_dir, stack)
    if not path.exists():
        known = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in Path(project_dir).glob("Pulumi.*.yaml"))
        raise SourceError(f"no stack '{stack}': {path} does not exist (stacks here: {', '.join(known) or 'none'})", str(path))
    data, source_map, findings = read_yaml_file(path)
    if findings:
        first = findings[0]
        raise SourceError(first.message, str(path), first.line, first.column)
    config = (data or {}).get("config", {}) if isinstance(data, dict) else None
    if not isinstance(config, dict):
        raise SourceError(f"{path}: 'config' must be a mapping", str(path), 1, 1)
    overrides = config.get(OVERRIDES_KEY) or {}
    if not isinstance(overrides, dict):
        position = source_map.locate(("config", OVERRIDES_KEY))
        raise SourceError(f"{path}: '{OVERRIDES_KEY}' must be a mapping (a partial blueprint)", str(path), position.line if position else None)
    blueprint = config.get(BLUEPRINT_KEY)
    if blueprint is not None and not isinstance(blueprint, str):
        raise SourceError(f"{path}: '{BLUEPRINT_KEY}' must be a path string", str(path))
    resolved = str((Path(project_dir) / blueprint)) if blueprint else None
    return StackSettings(stack, str(path), resolved, Overrides(overrides, source_map, ("config", OVERRIDES_KEY), str(path)))
