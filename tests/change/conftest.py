"""The diff tests compare edited copies with the same few examples: each example's side is previewed once a process.

`railyard.change.diff` previews both sides with `railyard.mocked.run_preview`; here that call is memoised on
what decides its result: the file (its resolved path, size, modification time and bytes, so a file edited in
place is previewed afresh), the stack, the project directory, the account's roles and the planning time.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import railyard.mocked

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
