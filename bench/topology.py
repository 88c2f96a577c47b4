"""Benchmark: `validate` end to end, from 1,024 to 1,048,576 accelerators, against bare networkx edge insertion.

    python -m bench.topology [--sizes 1024,16384,131072,1048576] [--repeats 5] [--shape few-big|many-small|many-mixed]

Two shapes of design. `few-big` (the default): for each size a blueprint is generated (p5en.48xlarge hosts of 8 GPUs, 2 NICs
per GPU on 8 rails, 200 Gb/s links, a rail-optimized Clos with the smallest
radix of 64/128/256 that holds it, racks of 4 hosts, blocks of 256 racks, an
FSx tier sized for the pool's reads) and written to a temporary file. A fresh
child process imports railyard, loads the catalog, calls
`railyard.pipeline.validate` (YAML load, schema, rules and `check_design`)
once cold, then `--repeats` more times, and reports the cold call, the median
of the others and its peak RSS (`getrusage` of the child). Another fresh child times inserting one edge per accelerator (the
accelerator-host edge) into an empty `networkx.Graph`: the floor no checker
that puts every accelerator in a networkx graph can beat. Prints a markdown table.

`many-mixed`: about 780 pools of 22, 21 and 20 hosts of two eight-GPU types (p5en and p6-b300, turn by turn), dealt
one host per pool per rack; each pool gets its own per-pool figures (connectivity, hops, a max-flow bisection). Its
floor is the explicit graph's edges, as for `many-small`; the goal is validate at most 1.5x that.

`many-small`: the same fabric and racks shared by hundreds of team pools of
22 and 11 hosts (every eighth pool is the small one), each spread over the
racks, so pools interleave rack by rack, with CNI custom networking and the
quotas such a cluster declares. Its floor is inserting every edge of the
design's explicit graph (`topology.expand.expand_fabric`: every host,
accelerator, NIC and switch) into an empty `networkx.Graph`; the goal is
validate at most 1x that.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_SIZES = (1024, 16384, 131072, 1048576)
HOSTS_PER_RACK, RACKS_PER_BLOCK, GPUS_PER_HOST = 4, 256, 8


def radix_for(accelerators: int) -> int:
    """The smallest radix of 64, 128, 256 whose three-tier rail-optimized Clos holds the ports (one plane)."""
    from blueprints.fabric_math import clos_max_endpoints, uniform_tier_shapes

    ports = accelerators * 2
    return next(radix for radix in (64, 128, 256, 512) if clos_max_endpoints(uniform_tier_shapes(radix, 3), 3) >= ports * 1.25)


def blueprint_yaml(accelerators: int) -> str:
    """A valid blueprint of `accelerators` p5en GPUs on a rail-optimized Clos."""
    hosts = accelerators // GPUS_PER_HOST
    racks = math.ceil(hosts / HOSTS_PER_RACK)
    blocks = [min(RACKS_PER_BLOCK, racks - first) for first in range(0, racks, RACKS_PER_BLOCK)]
    capacity = math.ceil(accelerators * 20 / 8 / 1000 * 1024 / 2400) * 2400
    groups = sum(math.ceil(count * HOSTS_PER_RACK / 450) for count in blocks)
    pod_blocks = min(49, math.ceil(groups / 16) + 1)  # sixteen /20 pod subnets per /16
    lines = [
        "version: 1",
        "metadata: {name: bench, environment: bench, owner: bench, cost_center: cc-bench}",
        "cloud: {kind: aws, region: us-east-1, availability_zones: [us-east-1a, us-east-1b], vpc_cidr: 10.0.0.0/16}",
        "failure_domains:",
        "  zones:",
        "    - name: site",
        "      availability_zone: us-east-1a",
        "      blocks:",
    ]
    lines += [
        f"        - {{name: b{index:04d}, racks: {count}, hosts_per_rack: {HOSTS_PER_RACK}, power_feeds: 4}}" for index, count in enumerate(blocks)
    ]
    lines += [
        "fabrics:",
        f"  - {{name: rails, kind: rail_optimized_clos, link_gbps: 200, switch_radix: {radix_for(accelerators)}, nics_per_accelerator: 2,",
        "     max_switch_hops: {same_rail: 5, cross_rail: 5}, min_bisection_gbps_per_accelerator: 200}",
        "pools:",
        "  - name: train",
        "    instance_type: p5en.48xlarge",
        "    role: training",
        f"    nodes: {hosts}",
        "    placement: {domains: [site], spread: racks, max_failure_share: 0.1}",
        "    fabric: rails",
        "    storage: [{tier: lustre, read_mbps_per_accelerator: 2, checkpoint: {size_gib: 1000, max_write_seconds: 900}}]",
        "storage:",
        f"  - {{kind: fsx_lustre, name: lustre, deployment_type: PERSISTENT_2, capacity_gib: {capacity},"
        " throughput_mbps_per_tib: 1000, metadata: {mode: automatic}}",
        "power: {pue: 1.2, rack_budget_kw: 50}",
        "kubernetes: {device_plugins: [{kind: nvidia_device_plugin}, {kind: efa_device_plugin}], layer_stack: separate,",
        "             endpoint: {private_access_cidrs: [10.0.0.0/16]},",
        # Custom networking, as a design this size needs: a /20 of pod addresses per node group of up to 450.
        "             pod_networking: {mode: custom_networking, pods_per_node: 8, minimum_ip_target: 8, warm_ip_target: 0,",
        f"                              pod_cidrs: [{', '.join(f'100.{64 + index}.0.0/16' for index in range(pod_blocks))}]}}}}",
    ]
    return "\n".join(lines) + "\n"


def team_pools_yaml(accelerators: int, sizes_in_turn: tuple[int, ...], types: tuple[str, ...], interfaces_per_host: int) -> str:
    """A valid blueprint of `accelerators` GPUs carved into team pools that share every rack: pool i has the i-th size and
    type in turn (the last pool what is left), each spread over the racks, with the quotas such a cluster declares
    (`interfaces_per_host`: network interfaces a host of these types may attach, for the Region's quota)."""
    hosts = accelerators // GPUS_PER_HOST
    sizes: list[int] = []
    while sum(sizes) < hosts:
        sizes.append(min(sizes_in_turn[len(sizes) % len(sizes_in_turn)], hosts - sum(sizes)))
    head = blueprint_yaml(accelerators)
    lines = head[: head.index("pools:\n")].splitlines()
    lines.append("pools:")
    for index, size in enumerate(sizes):
        lines += [
            f"  - {{name: team-{index:04d}, instance_type: {types[index % len(types)]}, role: training, nodes: {size}, fabric: rails,",
            "     placement: {domains: [site], spread: racks, max_failure_share: 0.5}}",
        ]
    pod_blocks = max(2, math.ceil(len(sizes) / 200))  # a /24 of pod addresses per team's node group
    groups = len(sizes) + 2
    lines += [
        "power: {pue: 1.2, rack_budget_kw: 50}",
        "kubernetes: {device_plugins: [{kind: nvidia_device_plugin}, {kind: efa_device_plugin}], layer_stack: separate,",
        "             endpoint: {private_access_cidrs: [10.0.0.0/16]},",
        "             pod_networking: {mode: custom_networking, pods_per_node: 8, minimum_ip_target: 8, warm_ip_target: 0,",
        f"                              pod_cidrs: [{', '.join(f'100.{64 + index}.0.0/16' for index in range(pod_blocks))}]}}}}",
        # Subnets per VPC, network interfaces per Region, managed node groups per cluster, as raised for this design.
        f"quotas: {{L-407747CB: {groups + 16}, L-DF5E4CA3: {hosts * interfaces_per_host}, L-6D54EA21: {groups}}}",
    ]
    return "\n".join(lines) + "\n"


def many_pools_yaml(accelerators: int) -> str:
    """A valid blueprint of `accelerators` p5en GPUs carved into team pools of 22 and 11 hosts (every eighth pool the small one)."""
    return team_pools_yaml(accelerators, (22,) * 7 + (11,), ("p5en.48xlarge",), 20)


MIXED_TYPES = ("p5en.48xlarge", "p6-b300.48xlarge")


def many_mixed_yaml(accelerators: int) -> str:
    """A valid blueprint of `accelerators` GPUs in small pools of two eight-GPU types (H200 and B300), dealt one host per pool per rack.

    Pools of 22, 21 and 20 hosts (turn by turn) take the two types in turn, each spread over the racks, so a rack of four
    holds one host of each of four pools, of both types: issue 44's shape, where every pool is its own per-pool check.
    """
    return team_pools_yaml(accelerators, (22, 21, 20), MIXED_TYPES, 34)


SHAPES = {"few-big": blueprint_yaml, "many-small": many_pools_yaml, "many-mixed": many_mixed_yaml}


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_validate(accelerators: int, repeats: int, shape: str = "few-big") -> dict:
    """In a fresh process: median seconds of `validate` on the generated blueprint, its peak RSS and graph size."""
    from blueprints.catalog import load_catalog
    from railyard.pipeline import validate

    load_catalog()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "bench.yaml"
        path.write_text(SHAPES[shape](accelerators))
        start = time.perf_counter()
        result = validate(str(path))
        first = time.perf_counter() - start
        times, cpu = [], []
        for _ in range(repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            result = validate(str(path))
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    fabric = result.as_json()["fabrics"][0]
    errors = [finding.code for finding in result.findings if finding.is_error]
    return {
        "seconds": statistics.median(times),
        "cpu_seconds": statistics.median(cpu),
        "first_seconds": first,
        "peak_mib": _peak_mib(),
        "errors": errors,
        "graph": fabric["graph"],
        "tiers": fabric["tiers"],
        "radix": fabric["switch_radix"],
        "pools": len(result.blueprint.pools),
    }


def _explicit_edges(accelerators: int, shape: str) -> list:
    """Every edge of the many-small design's explicit graph (the fabric `expand_fabric` rebuilds), as a list."""
    from blueprints.catalog import load_catalog
    from blueprints.loader import load_text
    from topology.design import build_design
    from topology.expand import expand_fabric

    loaded = load_text(SHAPES[shape](accelerators), "bench.yaml")
    design = build_design(loaded.blueprint, load_catalog())
    return list(expand_fabric(design.fabrics[0].graph).edges())


def child_floor(accelerators: int, repeats: int, shape: str = "few-big") -> dict:
    """In a fresh process: median seconds to insert the floor's edges into an empty Graph.

    few-big: one accelerator-host edge per accelerator; many-small: every edge of the explicit design graph.
    """
    import networkx as nx

    if shape != "few-big":
        edges = _explicit_edges(accelerators, shape)
    else:
        edges = [(accelerator, accelerators + accelerator // GPUS_PER_HOST) for accelerator in range(accelerators)]
    times, cpu = [], []
    for _ in range(repeats):
        graph = nx.Graph()
        start, start_cpu = time.perf_counter(), time.process_time()
        graph.add_edges_from(edges)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        del graph
    return {"seconds": statistics.median(times), "cpu_seconds": statistics.median(cpu), "peak_mib": _peak_mib(), "edges": len(edges)}


def _run_child(role: str, accelerators: int, repeats: int, shape: str) -> dict:
    command = [sys.executable, "-m", "bench.topology", "--child", role, "--sizes", str(accelerators), "--repeats", str(repeats), "--shape", shape]
    output = subprocess.run(command, check=True, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1]).stdout
    return json.loads(output)


def table(rows: list[dict], shape: str = "few-big") -> str:
    """The markdown table of results (the floor: one edge per accelerator, or the explicit design's edges).

    Wall-clock medians, and the same medians in CPU seconds (`time.process_time`): on a shared machine the wall clock
    counts the time other processes hold the cores, the CPU seconds only the work.
    """
    floor = "edge floor s" if shape == "few-big" else "explicit-edge floor s"
    lines = [
        "| accelerators | pools | tiers (radix) | graph nodes / edges (explicit design) | validate first s | "
        f"validate median s | validate peak MiB | {floor} | ratio | floor peak MiB | CPU s validate / floor | CPU ratio |",
        "| ---: | ---: | :---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        graph = row["validate"]["graph"]
        lines.append(
            f"| {row['accelerators']:,} | {row['validate']['pools']:,} | {row['validate']['tiers']} ({row['validate']['radix']}) | "
            f"{graph['nodes']:,} / {graph['edges']:,} ({graph['expanded_nodes']:,} / {graph['expanded_edges']:,}) | "
            f"{row['validate']['first_seconds']:.3f} | {row['validate']['seconds']:.3f} | "
            f"{row['validate']['peak_mib']:,.0f} | {row['floor']['seconds']:.3f} | "
            f"{row['validate']['seconds'] / row['floor']['seconds']:.2f} | {row['floor']['peak_mib']:,.0f} | "
            f"{row['validate']['cpu_seconds']:.3f} / {row['floor']['cpu_seconds']:.3f} | "
            f"{row['validate']['cpu_seconds'] / row['floor']['cpu_seconds']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (or, with --child, one measurement) and print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.topology", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(str(size) for size in DEFAULT_SIZES), help="accelerator counts, comma-separated")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per size (median reported)")
    parser.add_argument(
        "--shape",
        choices=sorted(SHAPES),
        default="few-big",
        help="few-big: one pool on the fabric; many-small: hundreds of interleaved team pools; many-mixed: the same of two types (default few-big)",
    )
    parser.add_argument("--child", choices=("validate", "floor"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    if args.child:
        measure = child_validate if args.child == "validate" else child_floor
        print(json.dumps(measure(sizes[0], args.repeats, args.shape)))
        return 0
    rows = []
    for accelerators in sizes:
        row = {
            "accelerators": accelerators,
            "validate": _run_child("validate", accelerators, args.repeats, args.shape),
            "floor": _run_child("floor", accelerators, args.repeats, args.shape),
        }
        if row["validate"]["errors"]:
            print(f"warning: {accelerators:,} accelerators: validate reported {row['validate']['errors']}", file=sys.stderr)
        rows.append(row)
        print(f"measured {accelerators:,} accelerators", file=sys.stderr)
    print(
        f"python -m bench.topology --sizes {args.sizes} --repeats {args.repeats} --shape {args.shape}   "
        f"({sys.platform}, Python {sys.version.split()[0]})\n"
    )
    print(table(rows, args.shape))
    return 0


if __name__ == "__main__":
    sys.exit(main())
