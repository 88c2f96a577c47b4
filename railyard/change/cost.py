"""What a change costs: each priced line's hourly figure before and after, and the totals, beside the accelerator change.

Lines are matched by their key (a pool by its name, a storage tier by its name, the system nodes, the
root volumes, the NAT gateways, the control plane), so a pool added shows its whole hourly cost, a
pool removed its saving, and a resized pool the difference. A line unpriced on either side is shown
as unknown, never as a change of zero.
"""

from __future__ import annotations

from typing import Any

from blueprints.records import record
from railyard.change.before_after import BeforeAfter
from topology.cost import CostLine, CostReport, cents


@record
class CostDelta:
    """One line's hourly cost before and after (None: absent on that side); `unknown` when either side is unpriced."""

    key: str
    item: str
    old_hourly_usd: float | None
    new_hourly_usd: float | None
    unknown: bool

    @property
    def delta_usd(self) -> float | None:
        """The hourly change; None when a side's price is unknown."""
        if self.unknown:
            return None
        return (self.new_hourly_usd or 0.0) - (self.old_hourly_usd or 0.0)

    @property
    def what(self) -> str:
        """added, removed or changed."""
        if self.old_hourly_usd is None and not self.unknown:
            return "added"
        if self.new_hourly_usd is None and not self.unknown:
            return "removed"
        return "changed"

    def summary(self, hours_per_month: int) -> str:
        """The impact cell: the hourly change and what it makes a month."""
        if self.delta_usd is None:
            return f"cost change unknown, a side's price is missing: {self.item}"
        monthly = self.delta_usd * hours_per_month
        return f"{self.delta_usd:+,.2f} USD/h ({monthly:+,.0f} USD a month of {hours_per_month} h): {self.item}, {self.what}"

    def as_json(self) -> dict[str, Any]:
        """The line for `diff --json`: what happened to it, and its hourly figure before, after and the change."""
        return {"key": self.key, "item": self.item, "what": self.what, "hourly_usd": BeforeAfter(*self._sides()).as_json(cents)}

    def _sides(self) -> tuple[float | None, float | None]:
        """Both sides' hourly figures as the change reads them: a side without the line is 0 when both are priced;
        with a side unpriced, the figures stay as they are (None where unpriced or absent) and the change is unknown."""
        if self.unknown:
            return self.old_hourly_usd, self.new_hourly_usd
        return self.old_hourly_usd or 0.0, self.new_hourly_usd or 0.0


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
        """(subject, impact) rows for the diff's impact table: each line whose hourly figure moved (totals are `totals`)."""
        hours = self.new.hours_per_month
        return [(f"cost: {delta.key}", delta.summary(hours)) for delta in self.deltas]

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


def _priced(line: CostLine | None) -> bool:
    return line is None or not line.unknown


def cost_change(old: CostReport, new: CostReport) -> CostChange:
    """The lines whose hourly cost differs between two reports (in the new report's order, removed lines last)."""
    before = {line.key: line for line in old.lines}
    after = {line.key: line for line in new.lines}
    keys = [line.key for line in new.lines] + [key for key in before if key not in after]
    deltas = []
    for key in keys:
        was, now = before.get(key), after.get(key)
        unknown = not (_priced(was) and _priced(now))
        old_usd = None if was is None else was.hourly_usd
        new_usd = None if now is None else now.hourly_usd
        if not unknown and round(old_usd or 0.0, 4) == round(new_usd or 0.0, 4) and (was is None) == (now is None):
            continue
        if unknown and was is not None and now is not None and (was.unknown, was.basis) == (now.unknown, now.basis):
            continue  # unpriced alike, for the same quantity, on both sides: nothing changed
        line = now if now is not None else was
        assert line is not None  # every key comes from one side or the other
        deltas.append(CostDelta(key, line.item, old_usd, new_usd, unknown))
    return CostChange(tuple(deltas), old, new)
