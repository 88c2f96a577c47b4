"""Benchmark: what a cold `railyard validate` and `preview --policies` cost beyond the imports they can't avoid.

    python -m bench.coldstart [--repeats 15]

Each case is a fresh process, timed wall-clock against its floor, also a fresh
process, in one run, round-robin, so machine noise hits both alike:

* `railyard validate` of the smallest example against
  `python -c 'import pydantic, networkx, yaml'` (goal: at most 1.5x);
* `railyard preview --policies` of the default example against importing the
  pulumi-aws, pulumi-kubernetes and pulumi-policy modules that preview itself
  loads, found by running it once and listing the SDK modules it executed
  (goal: at most 1.2x).

`railyard` ends without the interpreter's teardown (`os._exit` after flushing, as mypy does;
`railyard/__main__.py`), which a floor process pays; so each floor is also timed ending the same
way, and the table gives the ratio to both.

Python's bytecode cache is allowed (`PYTHONDONTWRITEBYTECODE` is removed from
the children's environment and every command runs once before timing), which
is how a user's second run and an installed package behave. Prints a markdown
table of medians and ratios; with `--strict`, exits 1 when a ratio misses its goal.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "blueprints" / "examples"
DEFAULT_EXAMPLE = EXAMPLES / "p5-capacity-block.yaml"
SDK_PREFIXES = ("pulumi_aws", "pulumi_kubernetes", "pulumi_policy")

# Run inside a preview's process: the SDK modules it executed (a lazily imported module that was never
# touched is still a `_LazyModule` stub, and is left out).
_LOADED_SDK = """
import contextlib, io, json, sys, types
from railyard.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["preview", sys.argv[1], "--policies"])
loaded = sorted(name for name, module in sys.modules.items()
                if name.split(".")[0] in {prefixes!r} and type(module) is types.ModuleType)
print(json.dumps(loaded))
"""


@dataclass(frozen=True)
class Case:
    """A command, the floor it is measured against, and the goal for their ratio."""

    name: str
    command: list[str]
    floor_name: str
    floor: list[str]
    goal: float


def smallest_example() -> Path:
    """The example blueprint with the fewest bytes: the cheapest real validate."""
    return min(EXAMPLES.glob("*.yaml"), key=lambda path: (path.stat().st_size, path.name))


def child_env() -> dict[str, str]:
    """The environment children run in: bytecode caching allowed, the checkout importable."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def sdk_modules(example: Path) -> list[str]:
    """Every pulumi-aws, pulumi-kubernetes and pulumi-policy module a preview of `example` executes."""
    script = _LOADED_SDK.format(prefixes=set(SDK_PREFIXES))
    output = subprocess.run(
        [sys.executable, "-c", script, str(example)], env=child_env(), cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def cases() -> list[Case]:
    """The two cold-start cases."""
    python = sys.executable
    small = smallest_example()
    imports = sdk_modules(DEFAULT_EXAMPLE)
    return [
        Case(
            f"railyard validate {small.name}",
            [python, "-m", "railyard", "validate", str(small)],
            "import pydantic, networkx, yaml",
            [python, "-c", "import pydantic, networkx, yaml"],
            1.5,
        ),
        Case(
            f"railyard preview {DEFAULT_EXAMPLE.name} --policies",
            [python, "-m", "railyard", "preview", str(DEFAULT_EXAMPLE), "--policies"],
            f"import the {len(imports)} SDK modules preview executes",
            [python, "-c", "import " + ", ".join(imports)],
            1.2,
        ),
    ]


def timed(command: list[str]) -> float:
    """Seconds one fresh process takes, wall clock; a failing command is an error, not a time."""
    start = time.perf_counter()
    completed = subprocess.run(command, env=child_env(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if completed.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited {completed.returncode}: {completed.stderr.strip()[-400:]}")
    return elapsed


def without_teardown(floor: list[str]) -> list[str]:
    """The floor command ending as railyard does: `os._exit(0)` once its imports are done."""
    *head, code = floor
    return [*head, f"{code}; import os; os._exit(0)"]


def measure(all_cases: list[Case], repeats: int) -> list[tuple[Case, float, float, float]]:
    """(case, median seconds, median floor seconds, median floor seconds without teardown), every command warmed once,
    then round-robin."""
    commands = [command for case in all_cases for command in (case.command, case.floor, without_teardown(case.floor))]
    for command in commands:
        timed(command)
    samples: dict[int, list[float]] = {index: [] for index in range(len(commands))}
    for _ in range(repeats):
        for index, command in enumerate(commands):
            samples[index].append(timed(command))
    medians = [statistics.median(samples[index]) for index in range(len(commands))]
    return [(case, medians[3 * index], medians[3 * index + 1], medians[3 * index + 2]) for index, case in enumerate(all_cases)]


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table (exit 1 on a missed goal with --strict)."""
    parser = argparse.ArgumentParser(prog="python -m bench.coldstart", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="timed runs of each command; medians are reported (default 15)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a ratio misses its goal")
    args = parser.parse_args(argv)
    results = measure(cases(), args.repeats)
    print(f"cold start, median of {args.repeats} fresh processes each, side by side\n")
    print("| command | median | floor | floor median | ratio | goal | floor without teardown | ratio to it |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    missed = []
    for case, seconds, floor, bare in results:
        ratio = seconds / floor
        verdict = "met" if ratio <= case.goal else "MISSED"
        if ratio > case.goal:
            missed.append(case.name)
        print(
            f"| `{case.name}` | {seconds:.3f} s | `{case.floor_name}` | {floor:.3f} s | {ratio:.2f}x | <= {case.goal}x {verdict} "
            f"| {bare:.3f} s | {seconds / bare:.2f}x |"
        )
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
