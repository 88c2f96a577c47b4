"""What a change costs: each line's figures (per hour as planned, upfront) before and after, and the totals, beside the accelerator change.

Lines are matched by their key (a pool by its name, a storage tier by its name, the system nodes, the
root volumes, the NAT gateways, the control plane), so a pool added shows its whole cost, a pool removed
its saving, and a resized pool the difference. Each line's two figures are compared, per hour as
planned and upfront (a Capacity Block's window moved moves only the upfront), and its impact row says
which moved; spend at max size is among the ceilings (`railyard.change.ceilings`). A figure unknown
on either side is shown as unknown, never as a change of zero.
"""

from __future__ import annotations

from typing import Any

from blueprints.records import record
from railyard.change.before_after import BeforeAfter
from topology.cost_report import CostLine, CostReport, cents

FIGURES = (("hourly_usd", "USD/h"), ("upfront_usd", "USD upfront"))
"""The figures of a line a change compares, and how the impact row names each. Spend at max size is a ceiling, per pool
and in all (`railyard.change.ceilings`): raising `nodes.max` moves no cost at the planned size."""


def line_figure(line: CostLine | None, figure: str) -> float | None:
    """One of a line's figures as a change reads it: 0 where the line is absent or has nothing upfront, None where unknown."""
    if line is None:
        return 0.0
    value = getattr(line, figure)
    if value is not None:
        return float(value)
    block_unpriced = line.kind == "capacity_block" and bool(line.unknown)  # no rate, so no upfront either
    unknown = bool(line.unknown) if figure != "upfront_usd" else bool(line.upfront_unknown) or block_unpriced
    return None if unknown else 0.0


@record
class CostDelta:
    """One line's figures before and after (per hour as planned, and upfront), and what happened to the line.

    A figure unknown on either side has no change (None), never a change of zero; `requantified` says the line's
    quantity or reason moved, so an unknown figure still counts as moved (two more nodes of an unpriced type)."""

    key: str
    item: str
    what: str
    figures: tuple[BeforeAfter, BeforeAfter]
    requantified: bool = False

    @property
    def delta_usd(self) -> float | None:
        """The hourly change as planned; None when a side's price is unknown."""
        change = self.figures[0].change
        return None if change is None else float(change)

    def moved(self) -> tuple[str, ...]:
        """The figures that moved (FIGURES' names): known and different, or unknown on a side that changed."""
        return tuple(
            name for (name, _), figures in zip(FIGURES, self.figures, strict=True) if figures.moved or (figures.change is None and self.requantified)
        )

    def summary(self, hours_per_month: int, capacity_block: bool = False) -> str:
        """The impact cell: each figure that moved (the hourly one with what it makes a month, but for a Capacity Block,
        which is paid upfront), or that its change is unknown, then the line and what happened to it."""
        parts = []
        moved = self.moved()
        for (name, unit), figures in zip(FIGURES, self.figures, strict=True):
            if name not in moved:
                continue
            if figures.change is None:
                parts.append(f"{unit} change unknown, a side's price is missing")
                continue
            month = (
                "" if name != "hourly_usd" or capacity_block else f" ({figures.change * hours_per_month:+,.0f} USD a month of {hours_per_month} h)"
            )
            parts.append(f"{figures.change:+,.2f} {unit}{month}")
        return f"{'; '.join(parts)}: {self.item}, {self.what}"

    def as_json(self) -> dict[str, Any]:
        """The line for `diff --json`: what happened to it, which figures moved, and each figure before, after and the change."""
        document: dict[str, Any] = {"key": self.key, "item": self.item, "what": self.what, "moved": list(self.moved())}
        for (name, _), figures in zip(FIGURES, self.figures, strict=True):
            document[name] = figures.as_json(cents)
        return document


@record
class CostChange:
    """A change's cost: the lines whose hourly figure moved, and both sides' totals."""

    deltas: tuple[CostDelta, ...]
    old: CostReport
    new: CostReport

    @property
    def hourly_delta_usd(self) -> float:
        """The change in the known hourly total."""
        return self.new.hourly_usd - self.old.hourly_usd

    def rows(self) -> list[tuple[str, str]]:
        """(subject, impact) rows for the diff's impact table: each line a figure of which moved (totals are `totals`)."""
        hours = self.new.hours_per_month
        blocks = {line.key for report in (self.old, self.new) for line in report.lines if line.kind == "capacity_block"}
        return [(f"cost: {delta.key}", delta.summary(hours, delta.key in blocks)) for delta in self.deltas]

    def totals(self) -> list[tuple[str, str, BeforeAfter]]:
        """(key, what it is, figures) for both reports' totals, over their priced lines: per hour and a month as
        planned, upfront for Capacity Blocks (unknown where no block's upfront is), and how many lines have a figure
        unpriced (left out of the others; `CostReport.unpriced`)."""
        blocks = any(line.kind == "capacity_block" for report in (self.old, self.new) for line in report.lines)
        month = f"USD a month as planned ({self.new.hours_per_month} h" + ("; Capacity Blocks left out, paid upfront)" if blocks else ")")
        return [
            ("hourly_usd", "USD per hour as planned", BeforeAfter(self.old.hourly_usd, self.new.hourly_usd)),
            ("monthly_usd", month, BeforeAfter(self.old.monthly_usd, self.new.monthly_usd)),
            ("upfront_usd", "USD upfront for Capacity Blocks", BeforeAfter(self.old.upfront_usd, self.new.upfront_usd)),
            ("unpriced_lines", "lines unpriced, left out of the totals", BeforeAfter(len(self.old.unpriced), len(self.new.unpriced))),
        ]

    def as_json(self) -> dict[str, Any]:
        """The `cost` section of `diff --json`: the totals before, after and the change, then each moved line."""
        totals = {key: figures.as_json(cents) for key, _, figures in self.totals()}  # a count rounds to itself
        return {"currency": "USD", "hours_per_month": self.new.hours_per_month, "totals": totals, "lines": [delta.as_json() for delta in self.deltas]}


def _delta(key: str, was: CostLine | None, now: CostLine | None) -> CostDelta:
    """The change of one line: its three figures on both sides, and whether its quantity or reason moved."""
    figures = tuple(BeforeAfter(line_figure(was, name), line_figure(now, name)) for name, _ in FIGURES)
    what = "added" if was is None else "removed" if now is None else "changed"
    line = now if now is not None else was
    assert line is not None  # every key comes from one side or the other
    shape = [None if side is None else (side.unknown, side.upfront_unknown, side.basis) for side in (was, now)]
    return CostDelta(key, line.item, what, figures, shape[0] != shape[1])  # type: ignore[arg-type]


def cost_change(old: CostReport, new: CostReport) -> CostChange:
    """The lines a figure of which differs between two reports (in the new report's order, removed lines last)."""
    before = {line.key: line for line in old.lines}
    after = {line.key: line for line in new.lines}
    keys = [line.key for line in new.lines] + [key for key in before if key not in after]
    deltas = tuple(delta for delta in (_delta(key, before.get(key), after.get(key)) for key in keys) if delta.moved())
    return CostChange(deltas, old, new)
