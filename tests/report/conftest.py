"""The report tests' shared fixture: one headless Chromium per test module."""

from __future__ import annotations

import pytest

from railyard.html_report.browser import Browser


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module's pages (each page gets a fresh offline context)."""
    with Browser() as opened:
        yield opened
