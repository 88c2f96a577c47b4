"""A virtualenv holding exactly the policy pack's requirements, made offline from the test environment's own installs.

`pulumi policy publish` ships the pack's folder alone, and the Pulumi CLI runs
it in a virtualenv made from the pack's `requirements.txt`. Tests can't reach
PyPI, so this builds the same environment from what is already installed:
a fresh venv (no pip, no site packages) into whose site-packages every file
of every distribution the requirements need (followed through their own
requirements) is linked. Nothing else is importable there, railyard's own
packages least of all.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement


def closure(requirement_lines: list[str]) -> list[metadata.Distribution]:
    """The installed distributions the requirements need, their own requirements followed (no extras)."""
    pending = [Requirement(line) for line in requirement_lines]
    found: dict[str, metadata.Distribution] = {}
    while pending:
        requirement = pending.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = requirement.name.lower().replace("_", "-")
        if name in found:
            continue
        distribution = metadata.distribution(requirement.name)
        found[name] = distribution
        pending += [Requirement(line) for line in distribution.requires or ()]
    return [found[name] for name in sorted(found)]


def requirement_lines(path: Path) -> list[str]:
    """The requirement specifiers of a requirements file (comments and blank lines left out)."""
    lines = (line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line]


def make_venv(directory: Path, requirements: Path) -> Path:
    """A venv at `directory` with exactly `requirements` (and what they need) importable; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(directory)], check=True)
    site = directory / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    for distribution in closure(requirement_lines(requirements)):
        for file in distribution.files or ():
            if str(file).startswith(".."):
                continue  # console scripts outside site-packages
            source = Path(distribution.locate_file(file))
            target = site / file
            if source.exists() and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(source, target)
    return directory / "bin" / "python"


def isolated_env() -> dict[str, str]:
    """The environment a child in that venv runs with: no PYTHONPATH, no user site, bytecode not written."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1")
    return env
