"""docs/online.md's IAM policy is exactly the actions `validate --online` calls."""

from __future__ import annotations

import json
import re
from pathlib import Path

from railyard.checks import ONLINE_MODULES
from railyard.online.account import READ_ONLY_CALLS

DOC = Path(__file__).resolve().parents[2] / "docs" / "online.md"


def test_the_documented_policy_grants_exactly_the_calls_railyard_makes():
    [block] = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    [statement] = json.loads(block)["Statement"]
    assert statement["Action"] == sorted(set(READ_ONLY_CALLS.values()))


def test_every_online_finding_code_is_documented():
    text = DOC.read_text()
    assert [code for module in ONLINE_MODULES for code in module.CODES if f"`{code}`" not in text] == []
