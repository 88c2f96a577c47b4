"""`railyard plan NEEDS (--offerings DIR | --online [--profile P] [--record DIR]) [--top N] [--write DIR] [--json|--markdown] [--at T]`.

From what a job needs to ranked cluster designs, each proven by `validate` (docs/plan.md); and
`railyard plan adopt FILE --reservation cr-... [...]`, which puts the reservations bought in place of
the offerings a written file names, then validates it. railyard never buys: it prints the
`aws ec2 purchase-capacity-block` commands that would.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from railyard.commands.arguments import instant
from railyard.progress import reporting, stage, wanted

NAME = "plan"
HELP = "Rank cluster designs for a job's needs from Capacity Block offerings (recorded or read-only online), each proven by validate."


def add_arguments(parser) -> None:
    """NEEDS (or `adopt FILE`), the offerings' source, --top, --write, --json/--markdown, --at, --reservation."""
    parser.add_argument("needs", metavar="NEEDS", help="the needs file (docs/plan.md), or `adopt` followed by a written blueprint")
    parser.add_argument("file", metavar="FILE", nargs="?", help="with `adopt`: the blueprint `plan --write` wrote")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--offerings", metavar="DIR", help="judge this folder of DescribeCapacityBlockOfferings answers (every *.json in it)")
    source.add_argument("--online", action="store_true", help="search the account, read-only (ec2:DescribeCapacityBlockOfferings)")
    parser.add_argument("--profile", help="with --online: the AWS profile (default: the environment's credentials)")
    parser.add_argument(
        "--record", metavar="DIR", help="with --online: keep every answer in DIR, as the AWS CLI prints it (the folder --offerings reads)"
    )
    parser.add_argument("--top", type=int, default=5, metavar="N", help="prove and rank at most N candidates (default 5)")
    parser.add_argument("--write", metavar="DIR", help="write each candidate as a complete blueprint in DIR")
    parser.add_argument("--at", metavar="TIME", type=instant, default=None, help="the quotes' time and the pricing day (default: now)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument(
        "--reservation", action="append", default=[], metavar="cr-...", help="with adopt: a reservation bought (once per offering, in order)"
    )


def run(args) -> int:
    """Plan (exit 0 with a candidate, 1 with none or a bad needs file, 2 for a wrong use), or adopt."""
    if args.needs == "adopt":
        return _adopt(args)
    if args.file is not None:
        return _usage(f"one needs file is planned at a time (got {args.needs} and {args.file})")
    if not args.offerings and not args.online:
        return _usage("give --offerings DIR (recorded answers) or --online (search the account, read-only)")
    if args.record and not args.online:
        return _usage("--record keeps what --online reads; with --offerings the answers are already on disk")
    if args.top < 1:
        return _usage("--top is at least 1")
    from railyard.plan import plan
    from railyard.plan.needs_file import read_needs
    from railyard.plan.render import markdown, text
    from railyard.render import findings_report

    at = args.at or datetime.now(UTC).replace(microsecond=0)
    with reporting(sys.stderr, wanted(sys.stderr, args.json or args.markdown)):
        read = read_needs(args.needs)
        if not read.ok:
            print(findings_report(read.findings, read.source_map), file=sys.stderr)
            print(f"FAILED: the needs file {read.file} has errors", file=sys.stderr)
            return 1
        stage("reading the offerings")
        found = _offerings(args, read)
        if found is None:
            return 1
        offerings, rejected, unread = found
        stage("proving the candidates with validate")
        result = plan(read, offerings, rejected, at, args.top, Path(args.write) if args.write else None)
        result.unread = unread
    if args.json:
        print(json.dumps(result.as_json(), indent=2, sort_keys=True))
    else:
        sys.stdout.write(markdown(result) if args.markdown else text(result))
    return 0 if result.candidates else 1


def _offerings(args, read):
    """The offerings (from the folder or the account), those rejected on reading, what wasn't read; None: the account is unreachable."""
    from railyard.plan.offerings import offerings_of, read_offerings

    if args.offerings:
        return read_offerings(args.offerings)
    from blueprints.catalog import load_catalog
    from railyard.online.capacity_blocks import AccountUnreachable, search
    from railyard.plan.expand import expand

    try:
        documents, failed = search(read.needs, expand(read.needs, load_catalog()), profile=args.profile, record=args.record)
    except AccountUnreachable as exc:
        print(f"railyard plan: the account can't be reached ({exc}); nothing was searched", file=sys.stderr)
        return None
    offerings, rejected = offerings_of(documents)
    return offerings, rejected, failed


def _adopt(args) -> int:
    """Swap the reservations in, then validate the file (exit as validate does)."""
    from railyard.pipeline import Pack, validate
    from railyard.plan.adopt import AdoptError, adopt_file
    from railyard.render import findings_report

    if args.file is None or not args.reservation:
        return _usage("adopt takes the written blueprint and one --reservation cr-... per offering it names")
    try:
        pairs = adopt_file(args.file, args.reservation)
    except AdoptError as exc:
        print(f"railyard plan adopt: {args.file}: {exc}; nothing was written", file=sys.stderr)
        return 1
    for offering, reservation in pairs:
        print(f"{offering} -> {reservation}")
    result = validate(args.file, pack=Pack(), at=args.at)
    print(findings_report(result.findings, result.load.source_map))
    print(
        "ok: adopted and valid; `railyard validate --online` checks the reservations against the account"
        if result.ok
        else "FAILED: fix the errors above"
    )
    return 0 if result.ok else 1


def _usage(message: str) -> int:
    print(f"railyard plan: {message}", file=sys.stderr)
    return 2
