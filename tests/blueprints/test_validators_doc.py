"""docs/validators.md names only finding codes and policies that exist, and says something for every validator."""

from __future__ import annotations

import re
from pathlib import Path

from railyard.checks import every_check, every_policy

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "validators.md").read_text(encoding="utf-8")


def table_rows() -> list[list[str]]:
    rows = []
    for line in DOC.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `"):
            rows.append(cells)
    return rows


def test_every_code_and_policy_the_page_names_exists():
    known = {check.code for check in every_check()} | {policy["code"] for policy in every_policy()}
    named = set(re.findall(r"`([a-z0-9]+\.[a-z0-9-]+)`", DOC)) | set(re.findall(r"\b(?:SEC|COR|GOV)\d{3}\b", DOC))
    named = {code for code in named if not code.endswith((".py", ".go", ".md", ".yaml"))}
    assert named <= known, sorted(named - known)


def test_every_validator_has_a_verdict_and_the_counts_add_up():
    rows = table_rows()
    assert len(rows) >= 140
    verdicts = ("`", "SEC", "COR", "GOV", "compiled", "n/a")
    assert all(row[2].startswith(verdicts) for row in rows), [row for row in rows if not row[2].startswith(verdicts)]
    for peer, start, end in (
        ("ParallelCluster", "## AWS ParallelCluster", "## Google Cluster Toolkit"),
        ("Cluster Toolkit", "## Google Cluster Toolkit", "## In numbers"),
    ):
        section = DOC[DOC.index(start) : DOC.index(end)]
        verdict = [row[2] for row in table_rows() if f"| {row[0]} |" in section]
        counted = [
            len(verdict),
            sum(not v.startswith("n/a") for v in verdict),
            sum("`online." in v for v in verdict),
            sum(v.startswith("n/a") for v in verdict),
        ]
        [line] = [line for line in DOC.splitlines() if line.startswith(f"| {peer} |")]
        assert [int(cell) for cell in line.strip("|").split("|")[1:]] == counted, peer
