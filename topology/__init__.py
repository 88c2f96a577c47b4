"""The topology checker (under construction by the topology work; this interface is the contract).

`check_design(blueprint, catalog) -> DesignReport`: build the design graph and
run every check; `DesignReport.findings` are `Finding`s, `as_json()` the
figures `validate --json` prints, `tables()` the human tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from blueprints.findings import Finding


@dataclass
class DesignReport:
    """Findings and figures from checking one blueprint's design graph."""

    findings: list[Finding] = field(default_factory=list)
    figures: dict = field(default_factory=dict)

    def as_json(self) -> dict:
        """Figures for `validate --json`: fabrics, power, blast_radius, storage."""
        return dict(self.figures)

    def tables(self) -> list[tuple[str, list[str], list[list]]]:
        """Human tables: (title, headers, rows)."""
        return []


def check_design(blueprint, catalog) -> DesignReport:
    """Check a validated blueprint's design graph."""
    return DesignReport()
