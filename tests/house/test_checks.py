"""`make check` can fail: the linter refuses likely bugs, mypy a wrong type, zizmor an unpinned workflow.

`make test` runs `make check` first, so CI fails on a lint, format or workflow finding;
these tests show each tool, with the project's own configuration, rejecting a bad input
and accepting the tree.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_refuses_an_unused_import_and_a_zip_without_strict(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef pairs(a, b):\n    return list(zip(a, b))\n")
    completed = _ruff("check", "--config", str(ROOT / "pyproject.toml"), "--no-cache", str(bad))
    assert completed.returncode == 1
    assert "F401" in completed.stdout and "B905" in completed.stdout


def test_the_tree_is_clean_and_formatted():
    assert _ruff("check", "--no-cache", ".").returncode == 0
    assert _ruff("format", "--check", ".").returncode == 0


def test_mypy_refuses_a_wrong_type_in_a_strict_package_and_accepts_the_tree(tmp_path):
    # A module placed in a strict package (so the strict override applies), checked with the project's configuration.
    probe = ROOT / "topology" / "_mypy_probe.py"
    probe.write_text("def nodes(count: int) -> int:\n    return str(count)\n\n\ndef untyped(x):\n    return x\n")
    try:
        refused = subprocess.run([sys.executable, "-m", "mypy", str(probe)], cwd=ROOT, capture_output=True, text=True)
    finally:
        probe.unlink()
    assert refused.returncode == 1
    assert "[return-value]" in refused.stdout and "[no-untyped-def]" in refused.stdout
    accepted = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert accepted.returncode == 0, accepted.stdout


def test_zizmor_refuses_an_unpinned_action_with_persisted_credentials(tmp_path):
    workflow = tmp_path / "bad.yml"
    workflow.write_text("on: pull_request\npermissions: {}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n")
    zizmor = [str(BIN / "zizmor"), "--offline", "--min-severity", "high"]
    refused = subprocess.run([*zizmor, str(workflow)], capture_output=True, text=True)
    assert refused.returncode != 0 and "unpinned-uses" in refused.stdout
    accepted = subprocess.run([*zizmor, str(ROOT / ".github" / "workflows")], capture_output=True, text=True)
    assert accepted.returncode == 0, accepted.stdout
