"""How long the property suites run: `RAILYARD_FUZZ_SCALE` times their examples (`make fuzz` sets 10; `make test` 1)."""

from __future__ import annotations

import os

SCALE = max(1, int(os.environ.get("RAILYARD_FUZZ_SCALE", "1") or "1"))


def examples(count: int) -> int:
    """`count` Hypothesis examples, scaled for a longer run."""
    return count * SCALE
