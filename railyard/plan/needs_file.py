"""Reading a needs file and the base blueprint it names, as strictly as a blueprint is read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from blueprints.findings import Finding, error, sort_findings
from blueprints.models.needs import Needs
from blueprints.records import record
from blueprints.schema_errors import findings_from_validation
from blueprints.source import SourceError, SourceMap, read_yaml_file


@record
class NeedsFile:
    """A needs file read: the model (None when it didn't validate), the base's data, and the findings with their lines."""

    file: str
    needs: Needs | None
    base: dict[str, Any] | None
    base_file: str
    findings: list[Finding]
    source_map: SourceMap

    @property
    def ok(self) -> bool:
        """True when the needs and the base both read."""
        return self.needs is not None and self.base is not None and not any(finding.severity == "error" for finding in self.findings)


def read_needs(path: str | Path) -> NeedsFile:
    """Read and validate a needs file and its base; raises `SourceError` only when the needs file can't be read or parsed."""
    data, source_map, findings = read_yaml_file(path)
    file = str(path)
    if not isinstance(data, dict):
        raise SourceError(f"a needs file is a YAML mapping (version, kind: needs, name, ...), but {file} holds something else", file, 1, 1)
    try:
        needs = Needs.model_validate(data)
    except ValidationError as exc:
        placed = [source_map.place(finding) for finding in findings_from_validation(exc, Needs, data)]
        return NeedsFile(file, None, None, "", sort_findings(findings + placed), source_map)
    base_file = str(Path(file).parent / needs.base)
    base, why = _base(base_file)
    if base is None:
        findings.append(
            source_map.place(error("needs.base", ("base",), f"the base blueprint {base_file} can't be used: {why}", "point base at a blueprint file"))
        )
    return NeedsFile(file, needs, base, base_file, sort_findings(findings), source_map)


def _base(path: str) -> tuple[dict[str, Any] | None, str]:
    """The base blueprint's data, or None and why."""
    try:
        data, _, _ = read_yaml_file(path)
    except SourceError as exc:
        return None, str(exc)
    if not isinstance(data, dict) or data.get("version") != 1 or not isinstance(data.get("cloud"), dict):
        return None, "it is not a blueprint (version: 1, metadata, cloud, ...)"
    return data, ""
