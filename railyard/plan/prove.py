"""Proving a candidate: its blueprint written to a file and run through `railyard validate`, policy verdict included.

The proof is the same `validate` a user runs (schema, rules, topology, the Kubernetes cross-layer checks,
the quota plan, cost and the policy pack's verdict under its defaults), so a candidate that survives is
one `validate` passes. An error rejects the candidate with `plan.not-proven`, quoting the first error.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from blueprints.findings import Finding
from blueprints.records import record
from railyard.pipeline import Pack, validate


@record
class Proof:
    """What `validate` said of a candidate: its errors, warnings and notes counted, the upfront it priced, the first error."""

    errors: int
    warnings: int
    notes: int
    upfront_usd: float | None
    first_error: Finding | None


def prove(path: Path, at: datetime) -> Proof:
    """Validate the blueprint file at `path`, priced as of `at`, under the policy pack's defaults."""
    result = validate(str(path), pack=Pack(), at=at)
    counts = {severity: sum(1 for finding in result.findings if finding.severity == severity) for severity in ("error", "warning", "info")}
    first = next((finding for finding in result.findings if finding.severity == "error"), None)
    if result.blueprint is None and first is None:
        first = result.findings[0] if result.findings else None
    upfront = None if result.cost is None else result.cost.upfront_usd
    return Proof(counts["error"] or (1 if result.blueprint is None else 0), counts["warning"], counts["info"], upfront, first)


def quoted(finding: Finding | None) -> str:
    """A finding in one line: code, path and message."""
    if finding is None:
        return "the blueprint did not load"
    path = ".".join(str(part) for part in finding.path)
    return f"{finding.code} at {path}: {finding.message}"
