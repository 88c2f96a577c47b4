"""The garbage collector's pace during railyard's batch work.

Validating a design, importing the Pulumi SDK and running a program under mocks allocate millions of
small objects that live until the command returns. With the collector's default first threshold (700
allocations) Python scans them over and over: about 15% of a many-pool `validate`, and five full
collections (about 0.7 s, a fifth of the run) in a cold `preview --policies` of the default example on
this project's machine. The threshold is raised for the block, as mypy does for its build, and the
caller's thresholds are restored after, so a long-lived process (a test run, a notebook) keeps its own.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

ALLOCATIONS_BETWEEN_COLLECTIONS = 100_000


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the block with the collector's first threshold raised (never lowered), then restore the caller's."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], ALLOCATIONS_BETWEEN_COLLECTIONS), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
