"""The diff tests compare edited copies with the same few examples: each example's side is previewed once a process,
and the pairs more than one test diffs are fixtures here.

`railyard.change.diff` previews both sides with `railyard.mocked.run_preview`; here that call is memoised on
what decides its result: the file (its resolved path, size, modification time and bytes, so a file edited in
place is previewed afresh), the stack, the project directory, the account's roles and the planning time.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import railyard.mocked
from tests.yaml_text import edited_copy

_REAL = railyard.mocked.run_preview
_SEEN: dict[tuple, object] = {}


def _memoised(path=None, stack=None, project_dir=".", account_roles=(), at=None):
    if path is None or stack is not None:
        return _REAL(path, stack, project_dir, account_roles, at)
    file = Path(path).resolve()
    data = file.read_bytes()
    status = file.stat()
    digest = hashlib.sha256(data).hexdigest()
    key = (str(file), status.st_size, status.st_mtime_ns, digest, str(Path(project_dir).resolve()), tuple(account_roles), at)
    if key not in _SEEN:
        _SEEN[key] = _REAL(path, stack, project_dir, account_roles, at)
    return _SEEN[key]


@pytest.fixture(autouse=True)
def _previews_once(monkeypatch):
    monkeypatch.setattr(railyard.mocked, "run_preview", _memoised)


DEV = Path(__file__).resolve().parents[2] / "blueprints" / "examples" / "dev-g6e.yaml"


@pytest.fixture
def dev_with_a_new_priced_pool(tmp_path) -> tuple[Path, Path]:
    """dev-g6e (old) and the same with a pool `eval` of two g6e.xlarge added (new), each in a folder of its own.

    dev-g6e runs in us-west-2, where railyard's On-Demand table has no rates: both sides declare them
    (g6e.xlarge 1.861 and m7i.xlarge 0.2016 USD an hour).
    """
    priced = ("kubernetes:", "cost:\n  instance_usd_per_hour: {g6e.xlarge: 1.861, m7i.xlarge: 0.2016}\nkubernetes:")
    pool = (
        "  - name: eval\n    instance_type: g6e.xlarge\n    role: dev\n"
        "    nodes: {min: 0, max: 2, desired: 2}\n    placement:\n      domains: [usw2a]\n"
    )
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old = edited_copy(DEV, tmp_path / "old", priced)
    new = edited_copy(DEV, tmp_path / "new", priced, ("storage:\n  - ", pool + "storage:\n  - "))
    return old, new
