"""A design's cost as a record: its priced lines, the totals over the known ones, and what each total leaves out.

`topology.cost` builds it from the plan and the price tables; `validate`, `preview`, `diff` and the report read it.
A line whose price is unknown is never counted as zero: it is left out of the totals, and `left_out()` says why.
"""

from __future__ import annotations

from typing import Any

from blueprints.records import record

KINDS = ("on_demand", "capacity_reservation", "spot", "capacity_block", "system", "storage", "network", "control_plane")
TOTALS = ("hourly_usd", "hourly_at_max_usd", "monthly_usd", "upfront_usd")


@record
class CostLine:
    """One priced thing: USD per hour as planned (desired nodes) and at its largest, what it is paid upfront, and why.

    `hourly_usd` is None when its price is unknown (`unknown` says why); `upfront_usd` is None for a line with
    nothing upfront, or, with `upfront_unknown` saying why, for a Capacity Block whose upfront can't be known.
    `hint` is the fix for either: the `cost:` field that would give the price, or what else to set. `shared_with` names
    the pool whose line pays for the Capacity Block this line's pool shares (a spare on its served pool's block): such a
    line costs nothing more, and the totals and what they leave out are the paying line's.
    """

    key: str
    item: str
    kind: str
    path: tuple[str | int, ...]
    hourly_usd: float | None
    hourly_at_max_usd: float | None
    basis: str
    source: str = ""
    upfront_usd: float | None = None
    unknown: str = ""
    upfront_unknown: str = ""
    hint: str = ""
    shared_with: str = ""

    def as_json(self) -> dict[str, Any]:
        """The line for `validate --json`."""
        return {
            "key": self.key,
            "item": self.item,
            "kind": self.kind,
            "path": ".".join(str(part) for part in self.path),
            "hourly_usd": cents(self.hourly_usd),
            "hourly_at_max_usd": cents(self.hourly_at_max_usd),
            "upfront_usd": cents(self.upfront_usd),
            "basis": self.basis,
            "source": self.source,
            "unknown": self.unknown or None,
            "upfront_unknown": self.upfront_unknown or None,
            "hint": self.hint or None,
        }


@record
class LeftOut:
    """One line a total leaves out, and why."""

    key: str
    item: str
    why: str

    def as_json(self) -> dict[str, str]:
        """The entry for `validate --json`'s `cost.left_out`."""
        return {"key": self.key, "item": self.item, "why": self.why}


@record
class CostReport:
    """Every line of a design's cost, with totals over the known lines."""

    region: str
    hours_per_month: int
    lines: tuple[CostLine, ...]

    @property
    def hourly_usd(self) -> float:
        """USD per hour as planned, over the lines whose price is known."""
        return sum(line.hourly_usd or 0.0 for line in self.lines)

    @property
    def hourly_at_max_usd(self) -> float:
        """USD per hour with every pool at its largest, over the known lines."""
        return sum(line.hourly_at_max_usd or 0.0 for line in self.lines)

    @property
    def monthly_usd(self) -> float:
        """USD a month as planned, running all month: the known lines but Capacity Blocks (paid upfront for their window)."""
        return sum(line.hourly_usd or 0.0 for line in self.lines if line.kind != "capacity_block") * self.hours_per_month

    @property
    def upfront_usd(self) -> float | None:
        """What Capacity Blocks cost upfront, over the known lines; None when there are blocks and not one upfront is known."""
        blocks = [line.upfront_usd for line in self.lines if line.kind == "capacity_block" and not line.shared_with]
        if blocks and all(usd is None for usd in blocks):
            return None
        return sum(line.upfront_usd or 0.0 for line in self.lines)

    @property
    def unknown(self) -> tuple[CostLine, ...]:
        """The lines with no hourly price."""
        return tuple(line for line in self.lines if line.unknown)

    @property
    def unpriced(self) -> tuple[CostLine, ...]:
        """The lines with some figure unknown: the hourly price, or a Capacity Block's upfront."""
        return tuple(line for line in self.lines if line.unknown or line.upfront_unknown)

    def left_out(self) -> dict[str, tuple[LeftOut, ...]]:
        """For each total (TOTALS), the lines it leaves out and why: unpriced lines, and in the month, the blocks paid upfront."""
        hourly = tuple(LeftOut(line.key, line.item, f"unpriced: {line.unknown}") for line in self.unknown)
        blocks = tuple(
            LeftOut(line.key, line.item, "a Capacity Block is paid upfront for its window, so it is in the upfront total, not the month")
            for line in self.lines
            if line.kind == "capacity_block" and not line.unknown and not line.shared_with
        )
        monthly = _in_line_order(hourly + blocks, self.lines)
        upfront = tuple(
            LeftOut(line.key, line.item, f"upfront unknown: {line.upfront_unknown or line.unknown}")
            for line in self.lines
            if line.kind == "capacity_block" and line.upfront_usd is None
        )
        return {"hourly_usd": hourly, "hourly_at_max_usd": hourly, "monthly_usd": monthly, "upfront_usd": upfront}

    def by_kind(self) -> dict[str, float | None]:
        """Known USD per hour as planned, per kind (in KINDS order, kinds with nothing left out); None where no line of it is priced."""
        totals: dict[str, float | None] = {}
        for kind in KINDS:
            of_kind = [line.hourly_usd for line in self.lines if line.kind == kind]
            if of_kind:
                known = [usd for usd in of_kind if usd is not None]
                totals[kind] = sum(known) if known else None
        return totals

    def summary(self) -> list[str]:
        """One sentence per total, each saying what it leaves out and why (under validate's table, in preview's cost line)."""
        left_out = self.left_out()

        def leaves(total: str) -> str:
            items = left_out[total]
            return "" if not items else "; leaves out " + ", ".join(f"{item.item} ({_short(item.why)})" for item in items)

        blocks = any(line.kind == "capacity_block" for line in self.lines)
        upfront = f"{_money(self.upfront_usd)} for Capacity Blocks{leaves('upfront_usd')}" if blocks else "none (no Capacity Blocks)"
        return [
            f"per hour: {_money(self.hourly_usd)} as planned, {_money(self.hourly_at_max_usd)} at max size{leaves('hourly_usd')}",
            f"a month: {_money(self.monthly_usd)} ({self.hours_per_month} h){leaves('monthly_usd')}",
            f"upfront: {upfront}",
        ]

    def as_json(self) -> dict[str, Any]:
        """The `cost` section of `validate --json`."""
        return {
            "region": self.region,
            "currency": "USD",
            "hours_per_month": self.hours_per_month,
            "hourly_usd": cents(self.hourly_usd),
            "monthly_usd": cents(self.monthly_usd),
            "hourly_at_max_usd": cents(self.hourly_at_max_usd),
            "upfront_usd": cents(self.upfront_usd),
            "left_out": {total: [item.as_json() for item in items] for total, items in self.left_out().items()},
            "by_kind_hourly_usd": {kind: cents(usd) for kind, usd in self.by_kind().items()},
            "unknown": [line.item for line in self.unpriced],
            "lines": [line.as_json() for line in self.lines],
        }

    def table(self) -> tuple[str, list[str], list[list[str]]]:
        """The cost as a human table: (title, headers, rows), the totals last; `summary()` says what each total leaves out."""
        rows = [
            [
                line.item,
                line.kind,
                _money(line.hourly_usd),
                _money(line.hourly_at_max_usd),
                "unknown" if line.upfront_unknown else _money(line.upfront_usd, blank=True),
                "; ".join(part for part in (line.unknown or line.basis, line.upfront_unknown) if part),
            ]
            for line in self.lines
        ]
        unpriced = len(self.unpriced)
        blocks = any(line.kind == "capacity_block" for line in self.lines)
        rows.append(
            [
                "total of the priced lines",
                "",
                _money(self.hourly_usd),
                _money(self.hourly_at_max_usd),
                _money(self.upfront_usd, blank=not blocks),  # with blocks and no upfront known: "unknown", never blank
                f"{unpriced} line(s) unpriced, not in these totals" if unpriced else "every line priced",
            ]
        )
        return f"cost, {self.region} (USD)", ["item", "kind", "per hour", "at max", "upfront", "basis"], rows


def _in_line_order(items: tuple[LeftOut, ...], lines: tuple[CostLine, ...]) -> tuple[LeftOut, ...]:
    order = {line.key: index for index, line in enumerate(lines)}
    return tuple(sorted(items, key=lambda item: order[item.key]))


def _short(why: str) -> str:
    """The first clause of a reason (an unpriced line's with the first clause of why it is unpriced: "no source prices it",
    "not sold On-Demand in us-east-1"), for a one-line total; the full reason is on the line and in the JSON."""
    if why.startswith("a Capacity Block is paid upfront"):
        return "Capacity Block, paid upfront for its window"
    head, _, rest = why.partition(": ")
    if head == "unpriced" and rest:
        return f"unpriced: {rest.split(':', 1)[0]}"
    return why.split(":", 1)[0]


def cents(usd: float | None) -> float | None:
    """Dollars rounded to the cent for JSON; None (unknown) stays None."""
    return None if usd is None else round(usd, 2)


def _money(usd: float | None, blank: bool = False) -> str:
    if usd is None:
        return "" if blank else "unknown"
    return f"${usd:,.2f}"
