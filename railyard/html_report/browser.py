"""Loading a report in a real headless Chromium (Debian's `chromium` package), for the tests and `make screenshots`.

Playwright drives the browser the machine has (`RAILYARD_CHROMIUM`, else `chromium` on
PATH); it downloads none. What a page said on the console and any script error it
raised come back with the figures a test looks for.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import field
from pathlib import Path

from blueprints.records import record

__all__ = ["Browser", "BrowserError", "Loaded", "chromium_path", "load"]


class BrowserError(RuntimeError):
    """No Chromium to drive."""


@record
class Loaded:
    """What the browser saw: console messages and page errors, counts of the page's main parts, and the ids of the
    blast-radius chart's bars and tolerance ticks as rendered (`bar-<pool>-<kind>-<state>`, `tolerance-<pool>-<kind>`)."""

    console_errors: list[str]
    page_errors: list[str]
    svgs: int
    sections: list[str]
    figures: dict[str, str]
    # The page's width as laid out (`scrollWidth`), and each identified table's right edge, in CSS pixels.
    scroll_width: int = 0
    table_right_px: dict[str, float] | None = None
    # The blast-radius chart's bars and tolerance ticks as rendered (`bar-<pool>-<kind>-<state>`, `tolerance-<pool>-<kind>`).
    drawn: list[str] = field(default_factory=list)


def chromium_path() -> str:
    """The Chromium to drive: $RAILYARD_CHROMIUM, else `chromium` on PATH."""
    found = os.environ.get("RAILYARD_CHROMIUM") or shutil.which("chromium")
    if not found:
        raise BrowserError("no Chromium: install Debian's package (apt-get install chromium) or set RAILYARD_CHROMIUM")
    return found


class Browser:
    """One headless Chromium, started once, that loads pages one after another, each in a fresh offline context."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        try:
            self._browser = self._playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        except BaseException:
            self._playwright.stop()
            raise

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the browser and Playwright's driver."""
        try:
            self._browser.close()
        finally:
            self._playwright.stop()

    def load(self, page_path: Path, screenshot: Path | None = None, width: int = 1280) -> Loaded:
        """Open `page_path` from disk in a window `width` CSS pixels wide, with the network blocked, wait for it to load, and read it back."""
        console: list[str] = []
        errors: list[str] = []
        context = self._browser.new_context(viewport={"width": width, "height": 900}, offline=True)
        try:
            page = context.new_page()
            page.on("console", lambda message: console.append(message.text) if message.type == "error" else None)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(page_path.resolve().as_uri(), wait_until="load")
            svgs = page.evaluate("document.querySelectorAll('svg').length")
            sections = page.evaluate("Array.from(document.querySelectorAll('section[id]'), s => s.id)")
            figures = page.evaluate(
                "Object.fromEntries(Array.from(document.querySelectorAll('[data-figure]'), e => [e.dataset.figure, e.dataset.value]))"
            )
            scroll_width = page.evaluate("document.documentElement.scrollWidth")
            tables = page.evaluate(
                "Object.fromEntries(Array.from(document.querySelectorAll('table[id]'), t => [t.id, t.getBoundingClientRect().right]))"
            )
            drawn = page.evaluate('Array.from(document.querySelectorAll(\'#blast-chart [id^="bar-"], #blast-chart [id^="tolerance-"]\'), e => e.id)')
            if screenshot is not None:
                page.screenshot(path=str(screenshot), full_page=True)
        finally:
            context.close()
        return Loaded(console, errors, svgs, sections, figures, scroll_width, tables, drawn)


def load(page_path: Path, screenshot: Path | None = None) -> Loaded:
    """Open `page_path` in a browser of its own (`Browser` loads many in one)."""
    with Browser() as browser:
        return browser.load(page_path, screenshot)
