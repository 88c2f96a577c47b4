"""A check's verdict and the report of a whole node: what was expected, what was seen, and from which command."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Check:
    """One comparison of the design with the node.

    `name` is stable (`gpu.count`, `efa.devices`), so a failure can be told apart by name;
    `expected` and `observed` are plain words a person can read in an annotation; `source`
    names the command whose output was read (and the file it was recorded in).
    """

    name: str
    passed: bool
    expected: str
    observed: str
    source: str


@dataclass(frozen=True)
class Report:
    """Every check run on one node's evidence, and the ones left out with the reason."""

    checks: tuple[Check, ...]
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """True when at least one check ran and none failed: an empty report accepts nothing."""
        return bool(self.checks) and all(check.passed for check in self.checks)

    @property
    def failed(self) -> tuple[str, ...]:
        """The names of the failed checks, in the order they ran."""
        return tuple(check.name for check in self.checks if not check.passed)

    def as_dict(self) -> dict[str, Any]:
        """The report as a JSON-ready object: `passed`, `failed`, every check, and the checks skipped with the reason."""
        return {"passed": self.passed, "failed": list(self.failed), "checks": [asdict(check) for check in self.checks], "skipped": self.skipped}

    def as_json(self) -> str:
        """The report as sorted, indented JSON (the node annotation and `--json`)."""
        return json.dumps(self.as_dict(), indent=2, sort_keys=True)

    def as_text(self) -> str:
        """One line per check, `PASS`/`FAIL`, with the expectation, the observation and the command; then the verdict."""
        lines = [f"{'PASS' if c.passed else 'FAIL'}  {c.name}: expected {c.expected}; saw {c.observed}  [{c.source}]" for c in self.checks]
        lines += [f"SKIP  {name}: {why}" for name, why in sorted(self.skipped.items())]
        verdict = "ACCEPTED" if self.passed else f"REJECTED ({len(self.failed)} failed: {', '.join(self.failed) or 'no check ran'})"
        return "\n".join([*lines, verdict])


def printed(text: str) -> str:
    """What a command printed, in a few words for a report: its first non-empty line, cut at 120 characters."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return repr(line[:120]) if line else "nothing"


@dataclass
class Checks:
    """Collects the checks of one source file as they are made, and those left out with the reason."""

    source: str
    made: list[Check] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    def add(self, name: str, passed: bool, expected: str, observed: str) -> None:
        """Record one check read from this collector's source."""
        self.made.append(Check(name, passed, expected, observed, self.source))

    def skip(self, name: str, why: str) -> None:
        """Record a check that did not run, and why (its figure isn't in the expectation)."""
        self.skipped[name] = why
