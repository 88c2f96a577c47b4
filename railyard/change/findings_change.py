"""What `validate` says about the new side, and what changed in it against the old side.

A reviewer reads a diff instead of validating both files, so the diff carries the new side's findings
(errors and warnings listed, notes counted) and sorts them into those the change brings (new), those it
changes (changed: the same check at the same place, saying something else, such as a quota need of 2304
where it was 1152), those it leaves as they were (unchanged), and the old side's that it removes
(resolved).

A finding is the same on both sides when its code, severity and message match: its file and line are
left out, since the two sides are different files and an edit above a finding moves it without changing
it. Matching runs in three passes: on code, severity, message and blueprint path; then without the path,
so one whose pool moved in the list (`pools[2]` to `pools[3]`) is still the same finding; then on code,
severity and path alone, which pairs a finding whose message changed with the one it replaces.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from blueprints.findings import Finding, summarize
from blueprints.records import record

NEW = "new"
CHANGED = "changed"
UNCHANGED = "unchanged"
RESOLVED = "resolved"
LISTED = ("error", "warning")  # severities the reports list; notes are counted


def _with_path(finding: Finding) -> tuple:
    return (finding.code, finding.severity, finding.message, finding.path)


def _without_path(finding: Finding) -> tuple:
    return (finding.code, finding.severity, finding.message)


def _same_place(finding: Finding) -> tuple:
    return (finding.code, finding.severity, finding.path)


def _unmatched(findings: Sequence[Finding], others: Sequence[Finding], key: Callable[[Finding], tuple]) -> list[Finding]:
    """The findings with no partner among `others` under `key` (each partner matched once)."""
    left = Counter(key(finding) for finding in others)
    out = []
    for finding in findings:
        if left[key(finding)] > 0:
            left[key(finding)] -= 1
        else:
            out.append(finding)
    return out


@record
class FindingsChange:
    """The new side's findings, each marked new, changed or unchanged, and the old side's that the change resolves."""

    new_side: tuple[Finding, ...]
    added: tuple[Finding, ...]
    changed: tuple[Finding, ...]
    resolved: tuple[Finding, ...]

    def status(self, finding: Finding) -> str:
        """new, changed or unchanged, for one of the new side's findings."""
        return NEW if finding in self.added else CHANGED if finding in self.changed else UNCHANGED

    def listed(self) -> list[tuple[str, Finding]]:
        """(status, finding) for the errors and warnings a report lists: the new side's, then those resolved."""
        rows = [(self.status(finding), finding) for finding in self.new_side if finding.severity in LISTED]
        return rows + [(RESOLVED, finding) for finding in self.resolved if finding.severity in LISTED]

    def summary(self) -> str:
        """One line: the new side's counts, then what changed against the old side, per severity."""
        counts = summarize(self.new_side)
        return (
            f"the new side: {counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} note(s); "
            f"against the old side: new {_counted(self.added)}; changed {_counted(self.changed)}; resolved {_counted(self.resolved)}"
        )

    def as_json(self) -> dict[str, Any]:
        """`diff --json`'s `new_side_findings`: counts, every finding of the new side with its status, and those resolved."""
        return {
            "counts": summarize(self.new_side),
            "new": summarize(self.added),
            "changed": summarize(self.changed),
            "resolved": summarize(self.resolved),
            "findings": [{**finding.as_json(), "status": self.status(finding)} for finding in self.new_side],
            "resolved_findings": [finding.as_json() for finding in self.resolved],
        }


def _counted(findings: Sequence[Finding]) -> str:
    """`1 warning(s), 2 note(s)`, or `none`."""
    counts = summarize(findings)
    names = (("error", "error(s)"), ("warning", "warning(s)"), ("info", "note(s)"))
    words = [f"{counts[severity]} {name}" for severity, name in names if counts[severity]]
    return ", ".join(words) or "none"


def findings_change(old: Sequence[Finding], new: Sequence[Finding]) -> FindingsChange:
    """The new side's findings against the old side's: which are new or changed, and which of the old ones are gone."""
    unmatched_new, unmatched_old = list(new), list(old)
    for key in (_with_path, _without_path):
        unmatched_new, unmatched_old = _unmatched(unmatched_new, unmatched_old, key), _unmatched(unmatched_old, unmatched_new, key)
    added = _unmatched(unmatched_new, unmatched_old, _same_place)
    resolved = _unmatched(unmatched_old, unmatched_new, _same_place)
    changed = [finding for finding in unmatched_new if finding not in added]
    return FindingsChange(tuple(new), tuple(added), tuple(changed), tuple(resolved))
