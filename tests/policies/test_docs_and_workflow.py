"""The catalog table in docs/policies.md and the PR workflow stay in step with the pack."""

from __future__ import annotations

import re

import yaml

from policies.registry import RULES
from tests.policies.previews import ROOT

DOCS = (ROOT / "docs" / "policies.md").read_text()
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "pr.yml").read_text())


def _catalog_rows() -> dict[str, list[str]]:
    rows = {}
    for line in DOCS.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells and re.fullmatch(r"(SEC|COR|GOV)\d{3}", cells[0]):
            rows[cells[0]] = cells
    return rows


def test_the_docs_table_lists_every_rule_with_its_name_enforcement_kind_and_implementation():
    rows = _catalog_rows()
    assert set(rows) == {rule.id for rule in RULES}
    for rule in RULES:
        assert rows[rule.id][1:5] == [f"`{rule.name}`", rule.enforcement, rule.kind, rule.implementation]


def _steps(job: str) -> str:
    return "\n".join(step.get("run", "") + step.get("uses", "") for step in WORKFLOW["jobs"][job]["steps"])


def test_the_workflow_runs_tests_offline_policies_and_the_cloud_preview_only_with_credentials():
    assert "make test" in _steps("tests")  # the README's command: the checks, then the suite
    offline = _steps("offline-policies")
    assert 'python -m railyard preview "$blueprint" --policies' in offline
    assert 'python -m railyard preview --stack "$stack" --policies' in offline
    assert "insecure.yaml --policies; then" in offline
    cloud = WORKFLOW["jobs"]["pulumi-preview"]
    assert cloud["if"] == "needs.credentials.outputs.configured == 'true'"
    assert "--policy-pack policies" in _steps("pulumi-preview")


def test_the_workflow_pins_every_action_to_a_commit_and_keeps_no_credentials():
    uses = [step["uses"] for job in WORKFLOW["jobs"].values() for step in job.get("steps", []) if "uses" in step]
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", use) for use in uses), uses
    checkouts = [step for job in WORKFLOW["jobs"].values() for step in job.get("steps", []) if step.get("uses", "").startswith("actions/checkout@")]
    assert checkouts and all(step["with"]["persist-credentials"] is False for step in checkouts)
    cloud = WORKFLOW["jobs"]["pulumi-preview"]
    assert cloud["permissions"] == {"contents": "read", "id-token": "write", "pull-requests": "write"}
    assert "gh pr comment" in _steps("pulumi-preview")
    assert "aws-access-key-id" not in (ROOT / ".github" / "workflows" / "pr.yml").read_text()
