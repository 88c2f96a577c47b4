"""Loading a report in a real headless Chromium (Debian's `chromium` package), for the tests and `make screenshots`.

Playwright drives the browser the machine has (`RAILYARD_CHROMIUM`, else `chromium` on
PATH); it downloads none. What a page said on the console and any script error it
raised come back with the figures a test looks for.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BrowserError", "Loaded", "chromium_path", "load"]


class BrowserError(RuntimeError):
    """No Chromium to drive."""


@dataclass(frozen=True)
class Loaded:
    """What the browser saw: console messages and page errors, and counts of the page's main parts."""

    console_errors: list[str]
    page_errors: list[str]
    svgs: int
    sections: list[str]
    figures: dict[str, str]


def chromium_path() -> str:
    """The Chromium to drive: $RAILYARD_CHROMIUM, else `chromium` on PATH."""
    found = os.environ.get("RAILYARD_CHROMIUM") or shutil.which("chromium")
    if not found:
        raise BrowserError("no Chromium: install Debian's package (apt-get install chromium) or set RAILYARD_CHROMIUM")
    return found


def load(page_path: Path, screenshot: Path | None = None) -> Loaded:
    """Open `page_path` from disk with the network blocked, wait for it to load, and read it back."""
    from playwright.sync_api import sync_playwright

    console: list[str] = []
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        try:
            context = browser.new_context(viewport={"width": 1300, "height": 900}, offline=True)
            page = context.new_page()
            page.on("console", lambda message: console.append(message.text) if message.type == "error" else None)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(page_path.resolve().as_uri(), wait_until="load")
            svgs = page.evaluate("document.querySelectorAll('svg').length")
            sections = page.evaluate("Array.from(document.querySelectorAll('section[id]'), s => s.id)")
            figures = page.evaluate(
                "Object.fromEntries(Array.from(document.querySelectorAll('[data-figure]'), e => [e.dataset.figure, e.dataset.value]))"
            )
            if screenshot is not None:
                page.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
    return Loaded(console, errors, svgs, sections, figures)
