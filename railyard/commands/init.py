"""`railyard init [EXAMPLE] [--output PATH] [--force] | --list`: a blueprint to start from, in the working folder.

The examples are read as package data (`importlib.resources`), the way a user who installed the wheel has them:
pyproject.toml's [tool.setuptools.package-data] ships blueprints/examples/*.yaml. The starter lives here as
text, so it ships with the module that writes it. Exit status 2 when nothing is written: the file exists (and no
--force), the example is unknown, or the path can't be written.
"""

from __future__ import annotations

import difflib
import sys
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

NAME = "init"
HELP = "Write a starter blueprint (or a shipped example) into the working folder; --list names the examples."
DEFAULT_OUTPUT = "railyard.yaml"
SUMMARY_WIDTH = 110

STARTER = """\
# A starter blueprint: one small GPU pool in an EKS cluster of its own VPC. `railyard validate railyard.yaml`
# checks it offline; `railyard explain CODE` says what a finding means; docs/reference.md in railyard's
# repository lists every field.
# `railyard init --list` names the shipped examples (EFA fabrics, Capacity Blocks, FSx for Lustre, Trainium).
# Before the first `pulumi up`: `railyard lock railyard.yaml --write` pins the subnets' ranges under
# cloud.subnet_cidrs, so no later change (a zone or a pool added) moves a subnet (docs/day2.md).
version: 1
metadata:
  name: my-cluster            # the EKS cluster's name and every resource's prefix: lowercase, digits, hyphens
  environment: dev
  owner: my-team              # tagged on every resource
  cost_center: cc-0000
cloud:
  kind: aws
  region: us-east-1
  availability_zones: [us-east-1a, us-east-1b]   # EKS needs subnets in two zones
  vpc_cidr: 10.0.0.0/16       # a new VPC; cloud.existing_vpc uses one you have
failure_domains:
  zones:                      # where pools may be placed (blocks and racks, when you know them, go under a zone)
    - name: use1a
      availability_zone: us-east-1a
pools:
  - name: gpu
    instance_type: g6e.xlarge  # one L40S; `railyard catalog` lists the types railyard knows
    role: dev                  # training, inference or dev
    nodes: {min: 0, max: 2, desired: 1}
    placement:
      domains: [use1a]
# kubernetes: left out, railyard's defaults apply: the newest EKS version it knows, the device plugin each
# pool's accelerator needs, a private API endpoint, and the Kubernetes layer (device plugins, storage classes)
# applied by a second stack run from inside the VPC (`pulumi up --stack <stack>-kubernetes`). A public
# endpoint is the other way, and the policy pack refuses it unless its settings admit your CIDRs
# (docs/endpoint-access.md).
"""


def add_arguments(parser) -> None:
    """EXAMPLE, --list, --output and --force."""
    parser.add_argument("example", nargs="?", help="a shipped example's name (see --list); without it, a minimal starter")
    parser.add_argument("--list", action="store_true", help="list the shipped examples with a line on each")
    parser.add_argument("--output", help=f"where to write it (default: {DEFAULT_OUTPUT}, or the example's file name)")
    parser.add_argument("--force", action="store_true", help="overwrite the file if it exists")


def examples() -> dict[str, Traversable]:
    """The shipped examples by name (the file name without .yaml), from the installed package."""
    folder = files("blueprints").joinpath("examples")
    return {item.name.removesuffix(".yaml"): item for item in sorted(folder.iterdir(), key=lambda item: item.name) if item.name.endswith(".yaml")}


def summary(text: str) -> str:
    """An example's one-line description: the first sentence of its header comment, cut at a word near the width."""
    header = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        header.append(line.lstrip("#").strip())
    words = " ".join(" ".join(header).split("  ")).split()
    sentence = " ".join(words)
    sentence = sentence.split(". ", 1)[0]
    # A colon ends the line only after a long lead ("X's reference (...), written the way ...: the details").
    if len(sentence.split(": ", 1)[0]) >= 60:
        sentence = sentence.split(": ", 1)[0]
    if len(sentence) > SUMMARY_WIDTH:
        sentence = sentence[: SUMMARY_WIDTH - 1].rsplit(" ", 1)[0] + "…"
    return sentence.rstrip(".:")


def _write(path: Path, text: str, force: bool, what: str) -> int:
    if path.exists() and not force:
        print(f"railyard init: {path} exists; pass --force to overwrite it, or --output PATH to write elsewhere", file=sys.stderr)
        return 2
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:  # a folder that doesn't exist, a directory named like the file, no permission
        print(f"railyard init: can't write {path}: {exc.strerror}", file=sys.stderr)
        return 2
    print(f"wrote {what} to {path}; next: railyard validate {path}, and before the first deployment railyard lock {path} --write")
    return 0


def run(args) -> int:
    """List the examples, write one, or write the starter."""
    shipped = examples()
    if args.list:
        width = max(len(name) for name in shipped)
        for name, item in shipped.items():
            print(f"{name:<{width}}  {summary(item.read_text(encoding='utf-8'))}")
        return 0
    if args.example is None:
        return _write(Path(args.output or DEFAULT_OUTPUT), STARTER, args.force, "a starter blueprint")
    name = args.example.removesuffix(".yaml")
    if name not in shipped:
        close = difflib.get_close_matches(name, sorted(shipped), n=3, cutoff=0.5)
        suggestion = f"did you mean {', '.join(close)}? " if close else ""
        print(f"railyard init: no example '{args.example}'; {suggestion}`railyard init --list` names them", file=sys.stderr)
        return 2
    return _write(Path(args.output or f"{name}.yaml"), shipped[name].read_text(encoding="utf-8"), args.force, f"example {name}")
