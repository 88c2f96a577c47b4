"""The one way railyard says "this is wrong": the `Finding`.

Every stage (schema, cross-field rules, topology, Kubernetes cross-layer checks)
reports problems as findings. A finding carries a stable code, a severity, the
path into the blueprint (`pools[1].capacity.zone`), where that path sits in the
YAML source (file, line, column), a message that quotes the bad value and what
is allowed, and a hint with the fix. Nothing stops at the first finding; callers
collect them all and sort them with `sort_findings`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field, replace
from typing import Any, Literal

from blueprints.records import record

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}

PathPart = str | int
Path = tuple[PathPart, ...]
# A finding's evidence (the figures behind it), printed as-is by `--json`: JSON-shaped, so values stay open.
Certificate = dict[str, Any]


def format_path(path: Path) -> str:
    """Render a path tuple the way users read it: `pools[1].capacity.zone`.

    Integers become list indices; strings become dotted keys. The empty path is
    the blueprint itself and renders as `<blueprint>`.
    """
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "<blueprint>"


@record
class Finding:
    """A single problem (or note) about a blueprint, tied to a place in its source.

    `code` is stable across releases (tests and suppressions key on it);
    `path` is a tuple so rules build it structurally and the locator can find
    the YAML position; `file`, `line` and `column` are filled in by the loader
    (`locate`) and are 1-based.
    """

    code: str
    severity: Severity
    path: Path
    message: str
    hint: str = ""
    file: str | None = None
    line: int | None = None
    column: int | None = None
    certificate: Certificate = field(default_factory=dict, compare=False, hash=False)

    @property
    def path_text(self) -> str:
        """The path as users read it (`pools[1].capacity.zone`)."""
        return format_path(self.path)

    @property
    def is_error(self) -> bool:
        """True when this finding must stop a deployment."""
        return self.severity == "error"

    def at(self, file: str | None, line: int | None, column: int | None) -> Finding:
        """Return a copy of this finding placed at a source position."""
        return replace(self, file=file, line=line, column=column)

    def as_json(self) -> dict[str, Any]:
        """The JSON shape the CLI prints (`--json`), with stable keys."""
        data: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity,
            "path": self.path_text,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "hint": self.hint,
        }
        if self.certificate:
            data["certificate"] = self.certificate
        return data


def error(code: str, path: Path, message: str, hint: str = "", **certificate: Any) -> Finding:
    """Build an error-level finding (shorthand used by every rule)."""
    return Finding(code, "error", tuple(path), message, hint, certificate=certificate)


def warning(code: str, path: Path, message: str, hint: str = "", **certificate: Any) -> Finding:
    """Build a warning-level finding."""
    return Finding(code, "warning", tuple(path), message, hint, certificate=certificate)


def info(code: str, path: Path, message: str, hint: str = "", **certificate: Any) -> Finding:
    """Build an info-level finding."""
    return Finding(code, "info", tuple(path), message, hint, certificate=certificate)


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Order findings by file position, then severity, then code, deterministically.

    Findings without a line sort after those with one, so the report reads
    top to bottom through the YAML file.
    """

    def key(item: Finding) -> tuple[str, int, int, int, str, str, str]:
        return (
            item.file or "",
            item.line if item.line is not None else 10**9,
            item.column or 0,
            SEVERITY_ORDER[item.severity],
            item.code,
            item.path_text,
            item.message,
        )

    return sorted(set(findings), key=key)


def has_errors(findings: Iterable[Finding]) -> bool:
    """True when any finding is error-level."""
    return any(item.is_error for item in findings)


def summarize(findings: Iterable[Finding]) -> dict[str, int]:
    """Count findings per severity, always with all three keys."""
    counts = {"error": 0, "warning": 0, "info": 0}
    for item in findings:
        counts[item.severity] += 1
    return counts
