"""The machine's own time zone set for one test, for the checker's stamps that must be UTC wherever it runs."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def machine_zone(zone: str) -> Iterator[None]:
    """The process's local time zone is `zone` (a POSIX TZ string such as `JST-9`: no zone database needed) inside."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()
