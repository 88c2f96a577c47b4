"""`make run` gives its virtualenv the `railyard` command, so the README's commands work in it as written."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_run_installs_the_checkout_into_the_virtualenv_before_it_runs():
    # -n prints what make would run without running it, -B as if nothing were built yet: the command is installed
    # before the job runs.
    planned = subprocess.run(["make", "-n", "-B", "run"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines()
    install = next(index for index, line in enumerate(planned) if "pip install" in line and "--editable ." in line)
    job = next(index for index, line in enumerate(planned) if "-m railyard preview" in line)
    assert install < job
    assert "--no-deps" in planned[install] and "--no-index" in planned[install]
    assert "touch .venv/bin/railyard" in planned
