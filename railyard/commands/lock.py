"""`railyard lock FILE [--stack ENV] [--layout stable|legacy] [--write]`: pin the plan's subnet ranges.

A deployed subnet can't move without being replaced with everything in it, so
the ranges a plan resolves are written down once (`cloud.subnet_cidrs`) and
honoured afterwards, the way a lockfile pins versions. Without `--write` the
block to paste is printed; with it, the blueprint (or, with `--stack`, the
stack file's `railyard:overrides`) gets it in place. `--layout legacy` pins the
ranges railyard planned before pins existed (up to a5a8388), which is how a
cluster deployed from that plan adopts this one with no subnet replaced.
"""

from __future__ import annotations

import sys
from pathlib import Path

from railyard.address_lock import LockWriteError, pins_block, set_pins, zoned_pins
from railyard.commands.arguments import add_file_arguments
from railyard.pipeline import validate
from railyard.render import findings_report
from railyard.stack import OVERRIDES_KEY, stack_file

NAME = "lock"
HELP = "Pin the plan's subnet ranges (cloud.subnet_cidrs) so later changes never move a deployed subnet."


def add_arguments(parser) -> None:
    """FILE, --stack, --project-dir, --layout, --write."""
    add_file_arguments(parser)
    parser.add_argument(
        "--layout",
        choices=("stable", "legacy"),
        default="stable",
        help="stable: today's plan (pinned ranges kept, new subnets in free space); legacy: the ranges railyard planned "
        "before pins existed, for a cluster deployed from them",
    )
    parser.add_argument("--write", action="store_true", help="write the pins into the blueprint (or the stack file's overrides)")


def run(args) -> int:
    """Validate, plan, then print or write the pins; a blueprint with errors pins nothing (exit 1)."""
    from blueprints.catalog import load_catalog
    from topology.cluster import plan_cluster

    result = validate(args.file, args.stack, args.project_dir)
    blueprint = result.load.blueprint
    if not result.ok or blueprint is None:
        print(findings_report(result.findings, result.load.source_map), file=sys.stderr)
        print("FAILED: fix the errors above; nothing pinned", file=sys.stderr)
        return 1
    if blueprint.cloud.existing_vpc is not None:
        print("nothing to pin: cloud.existing_vpc places the nodes in subnets the team already has", file=sys.stderr)
        return 0
    pins = zoned_pins(plan_cluster(blueprint, load_catalog(), layout=args.layout).subnets)
    target, keys = (stack_file(args.project_dir, args.stack), ("config", OVERRIDES_KEY, "cloud")) if args.stack else (Path(result.file), ("cloud",))
    if not args.write:
        print(f"# {len(pins)} subnets of {result.file}{f' (stack {args.stack})' if args.stack else ''}, {args.layout} layout: add under {target}")
        sys.stdout.write(pins_block(pins, keys))
        return 0
    try:
        target.write_text(set_pins(target.read_text(), keys, pins))
    except LockWriteError as exc:
        print(f"{target}: {exc}:\n{pins_block(pins, keys)}", file=sys.stderr)
        return 1
    print(f"pinned {len(pins)} subnets in {target} ({'.'.join(keys)}.subnet_cidrs)", file=sys.stderr)
    return 0
