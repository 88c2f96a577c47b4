"""Previews shared across the emission tests: each example runs once per run, whichever worker asks (about a second each)."""

import hashlib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from railyard.mocked import run_preview
from tests.recorded import recorded
from tests.shared import shared

ROOT = Path(__file__).resolve().parents[2]
# Previews are planned as of this moment, so Capacity Block sizing doesn't change with the day the suite runs:
# a week before the examples' blocks start (2026-12-01).
AT = datetime(2026, 11, 24, tzinfo=UTC)


def previewed(path: str | None = None, stack: str | None = None):
    """The mocked preview of a blueprint file (or of a stack of this project) at AT: once per run for every module
    and worker (`tests/shared.py`), or recorded and read back where `RAILYARD_PREVIEWS` says (`tests/recorded.py`)."""
    # Keyed by the path inside the checkout, so a copy of it (mutation testing's) finds what the checkout recorded.
    named = str(Path(path).resolve().relative_to(ROOT)) if path is not None and Path(path).resolve().is_relative_to(ROOT) else path
    key = f"preview-{hashlib.sha256(repr((named, stack)).encode()).hexdigest()[:16]}"
    return shared(key, lambda: recorded(key, lambda: run_preview(path, stack, ROOT, at=AT)))


def preview_of(example: str | None = None, stack: str | None = None):
    """The preview of `blueprints/examples/<example>.yaml` (or of a stack of this project)."""
    return previewed(str(ROOT / "blueprints" / "examples" / f"{example}.yaml") if example else None, stack)


@pytest.fixture(scope="session")
def p5():
    return preview_of("p5-capacity-block")


@pytest.fixture(scope="session")
def hetero():
    return preview_of("heterogeneous")


@pytest.fixture(scope="session")
def dev_g6e():
    return preview_of("dev-g6e")


@pytest.fixture(scope="session")
def rail():
    return preview_of("rail-131k")


@pytest.fixture(scope="session")
def dev_stack():
    return preview_of(None, "dev")


def write_stack(directory: Path, stack: str, blueprint: str, overrides: str) -> Path:
    """A throwaway Pulumi project holding one stack file over an example blueprint."""
    text = f"config:\n  railyard:blueprint: {ROOT / 'blueprints' / 'examples' / blueprint}\n  railyard:overrides:\n{overrides}"
    (directory / f"Pulumi.{stack}.yaml").write_text(text)
    return directory
