"""The package's pins: the runtime pins of `pyproject.toml` equal `requirements.txt`.

The wheel itself, installed and run outside the checkout, is tested in `tests/house/test_wheel.py`.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pins(lines) -> set[str]:
    return {line.strip() for line in lines if re.match(r"^[A-Za-z0-9_.-]+==", line.strip())}


def test_pyproject_runtime_pins_equal_requirements_txt():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert set(project["dependencies"]) == _pins((ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines())
    policy_pins = _pins((ROOT / "policies" / "requirements.txt").read_text(encoding="utf-8").splitlines())
    assert set(project["optional-dependencies"]["policies"]) <= policy_pins
