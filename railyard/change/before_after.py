"""A figure on both sides of a change: the value before, the value after, and the change between them.

The diff's ceilings and cost totals are read the same way in text, Markdown and JSON: `before`, `after`
and `change` apart, never a change written beside a new total. A side that has no value (a pool added, a
price unknown) has None there, and then the change is None too: unknown is never a change of zero.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from blueprints.records import record

Number = int | float


@record
class BeforeAfter:
    """One figure before and after a change (None: that side has none, or it is unknown)."""

    before: Number | None
    after: Number | None

    @property
    def change(self) -> Number | None:
        """after - before; None when either side is None."""
        if self.before is None or self.after is None:
            return None
        return self.after - self.before

    @property
    def moved(self) -> bool:
        """True when the two sides differ (a value that appears, goes or is unknown on one side counts as moved)."""
        if self.before is None or self.after is None:
            return (self.before is None) != (self.after is None)
        return round(self.after - self.before, 6) != 0

    def rounded(self, rounding: Callable[[Any], Any]) -> BeforeAfter:
        """Both sides rounded (USD to the cent, for example), so the change is the difference of the figures shown:
        251.82 -> 503.65 changes by 251.83, though the unrounded change is 251.8234."""
        return BeforeAfter(rounding(self.before), rounding(self.after))

    def as_json(self, rounding: Callable[[Any], Any] = lambda value: value) -> dict[str, Any]:
        """`{"before", "after", "change"}`, the sides passed through `rounding` before the change is taken."""
        shown = self.rounded(rounding)
        return {"before": shown.before, "after": shown.after, "change": rounding(shown.change)}

    def cells(self, shown: Callable[[Number], str], signed: Callable[[Number], str]) -> list[str]:
        """The before, after and change cells of a table row; `-` where a side has no value."""
        before = "-" if self.before is None else shown(self.before)
        after = "-" if self.after is None else shown(self.after)
        change = "unknown" if self.change is None and self.moved else "-" if self.change is None else signed(self.change)
        return [before, after, change]
