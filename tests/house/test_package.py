"""railyard installs as a package: `pip install .` gives a `railyard` command that works outside the checkout.

The build runs offline (`--no-build-isolation`, with the setuptools the dev
requirements pin) into a scratch directory, and the installed command then
validates and previews an example from a directory where the checkout is not
importable. The runtime pins of `pyproject.toml` equal `requirements.txt`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from railyard import __version__

ROOT = Path(__file__).resolve().parents[2]


def _pins(lines) -> set[str]:
    return {line.strip() for line in lines if re.match(r"^[A-Za-z0-9_.-]+==", line.strip())}


def test_pyproject_runtime_pins_equal_requirements_txt():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert set(project["dependencies"]) == _pins((ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines())
    policy_pins = _pins((ROOT / "policies" / "requirements.txt").read_text(encoding="utf-8").splitlines())
    assert set(project["optional-dependencies"]["policies"]) <= policy_pins


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path_factory.mktemp("build"),
    )
    return target


def _railyard(installed: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PYTHONPATH"] = str(installed)  # the installed copy; the dependencies come from this interpreter
    return subprocess.run([str(installed / "bin" / "railyard"), *args], env=env, cwd=cwd, capture_output=True, text=True)


def test_the_installed_command_reports_its_version(installed, tmp_path):
    completed = _railyard(installed, "--version", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == f"railyard {__version__}"


def test_the_installed_command_validates_and_previews_outside_the_checkout(installed, tmp_path):
    example = installed / "blueprints" / "examples" / "dev-g6e.yaml"
    validated = _railyard(installed, "validate", str(example), cwd=tmp_path)
    assert validated.returncode == 0, validated.stderr
    assert validated.stdout.strip().endswith("ok: no errors")
    where = subprocess.run(
        [sys.executable, "-c", "import railyard, topology; print(railyard.__file__, topology.__file__)"],
        env={**os.environ, "PYTHONPATH": str(installed)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert all(path.startswith(str(installed)) for path in where.stdout.split())
    previewed = _railyard(installed, "preview", str(example), "--json", cwd=tmp_path)
    assert previewed.returncode == 0, previewed.stderr
    assert '"aws:eks/cluster:Cluster"' in previewed.stdout
