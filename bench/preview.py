"""Benchmark: the offline preview costs the same for 16,384 nodes as for 2.

    python -m bench.preview [--repeat N]

Resources grow with node groups (pools x failure domains, split under EKS's
nodes-per-group quota), never with nodes, so the time per registered resource
of the 16,384-node rail-131k example (18 node groups) and of the same
blueprint cut to 2 nodes (3) should be about the same. Every case runs in
this one process, after one warm-up run (imports, catalog), round-robin, and
the median of `--repeat` runs is reported with the resource count.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from railyard.mocked import run_preview
from railyard.render import table

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "blueprints" / "examples"


def _rail_project(directory: Path) -> Path:
    """A throwaway project with two cluster stacks of rail-131k: `big` as written, `small` cut to 2 nodes.

    Both are cluster stacks (the example applies its Kubernetes layer from a stack of its own), so the
    two cases register the same resources.
    """
    blueprint = f"config:\n  railyard:blueprint: {EXAMPLES / 'rail-131k.yaml'}\n"
    (directory / "Pulumi.big.yaml").write_text(blueprint)
    (directory / "Pulumi.small.yaml").write_text(
        blueprint + "  railyard:overrides:\n    pools: [{name: frontier, nodes: 2, placement: {max_failure_share: 1.0}}]\n"
    )
    return directory


def _timed(path: str | None, stack: str | None, project_dir: Path):
    """(seconds, result) of one preview."""
    start = time.perf_counter()
    result = run_preview(path, stack, project_dir)
    return time.perf_counter() - start, result


def main(argv: list[str] | None = None) -> int:
    """Run every case and print a table of medians."""
    parser = argparse.ArgumentParser(prog="python -m bench.preview", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="previews per case; the median is reported (default 9)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        rail = _rail_project(Path(scratch))
        cases = [
            ("rail-131k cut to 2 nodes (stack small)", None, "small", rail),
            ("rail-131k (16,384 p5en, stack big)", None, "big", rail),
            ("p5-capacity-block, stack dev (2 p5)", None, "dev", ROOT),
            ("p5-capacity-block (64 p5)", str(EXAMPLES / "p5-capacity-block.yaml"), None, ROOT),
            ("heterogeneous (3 pools, 5 node groups)", str(EXAMPLES / "heterogeneous.yaml"), None, ROOT),
        ]
        run_preview(str(EXAMPLES / "dev-g6e.yaml"))  # warm-up: imports and the catalog
        times: dict[str, list[float]] = {label: [] for label, *_ in cases}
        results = {}
        # Round-robin, so drift in machine load hits every case alike.
        for _ in range(args.repeat):
            for label, path, stack, project_dir in cases:
                seconds, results[label] = _timed(path, stack, project_dir)
                times[label].append(seconds)
        rows, medians, per_resource = [], {}, {}
        for label, *_ in cases:
            result = results[label]
            if not result.ok:
                raise SystemExit(f"{label}: the blueprint does not validate")
            nodes = sum(pool.max_nodes for pool in result.validation.blueprint.pools)
            medians[label] = statistics.median(times[label])
            per_resource[label] = medians[label] * 1000 / len(result.resources)
            rows.append([label, f"{nodes:,}", len(result.resources), f"{medians[label] * 1000:.0f}", f"{per_resource[label]:.1f}"])
    print(table(["case", "nodes", "resources", "median ms", "ms per resource"], rows))
    big, small = cases[1][0], cases[0][0]
    print(
        f"\n16,384 nodes vs 2 nodes of the same blueprint: {medians[big] / medians[small]:.2f}x the time for "
        f"{len(results[big].resources) / len(results[small].resources):.2f}x the resources; "
        f"{per_resource[big] / per_resource[small]:.2f}x the time per resource "
        f"(median of {args.repeat} runs each, one process, Python {sys.version.split()[0]})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
