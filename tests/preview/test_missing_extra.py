"""Without the `policies` extra, the commands that need the pack say which extra to install, instead of a traceback.

`pip install .` (the README's package install) leaves out pulumi-policy and
Cerberus; `railyard preview --policies` used to end in `ModuleNotFoundError:
pulumi_policy`. The tests hide the modules from `importlib.util.find_spec`, as
an environment without them would.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

import railyard.extras
from railyard.cli import main

EXAMPLE = str(Path(__file__).resolve().parents[2] / "blueprints" / "examples" / "dev-g6e.yaml")


@pytest.fixture
def without_pack(monkeypatch):
    real = railyard.extras.find_spec
    monkeypatch.setattr(railyard.extras, "find_spec", lambda name: None if name == "pulumi_policy" else real(name))


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def test_preview_with_policies_names_the_extra_and_exits_2_before_previewing(without_pack):
    status, out, err = run("preview", EXAMPLE, "--policies")
    assert status == 2 and out == ""
    assert err.strip().startswith("railyard preview: --policies needs the policy pack's requirements (pulumi_policy not installed)")
    assert "pip install 'railyard[policies]'" in err and "Traceback" not in err


def test_rules_lists_the_finding_codes_and_says_the_policies_are_left_out(without_pack):
    status, out, err = run("rules", "--json")
    listed = json.loads(out)
    assert status == 0 and listed and all(entry["stage"] != "police" for entry in listed)
    assert "policy pack's rules are not listed" in err and "[policies]" in err


def test_with_the_pack_installed_rules_lists_the_policies_too():
    status, out, _ = run("rules", "--json")
    assert status == 0 and any(entry["stage"] == "police" for entry in json.loads(out))
