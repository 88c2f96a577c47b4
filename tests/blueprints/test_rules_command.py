"""`railyard rules` lists every finding code the source can emit, and no code it can't."""

from __future__ import annotations

import json
import re
from pathlib import Path

from policies.registry import RULES as POLICY_RULES
from railyard.checks import every_check
from railyard.cli import main

STAGE_PACKAGES = ("blueprints", "topology", "components", "railyard")
CODE = re.compile(
    r'"((?:yaml|schema|cloud|capacity|domain|fabric|pool|k8s|override|names|ref|efa|fsx|placement|topology|power|storage|compile|endpoint|quota|scale|network|online|addon|change|cost|conform|acceptance|plan|needs)\.[a-z][a-z-]*)"'
)


def codes_in_source() -> set[str]:
    """Every quoted `area.code` string in the stages' Python source."""
    found: set[str] = set()
    for package in STAGE_PACKAGES:
        for path in Path(package).rglob("*.py"):
            found |= set(CODE.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_code_in_the_source_is_listed_and_every_listed_code_exists():
    checks = every_check()
    pairs = [(check.code, check.owner) for check in checks]
    assert len(pairs) == len(set(pairs)), "a rule lists a code twice"
    assert {check.code for check in checks} == codes_in_source()


def test_rules_command_lists_codes_and_policies_by_stage(capsys):
    assert main(["rules", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    stages = {entry["stage"] for entry in entries}
    # Compiling raises no findings of its own: what could stop it is checked before it.
    assert stages == {"load", "check", "online", "diff", "conform", "plan", "police"}
    by_code = {entry["code"]: entry for entry in entries}
    assert by_code["fsx.capacity-step"]["owner"] == "blueprints.rules.fsx"
    assert by_code["topology.blast-radius"]["stage"] == "check"
    assert by_code["quota.exceeded"]["owner"] == "topology.cluster.quotas"
    assert by_code["COR004"]["enforcement"] == "mandatory"
    assert len([entry for entry in entries if entry["stage"] == "police"]) == len(POLICY_RULES)
