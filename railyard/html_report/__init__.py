"""`railyard report`: the design as one self-contained HTML page (pictures drawn with matplotlib).

`build_report(path)` validates the blueprint and takes the design graph
validation built (whenever the blueprint loaded cleanly, even if a design check
failed) and, when it validates, the compile plan's placement decisions, and
returns the page.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from railyard.html_report.page import render_page
from railyard.pipeline import validate
from railyard.program import plan_validated

__all__ = ["build_report"]


def build_report(path: str | None, stack: str | None = None, project_dir: str | Path = ".", now: datetime | None = None) -> tuple[str, bool]:
    """(the page, whether the blueprint validated). `now` is the planning time (Capacity Block sizing)."""
    now = now or datetime.now(UTC)
    validation = validate(path, stack, project_dir, at=now)
    # A blueprint that loaded cleanly has its design checked and its figures computed even when a check fails (a pool
    # over its blast-radius tolerance, a block over budget): the page draws them, so the failure is seen where it is.
    design = validation.design.design if validation.design is not None else None
    plan, _ = plan_validated(validation, now) if validation.ok else (None, [])
    decisions = plan.placements if plan is not None else ()
    return render_page(validation.as_json(), design, decisions), validation.ok
