"""Inputs for railyard.change's unit tests, written out rather than previewed: resources, resource changes, and a
validated side whose blueprint holds only the fields the change modules read (`blueprint(...)`, `pool(...)`).

Every finding a side places lands on line 1 of `new.yaml` (its source map knows only the root), so a test can tell a
placed finding from an unplaced one."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from blueprints.loader import LoadResult
from blueprints.source import Position, SourceMap
from railyard.change.compare import InputChange, ResourceChange
from railyard.change.replace_table import Effect
from railyard.mocked import PreviewResource
from railyard.pipeline import Validation

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
FILE = "new.yaml"


def resource(name: str, token: str, inputs: dict, *, stack: str = "dev", deps: dict | None = None, **fields: Any) -> PreviewResource:
    """A registered resource as a preview gives it: its URN from stack, type and name; its id `id-<name>`."""
    return PreviewResource(f"urn:pulumi:{stack}::proj::{token}::{name}", token, name, "", inputs, f"id-{name}", (), deps or {}, **fields)


def change(
    name: str, token: str, action: str, old: dict | None, new: dict | None, paths: dict[str, str] | None = None, **fields: Any
) -> ResourceChange:
    """A resource change between inputs `old` and `new` (None: that side absent), its changed inputs given as {path: effect}."""
    before = resource(name, token, old, **fields) if old is not None else None
    after = resource(name, token, new, **fields) if new is not None else None
    present = after or before
    assert present is not None
    inputs = [InputChange(path, (old or {}).get(path), (new or {}).get(path), Effect(effect, path)) for path, effect in (paths or {}).items()]
    return ResourceChange(present.urn, token, name, action, before, after, inputs)


def group(name: str, action: str, old: dict | None, new: dict | None, paths: dict[str, str] | None = None, **fields: Any) -> ResourceChange:
    """A node group's change (see `change`)."""
    return change(name, NODE_GROUP, action, old, new, paths, **fields)


def pool(name: str, **fields: Any) -> SimpleNamespace:
    """A blueprint pool: its name and whatever fields a test gives (instance_type, kubernetes_version, capacity...)."""
    return SimpleNamespace(name=name, **{"kubernetes_version": None, "instance_type": "p5.48xlarge", **fields})


def blueprint(*pools: SimpleNamespace, version: str = "1.31", **fields: Any) -> SimpleNamespace:
    """A blueprint with these pools at this Kubernetes version, and any other top-level fields a test gives."""
    return SimpleNamespace(pools=list(pools), kubernetes=SimpleNamespace(version=version), **fields)


def side(shape: Any) -> Validation:
    """A validated side holding `shape` as its blueprint (None: a side that did not load)."""
    source_map = SourceMap(values={(): Position(FILE, 1, 1)})
    return Validation(FILE, None, LoadResult(FILE, shape, [], source_map), None)
