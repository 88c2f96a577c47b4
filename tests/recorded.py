"""Previews recorded to files by one run of the tests and read back by a later one (`RAILYARD_PREVIEWS`).

Mutation testing (`tests/mutate.py`) forks each mutant's test run straight from mutmut's main process where
a group chooses to ("fork" isolation: warm imports, each mutant in a fraction of a second). A mocked preview
can't run in that main process: Pulumi's runtime leaves its executor threads and its gRPC machinery there,
and a forked child that previews again waits for threads that don't exist in it (seen: 27 minutes in epoll).
So the harness first runs the group's tests in the unmutated checkout with `RAILYARD_PREVIEWS=record:FOLDER`,
which stores every preview they ask for, and then runs mutmut with `RAILYARD_PREVIEWS=replay:FOLDER`, under
which a preview is only ever read back: one not recorded is an error, never a Pulumi run. Neither mutmut's
process nor its children then start Pulumi at all.

A replayed preview is exactly the one the tests would compute only where the mutated modules take no part in
compiling a preview (true of `policies/rules/`: the policy pack stands beside the compiler and nothing under
`railyard/` or `components/` calls a rule); a group that mutates what previews are made of must not replay.

Unset, previews are computed as always.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

VARIABLE = "RAILYARD_PREVIEWS"
MODES = ("record", "replay")


class NotRecorded(LookupError):
    """A replayed run asked for a preview the recording run never made."""


def setting(environ: dict[str, str] | None = None) -> tuple[str, Path] | None:
    """The mode and folder `RAILYARD_PREVIEWS` names (`record:FOLDER` or `replay:FOLDER`), or None when unset."""
    raw = (os.environ if environ is None else environ).get(VARIABLE, "")
    if not raw:
        return None
    mode, _, folder = raw.partition(":")
    if mode not in MODES or not folder:
        raise ValueError(f"{VARIABLE}={raw!r}: expected record:FOLDER or replay:FOLDER")
    return mode, Path(folder)


def recorded(key: str, compute: Callable[[], T], environ: dict[str, str] | None = None) -> T:
    """`compute()`, or its stored copy: stored under `key` when recording, read back (never computed) when replaying."""
    chosen = setting(environ)
    if chosen is None:
        return compute()
    mode, folder = chosen
    stored = folder / f"{key}.pickle"
    if mode == "replay":
        if not stored.exists():
            raise NotRecorded(f"{stored}: no recorded preview for {key}; record the tests' previews first ({VARIABLE}=record:{folder})")
        value: T = pickle.loads(stored.read_bytes())
        return value
    value = compute()
    folder.mkdir(parents=True, exist_ok=True)
    partial = stored.with_suffix(".partial")
    partial.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    os.replace(partial, stored)
    return value
