"""Time the offline policy run: `python -m bench.policies [BLUEPRINT] [--runs N]`.

Previews the blueprint once under Pulumi mocks (as `railyard preview` does),
then runs every rule of the pack over its resources N times and prints the
median, with the preview's own time for context. The default blueprint is
the largest example, rail-131k.yaml (16,384 nodes, 131,072 GPUs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Run as a script, this directory would come first and `import policies` would find this file.
sys.path[:] = [str(ROOT)] + [entry for entry in sys.path if Path(entry or ".").resolve() != ROOT / "bench"]

from policies.registry import RULES  # noqa: E402
from policies.runner import run_policies  # noqa: E402
from railyard.mocked import run_preview  # noqa: E402

DEFAULT_BLUEPRINT = ROOT / "blueprints" / "examples" / "rail-131k.yaml"


def main(argv: list[str] | None = None) -> int:
    """Preview once, time the policy run `--runs` times, print the median."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("blueprint", nargs="?", default=str(DEFAULT_BLUEPRINT))
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = run_preview(args.blueprint)
    preview_seconds = time.perf_counter() - started
    if not result.ok:
        print(f"{args.blueprint} does not preview; run `python -m railyard validate {args.blueprint}`", file=sys.stderr)
        return 1
    timings = []
    for _ in range(args.runs):
        started = time.perf_counter()
        report = run_policies(result)
        timings.append(time.perf_counter() - started)
    print(f"blueprint: {args.blueprint}")
    print(f"resources: {len(result.resources)}, rules: {len(RULES)}, violations: {len(report.violations)} {sorted(report.rule_ids()) or ''}")
    for note in report.notes:
        print(f"note: {note}")
    print(f"preview: {preview_seconds:.2f} s (once)")
    print(
        f"policy run: median {statistics.median(timings) * 1000:.1f} ms over {args.runs} runs "
        f"(min {min(timings) * 1000:.1f} ms, max {max(timings) * 1000:.1f} ms)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
