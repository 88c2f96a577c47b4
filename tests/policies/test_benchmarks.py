"""docs/policies.md maps the security benchmarks to rules: every rule it names exists, every security rule is there.

The mapping's tables (CIS EKS, the EKS best-practices guide, Checkov, cfn-nag)
name a rule id, a railyard finding code, or say why an item doesn't apply; this
keeps the page and the pack in step as rules are added or renamed.
"""

from __future__ import annotations

import re

from policies.registry import RULES
from tests.policies.previews import ROOT

DOCS = (ROOT / "docs" / "policies.md").read_text(encoding="utf-8")
SECTION = DOCS[DOCS.index("## The security benchmarks, item by item") : DOCS.index("## How to add a rule")]
TABLES = (
    "### CIS Amazon EKS Benchmark v1.8.0",
    "### AWS EKS best-practices guide",
    "### Checkov\n",
    "### Checkov (Kubernetes objects)",
    "### cfn-nag",
)


def rows(table: str) -> list[list[str]]:
    body = SECTION[SECTION.index(table) :]
    body = body[: body.index("\n### ", 1)] if "\n### " in body[1:] else body
    found = []
    for line in body.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and not set(line) <= set("|- ") and cells[0] not in ("Item", "Recommendation (guide page)", "Check", "Rule"):
            found.append(cells)
    return found


def test_every_rule_the_mapping_names_exists():
    named = set(re.findall(r"\b(?:SEC|COR|GOV)\d{3}\b", SECTION))
    assert named <= {rule.id for rule in RULES}


def test_every_security_rule_answers_some_benchmark_item():
    named = set(re.findall(r"\bSEC\d{3}\b", SECTION))
    assert {rule.id for rule in RULES if rule.domain == "security"} <= named


def test_every_row_says_what_enforces_it_or_why_not():
    verdicts = ("SEC", "COR", "GOV", "validate", "compiled", "n/a", "not covered", "accepted deviation")
    for table in TABLES:
        table_rows = rows(table)
        assert len(table_rows) >= 10, table
        for cells in table_rows:
            enforced, why = cells[-2], cells[-1]
            assert enforced.startswith(verdicts) or any(verdict in enforced for verdict in verdicts), cells
            if enforced.startswith(("n/a", "not covered", "accepted deviation")):
                assert why, cells
