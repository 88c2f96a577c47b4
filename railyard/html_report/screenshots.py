"""`python -m railyard.html_report.screenshots [OUTDIR]`: every example's report and a screenshot of it (`make screenshots`)."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

from railyard.html_report import build_report
from railyard.html_report.browser import Browser

ROOT = Path(__file__).resolve().parents[2]
# Planned as of a fixed moment, so Capacity Block sizing in the placement table doesn't move with the day.
AT = datetime(2026, 11, 24, tzinfo=UTC)


def main(argv: list[str]) -> int:
    """Write OUTDIR/<example>.html and .png for each example; exit 1 if any page logs an error."""
    out = Path(argv[0] if argv else "build/reports")
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    with Browser() as browser:
        for example in sorted((ROOT / "blueprints" / "examples").glob("*.yaml")):
            page, _ = build_report(str(example), project_dir=ROOT, now=AT)
            html_path = out / f"{example.stem}.html"
            html_path.write_text(page, encoding="utf-8")
            loaded = browser.load(html_path, out / f"{example.stem}.png")
            problems = loaded.console_errors + loaded.page_errors
            failed += bool(problems)
            print(f"{'FAIL' if problems else 'ok  '} {html_path} ({loaded.svgs} pictures){': ' + '; '.join(problems) if problems else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
