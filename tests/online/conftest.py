"""Fixtures for `validate --online`: moto's account (with reservations and quotas) and blueprints on disk."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from railyard.online import validate_online
from railyard.pipeline import Validation, validate
from tests.online.moto_account import MotoAccount, capacity_block, moto_account
from tests.yaml_text import edited_copy

ROOT = Path(__file__).resolve().parents[2]
P5 = ROOT / "blueprints" / "examples" / "p5-capacity-block.yaml"
HETEROGENEOUS = ROOT / "blueprints" / "examples" / "heterogeneous.yaml"
BLOCK_ID = "cr-0a1b2c3d4e5f60718"
BLOCK_START = datetime(2026, 12, 1, 11, 30, tzinfo=UTC)
BLOCK_END = datetime(2026, 12, 15, 11, 30, tzinfo=UTC)
# Inside the p5 example's block window: the block is active.
DURING = datetime(2026, 12, 2, tzinfo=UTC)
BEFORE = datetime(2026, 11, 24, tzinfo=UTC)


@pytest.fixture
def us_east_1(monkeypatch: pytest.MonkeyPatch) -> Iterator[MotoAccount]:
    """An empty moto account in us-east-1."""
    with moto_account("us-east-1", monkeypatch) as account:
        yield account


@pytest.fixture
def us_east_2(monkeypatch: pytest.MonkeyPatch) -> Iterator[MotoAccount]:
    """An empty moto account in us-east-2."""
    with moto_account("us-east-2", monkeypatch) as account:
        yield account


# AWS's defaults for the quotas the p5 example needs outside `vpc` (moto ships the `vpc` ones): the EKS
# and FSx service quota pages, and EC2's Elastic IP quota; Standard vCPUs are set per account.
P5_DEFAULTS = {("eks", "L-BD136A63"): 450, ("eks", "L-6D54EA21"): 30, ("ec2", "L-0263D0A3"): 5, ("fsx", "L-8F1B9C74"): 100800}
P5_APPLIED = {("ec2", "L-1216C47A"): 512}


@pytest.fixture
def p5_account(us_east_1: MotoAccount) -> MotoAccount:
    """us-east-1 holding exactly the p5 example's Capacity Block, active, with quotas that fit."""
    us_east_1.reserve(capacity_block(BLOCK_ID, "p5.48xlarge", "us-east-1a", 64, BLOCK_START, BLOCK_END))
    for (service, code), value in P5_DEFAULTS.items():
        us_east_1.default_quota(service, code, value)
    for (service, code), value in P5_APPLIED.items():
        us_east_1.apply_quota(service, code, value)
    return us_east_1


def checked(account: MotoAccount, path: Path = P5, now: datetime = DURING) -> tuple[Validation, Validation]:
    """The blueprint validated offline, then online against `account` at `now`: (offline, online)."""
    offline = validate(str(path))
    return offline, validate_online(offline, session=account.session(), now=now)


def added(offline: Validation, online: Validation) -> list[tuple[str, str, str]]:
    """(code, severity, path) of every finding the account added, sorted."""
    before = set(offline.findings)
    return sorted((finding.code, finding.severity, finding.path_text) for finding in online.findings if finding not in before)


def variant(tmp_path: Path, source: Path, *edits: tuple[str, str]) -> Path:
    """A copy of an example with each (old, new) snippet replaced once, written under `tmp_path`."""
    return edited_copy(source, tmp_path, *edits)
