"""Every test runs under pytest-timeout (pytest.ini), so a test that never ends fails the run instead of hanging it."""

from __future__ import annotations

import configparser
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LOOPING = """
def test_loops_for_ever():
    while True:
        pass


def test_ends():
    assert True
"""


def test_the_suite_has_a_default_timeout():
    settings = configparser.ConfigParser()
    settings.read(ROOT / "pytest.ini")
    assert settings["pytest"]["timeout_method"] == "signal"
    assert 0 < float(settings["pytest"]["timeout"]) <= 600


def test_a_looping_test_fails_within_the_timeout_and_the_run_goes_on(tmp_path):
    # The project's own pytest.ini, with a 2 s limit instead of the suite's: the loop fails, the next test still runs.
    # pytest's own start-up on a loaded machine is what the subprocess's 240 s allow for; a hang would exceed it.
    (tmp_path / "test_loop.py").write_text(LOOPING)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(ROOT / "pytest.ini"), "--rootdir", str(tmp_path)]
    completed = subprocess.run([*command, "--timeout", "2", str(tmp_path / "test_loop.py")], capture_output=True, text=True, timeout=240)
    assert completed.returncode == 1, completed.stdout
    assert "Failed: Timeout (>2.0s) from pytest-timeout" in completed.stdout
    assert "1 failed, 1 passed" in completed.stdout
    assert "test_loop.py::test_loops_for_ever" in completed.stdout
    # The session's own time (collection and both tests, not the interpreter's start): the loop was cut at its limit.
    session = re.search(r"1 failed, 1 passed in ([0-9.]+)s", completed.stdout)
    assert session is not None and float(session.group(1)) < 60


def test_a_looping_test_fails_under_xdist_too(tmp_path):
    (tmp_path / "test_loop.py").write_text(LOOPING)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(ROOT / "pytest.ini"), "--rootdir", str(tmp_path)]
    completed = subprocess.run([*command, "-n", "1", "--timeout", "2", str(tmp_path / "test_loop.py")], capture_output=True, text=True, timeout=240)
    assert completed.returncode == 1, completed.stdout
    assert "Failed: Timeout (>2.0s) from pytest-timeout" in completed.stdout
    assert "1 failed, 1 passed" in completed.stdout
