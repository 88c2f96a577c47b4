"""Progress on a terminal for the checks that take a while: one line on standard error, rewritten per stage.

Stages are announced wherever the work happens (`stage("checking topology")`);
they are shown only while a command has turned reporting on, which the CLI does
when standard error is a terminal and the output is not `--json`. So pipes, CI
logs and JSON consumers never see a progress byte.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator
from dataclasses import field
from typing import TextIO

from blueprints.records import record

__all__ = ["reporting", "stage"]


@record(frozen=False)
class _Reporter:
    stream: TextIO
    started: float = field(default_factory=time.monotonic)
    shown: bool = False

    def show(self, text: str) -> None:
        elapsed = time.monotonic() - self.started
        self.stream.write(f"\r\x1b[Krailyard: {text}... ({elapsed:.1f} s)")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


_CURRENT: contextvars.ContextVar[_Reporter | None] = contextvars.ContextVar("railyard_progress", default=None)


def stage(text: str) -> None:
    """Announce the stage now running (nothing happens unless reporting is on)."""
    reporter = _CURRENT.get()
    if reporter is not None:
        reporter.show(text)


@contextlib.contextmanager
def reporting(stream: TextIO, enabled: bool) -> Iterator[None]:
    """Show stages on `stream` while the block runs, when `enabled`; the line is erased at the end."""
    if not enabled:
        yield
        return
    reporter = _Reporter(stream)
    token = _CURRENT.set(reporter)
    try:
        yield
    finally:
        _CURRENT.reset(token)
        reporter.clear()


def wanted(stream: TextIO, json_output: bool) -> bool:
    """Progress is for people: a terminal, and not JSON."""
    return not json_output and stream.isatty()
