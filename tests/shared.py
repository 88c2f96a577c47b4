"""What the suite's workers compute once between them: an example's preview, its report page.

`make test` runs the suite on every core (pytest-xdist), and each worker is its own process: a preview
cached with `functools.cache` was computed again by every worker whose tests asked for it (a second to
two each, a few dozen times a run). `shared(key, compute)` keeps one copy per run in a folder the
controller makes for the run (`tests/conftest.py`): the first worker to ask computes the value under a
lock on its key and stores it pickled; a worker asking later loads it, and one asking meanwhile waits for
it. Either way each process holds the value after, so a caller needs no cache of its own. Run without
workers (`pytest -n 0`, or one test), there is no folder and the value is just computed, once.

The values are deterministic (a preview is planned as of a fixed moment), so which worker computes one
changes nothing a test can see; a value is a fresh copy in each worker, as a computed one would be.
"""

from __future__ import annotations

import copyreg
import fcntl
import os
import pickle
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

FOLDER_OPTION = "railyard_shared_folder"
"""The key of the run's folder in each worker's `workerinput` (set by the controller in `tests/conftest.py`)."""

folder: Path | None = None
"""This worker's view of the run's folder; None when the suite runs in one process."""

_held: dict[str, Any] = {}
"""What this process has computed or loaded, by key: each value once per process, as `functools.cache` would."""


def _mapping_proxy(mapping: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    return types.MappingProxyType(mapping)


# railyard's frozen records hold read-only mappings (`MappingProxyType`), which pickle can't store by itself:
# it stores their contents and wraps them again on load.
copyreg.pickle(types.MappingProxyType, lambda proxy: (_mapping_proxy, (dict(proxy),)))


def shared(key: str, compute: Callable[[], T]) -> T:
    """`compute()`, computed by one worker of the run and loaded by the others, and held by each process after
    (`key` names the value: a file name)."""
    if key not in _held:
        _held[key] = compute() if folder is None else _computed_once(key, compute)
    held: T = _held[key]
    return held


def _computed_once(key: str, compute: Callable[[], T]) -> T:
    assert folder is not None
    stored = folder / f"{key}.pickle"
    with open(folder / f"{key}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also when `compute` raises
        if stored.exists():
            loaded: T = pickle.loads(stored.read_bytes())
            return loaded
        value = compute()
        partial = stored.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(partial, stored)
        return value
