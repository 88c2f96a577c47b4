"""`railyard export FILE --format slurm-tree|slurm-block|topograph [-o PATH]`: the design's topology for a scheduler."""

from __future__ import annotations

import sys
from pathlib import Path

from railyard.commands.arguments import add_file_arguments
from railyard.pipeline import validate
from railyard.render import findings_report

NAME = "export"
HELP = "Write the design's network topology for a scheduler: Slurm topology.conf (tree or block plugin) or a topograph model."


def add_arguments(parser) -> None:
    """FILE, --stack, --project-dir, --format, -o."""
    add_file_arguments(parser)
    parser.add_argument(
        "--format",
        required=True,
        choices=("slurm-tree", "slurm-block", "topograph"),
        help="slurm-tree / slurm-block: topology.conf for that Slurm plugin; topograph: an NVIDIA topograph model YAML",
    )
    parser.add_argument("-o", "--output", help="write here instead of standard output")


def run(args) -> int:
    """Validate, then export; a blueprint with errors exports nothing (exit 1, with the findings)."""
    from topology.exports import export, exported_pools

    result = validate(args.file, args.stack, args.project_dir)
    if not result.ok or result.load.blueprint is None or result.design is None or result.design.design is None:
        print(findings_report(result.findings, result.load.source_map), file=sys.stderr)
        print("FAILED: fix the errors above; nothing exported", file=sys.stderr)
        return 1
    design = result.design.design
    text = export(design, args.format)
    covered = exported_pools(design, args.format)
    left = sorted(pool.name for pool in result.load.blueprint.pools if pool.name not in covered)
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    if left:
        print(f"note: pools {left} are left out: on no designed fabric (AWS's aws_efa network, or none) no switch holds them", file=sys.stderr)
    return 0
