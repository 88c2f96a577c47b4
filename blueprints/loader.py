"""Load a blueprint: YAML -> (overrides) -> strict models -> cross-field rules -> placed findings.

`load_blueprint` is the load stage's one entry point. It never raises for a
bad blueprint: every problem becomes a `Finding` placed at its file, line and
column. Only input that can't be read at all (missing file, YAML syntax error,
a document that isn't a mapping) raises `SourceError`.

When the document as a whole fails schema validation, the rules that need the
whole blueprint are skipped, but pools and storage tiers that validate on
their own still go through their own rules, so one typo doesn't hide an FSx
size error three screens down.
"""

from __future__ import annotations

import functools
from dataclasses import field
from pathlib import Path as FilePath
from typing import Any

from pydantic import TypeAdapter, ValidationError

from blueprints.catalog import Catalog, load_catalog
from blueprints.device_defaults import with_device_plugins
from blueprints.findings import Finding, Path, has_errors, sort_findings
from blueprints.models import Blueprint
from blueprints.models.pools import Pool
from blueprints.models.storage import StorageTier
from blueprints.overrides import apply_overrides
from blueprints.records import record
from blueprints.rules import run_blueprint_rules, run_pool_rules, run_storage_rules
from blueprints.schema_errors import findings_from_validation
from blueprints.source import SourceError, SourceMap, parse_yaml, read_yaml_file


@functools.cache
def _storage_adapter() -> TypeAdapter[StorageTier]:
    """Validates one storage tier alone; built on first need (a blueprint that fails as a whole), not at import."""
    return TypeAdapter(StorageTier)


@record(frozen=False)
class Overrides:
    """An environment's overrides and where they were written (for positions)."""

    data: dict[str, Any]
    source_map: SourceMap = field(default_factory=SourceMap)
    root: Path = ()
    origin: str = ""


@record(frozen=False)
class LoadResult:
    """What loading gives the next stage: a valid blueprint (or None) and all findings."""

    file: str
    blueprint: Blueprint | None
    findings: list[Finding]
    source_map: SourceMap
    data: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        """True when the blueprint validated and no finding is an error."""
        return self.blueprint is not None and not has_errors(self.findings)


def _items(data: dict[str, Any], key: str) -> list[Any]:
    """The list under `key`, or none when it is missing or isn't a list (the schema reports that)."""
    value = data.get(key)
    return value if isinstance(value, list) else []


def _partial_rules(data: dict[str, Any], catalog: Catalog) -> list[Finding]:
    """Run per-object rules on the pools and storage tiers that validate on their own."""
    findings: list[Finding] = []
    for index, raw in enumerate(_items(data, "pools")):
        try:
            pool = Pool.model_validate(raw)
        except ValidationError:
            continue
        findings += run_pool_rules(pool, ("pools", index), catalog)
    for index, raw in enumerate(_items(data, "storage")):
        try:
            tier = _storage_adapter().validate_python(raw)
        except ValidationError:
            continue
        findings += run_storage_rules(tier, ("storage", index), catalog)
    return findings


def validate_data(data: object, source_map: SourceMap, file: str, catalog: Catalog | None = None) -> LoadResult:
    """Validate already-parsed blueprint data and run every rule that can run."""
    catalog = catalog or load_catalog()
    if not isinstance(data, dict):
        got = "an empty document" if data is None else f"a {type(data).__name__}"
        raise SourceError(f"a blueprint is a YAML mapping (version, metadata, cloud, ...), but {file} holds {got}", file, 1, 1)
    try:
        blueprint = with_device_plugins(Blueprint.model_validate(data), catalog)
    except ValidationError as exc:
        findings = findings_from_validation(exc, Blueprint, data) + _partial_rules(data, catalog)
        placed = [source_map.place(finding) for finding in findings]
        return LoadResult(file, None, sort_findings(placed), source_map, data)
    findings = run_blueprint_rules(blueprint, catalog)
    placed = [source_map.place(finding) for finding in findings]
    return LoadResult(file, blueprint, sort_findings(placed), source_map, data)


def load_text(text: str, file: str, overrides: Overrides | None = None, catalog: Catalog | None = None) -> LoadResult:
    """Load blueprint YAML text as if read from `file` (see `load_blueprint`)."""
    data, source_map, findings = parse_yaml(text, file)
    return _load_parsed(data, source_map, findings, file, overrides, catalog)


def load_blueprint(path: str | FilePath, overrides: Overrides | None = None, catalog: Catalog | None = None) -> LoadResult:
    """Load, merge an environment's overrides into, and validate a blueprint file.

    Raises `SourceError` only when the file can't be read or parsed at all.
    """
    data, source_map, findings = read_yaml_file(path)
    return _load_parsed(data, source_map, findings, str(path), overrides, catalog)


def _load_parsed(
    data: object, source_map: SourceMap, findings: list[Finding], file: str, overrides: Overrides | None, catalog: Catalog | None
) -> LoadResult:
    if overrides is not None and overrides.data and isinstance(data, dict):
        data, source_map, override_findings = apply_overrides(data, source_map, overrides.data, overrides.source_map, overrides.root)
        findings = findings + override_findings
    result = validate_data(data, source_map, file, catalog)
    result.findings = sort_findings(findings + result.findings)
    return result
