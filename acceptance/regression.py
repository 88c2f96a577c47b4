"""A fabric run held to its pool's measured baseline (acceptance/baseline.py): size by size, never across shapes.

Each size of 1 GiB and up:

| in the baseline | in the run | verdict |
| --- | --- | --- |
| yes | yes | `pass` when the run reaches (1 - tolerance) of the baseline, else `fail` |
| yes | no | `missing`, a failure: the sweep stopped short of it, or the size failed |
| no | yes | `new`, reported and not judged (the design line still judges it) |

The run passes when no size fails or is missing and at least one was compared. A baseline of another shape, or
without a run of this run's algorithm, is refused with the field that differs (`BaselineError`): comparing a
four-node run with a two-node baseline would judge the shape, not the fabric. Versions are not part of the
shape (catching what a new NCCL or aws-ofi-nccl release did is the point); a difference is noted beside the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acceptance.baseline import Baseline, BaselineError, Run, Shape
from acceptance.nccl import GIB
from acceptance.report import Check


@dataclass(frozen=True)
class SizeVerdict:
    """One size: the baseline's busbw and the run's (None where that side has none), and the verdict (see the module's table)."""

    size_bytes: int
    baseline: float | None
    measured: float | None
    verdict: str

    @property
    def ratio(self) -> float | None:
        """measured / baseline, where both are there and the baseline is not zero."""
        if self.baseline and self.measured is not None:
            return self.measured / self.baseline
        return None

    def as_dict(self) -> dict[str, Any]:
        """The size's row for `--json`, the ratio to four places."""
        ratio = None if self.ratio is None else round(self.ratio, 4)
        return {"size_bytes": self.size_bytes, "baseline": self.baseline, "measured": self.measured, "ratio": ratio, "verdict": self.verdict}


@dataclass(frozen=True)
class Comparison:
    """A run held to a baseline's run of the same algorithm: every size's verdict, and notes on what differs but is not judged."""

    recorded: Run
    tolerance: float
    sizes: tuple[SizeVerdict, ...]
    notes: tuple[str, ...]

    @property
    def passed(self) -> bool:
        """True when at least one size was compared and none failed or is missing."""
        verdicts = {size.verdict for size in self.sizes}
        return "pass" in verdicts and not verdicts & {"fail", "missing"}

    def check(self, source: str) -> Check:
        """The comparison as the report's `fabric.baseline` check."""
        expected = f">= {1 - self.tolerance:.2f} x the {self.recorded.algorithm} run's busbw at each size ({_dated(self.recorded)})"
        judged = [f"{_size(size.size_bytes)} {_ratio(size)}" for size in self.sizes if size.verdict != "new"]
        observed = "; ".join(judged) or "no size in common"
        return Check("fabric.baseline", self.passed, expected, observed, source)

    def as_dict(self) -> dict[str, Any]:
        """The comparison for `--json`: the tolerance, the baseline run's provenance, every size's row and the notes."""
        run = self.recorded
        document: dict[str, Any] = {"passed": self.passed, "algorithm": run.algorithm, "tolerance": self.tolerance, "unit": run.unit}
        document["recorded"] = {"measured_on": run.measured_on, "dated_by": run.dated_by, "log_sha256": run.log_sha256}
        return document | {"sizes": [size.as_dict() for size in self.sizes], "notes": list(self.notes)}

    def as_text(self, source: str) -> str:
        """A table, one row per size: baseline, measured, ratio, verdict; then the notes. `source` names the baseline."""
        unit = self.recorded.unit
        share = f"{1 - self.tolerance:.2f}"
        lines = [f"baseline {source}: the {self.recorded.algorithm} run ({_dated(self.recorded)}); each size must reach {share} of it"]
        lines.append(f"  {'size':>8}  {'baseline ' + unit:>14}  {'measured ' + unit:>14}  {'ratio':>5}  verdict")
        for size in self.sizes:
            cells = [f"{value:g}" if value is not None else "-" for value in (size.baseline, size.measured)]
            ratio = f"{size.ratio:.2f}" if size.ratio is not None else "-"
            lines.append(f"  {_size(size.size_bytes):>8}  {cells[0]:>14}  {cells[1]:>14}  {ratio:>5}  {_VERDICTS[size.verdict]}")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


_VERDICTS = {
    "pass": "pass",
    "fail": "FAIL",
    "missing": "FAIL: in the baseline, not in this run",
    "new": "new: not in the baseline, not judged against it",
}


def compare(baseline: Baseline, shape: Shape, run: Run, tolerance: float) -> Comparison:
    """Hold `run` (of `shape`) to the baseline's run of its algorithm; `BaselineError` for another shape or a missing algorithm."""
    differences = baseline.shape.differences(shape)
    if differences:
        raise BaselineError(f"was measured on another shape ({'; '.join(differences)}); record this shape's own baseline")
    recorded = baseline.runs.get(run.algorithm)
    if recorded is None:
        held = ", ".join(sorted(baseline.runs))
        raise BaselineError(f"holds no {run.algorithm} run (it holds: {held}); record one with --record-baseline")
    before, now = dict(recorded.busbw), dict(run.busbw)
    sizes = tuple(_verdict(size, before.get(size), now.get(size), tolerance) for size in sorted(before.keys() | now.keys()))
    notes = []
    for what, old, new in (("libraries", recorded.library, run.library), ("transport", recorded.transport, run.transport)):
        if old != new:
            notes.append(f"{what}: {old or 'not named'} in the baseline, {new or 'not named'} in this run")
    return Comparison(recorded, tolerance, sizes, tuple(notes))


def _verdict(size: int, baseline: float | None, measured: float | None, tolerance: float) -> SizeVerdict:
    if baseline is None:
        return SizeVerdict(size, None, measured, "new")
    if measured is None:
        return SizeVerdict(size, baseline, None, "missing")
    return SizeVerdict(size, baseline, measured, "pass" if measured >= (1 - tolerance) * baseline else "fail")


def _ratio(size: SizeVerdict) -> str:
    return f"{size.ratio:.2f}" if size.ratio is not None else size.verdict


def _size(size_bytes: int) -> str:
    return f"{size_bytes / GIB:g} GiB"


def _dated(run: Run) -> str:
    when = f"measured {run.measured_on}, dated by {run.dated_by}" if run.measured_on else "not dated"
    return f"{when}; log sha256 {run.log_sha256[:12]}"
