"""The `Impact` record: one effect of a change on the running cluster, in its users' terms.

Apart from `railyard/change/impact.py`, which works the impacts out, so that modules it calls (the upgrade
order, the node-group steps) can make an `Impact` without importing it back: the import graph stays acyclic
(`tests/house/test_import_cycles.py`).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from blueprints.records import record


@record
class Impact:
    """One effect on the running cluster, in its users' terms, with the figures behind it."""

    kind: str
    subject: str
    summary: str
    figures: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict:
        """The impact's `--json` entry."""
        return {"kind": self.kind, "subject": self.subject, "summary": self.summary, "figures": self.figures}
