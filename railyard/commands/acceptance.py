"""`railyard acceptance expect|check|judge`: hold a node, or a fabric test, to what its pool was designed to be.

    railyard acceptance expect BLUEPRINT --pool P [--level L]           the expectation JSON a node is held to
    railyard acceptance expect BLUEPRINT --write DIR [--level L]        one `<pool>.json` per pool with something to check
    railyard acceptance check  BLUEPRINT --pool P --from DIR [--json]   judge a node's recorded evidence
    railyard acceptance check  --expect FILE --from DIR [--json]        the same, with an expectation already compiled
    railyard acceptance judge  LOG BLUEPRINT --pool P [--fraction K]    judge an nccl-tests (or, on Neuron, nccom-test) run
        [--record-baseline FILE [--force] [--at TIME] | --baseline FILE [--tolerance T]] [--nodes N] [--scope S]
                                                                        ... and record it as the pool's baseline, or hold it to one
    railyard acceptance fabric BLUEPRINT --pool P [--nodes N] [--scope node|layer3|clique|pool]
                                                                        the nccl-tests MPIJobs (default and Ring) for the pool

The checking itself is the node checker's (`acceptance/`, standard library only), the code that
runs on the node; this command compiles the expectation and the fabric line from the blueprint
(`railyard.expectations`). Exit status: 0 accepted, 1 rejected (or the blueprint has errors),
2 unreadable input (a missing file, a bad expectation, an unknown pool).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from blueprints.source import SourceError
from railyard.commands.arguments import add_file_arguments
from railyard.commands.baselines import Refused, add_baseline_arguments

NAME = "acceptance"
HELP = "Hold a node's evidence, or an nccl-tests run, to what its pool was designed to be."


def add_arguments(parser) -> None:
    """The three actions and their arguments."""
    from acceptance import LEVELS

    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    expect = actions.add_parser("expect", help="print the expectation JSON a node of the pool is held to")
    check = actions.add_parser("check", help="judge a folder of recorded command outputs (one file per command)")
    judge = actions.add_parser("judge", help="judge an nccl-tests log (nccom-test's output on a Neuron pool): busbw at >= 1 GiB and the transport")
    judge.add_argument("log", help="the nccl-tests output with NCCL_DEBUG=INFO")
    fabric = actions.add_parser("fabric", help="print the pool's nccl-tests MPIJobs (default algorithm and Ring), or its nccom-test MPIJob, as YAML")
    fabric.add_argument("--nodes", type=int, default=None, help="workers, one per node (default: 2, or 1 with --scope node)")
    fabric.add_argument(
        "--scope",
        choices=["node", "layer3", "clique", "pool"],
        default="pool",
        help="where Kueue must keep the workers (clique: one NVLink domain, inside the pool's ComputeDomain)",
    )
    for action in (expect, check, judge, fabric):
        add_file_arguments(action)
        action.add_argument("--pool", help="the pool whose design is the yardstick")
        action.add_argument("--json", action="store_true", help="print JSON")
    for action in (expect, check):
        action.add_argument(
            "--level", choices=list(LEVELS), default="standard", help="how deep: inventory (reads only), quick..exhaustive = DCGM r1..r4"
        )
    expect.add_argument("--write", metavar="DIR", help="write `<pool>.json` into DIR for the pool (or, without --pool, every pool)")
    check.add_argument("--from", dest="evidence", required=True, metavar="DIR", help="the folder of recorded outputs")
    check.add_argument("--expect", metavar="FILE", help="an expectation JSON instead of a blueprint and pool")
    judge.add_argument("--fraction", type=float, default=None, help="the share of the node's EFA bandwidth the run must reach (0.8; Neuron 0.4)")
    add_baseline_arguments(judge)


def run(args) -> int:
    """Compile what is needed from the blueprint, run the action, print, and return the exit status."""
    from acceptance import Expectation, ExpectationError, check_folder
    from acceptance.nccl import judge
    from railyard.expectations import ExpectationNeeds

    try:
        if args.action == "check" and args.expect:
            try:
                expectation = Expectation.from_json(_read(args.expect))
            except ExpectationError as exc:
                raise SourceError(f"not a usable expectation: {exc}", args.expect) from None
        else:
            blueprint = _blueprint(args)
            if blueprint is None:
                return 1
            if args.action == "judge":
                return _judge(args, blueprint, judge)
            if args.action == "fabric":
                return _fabric(args, blueprint)
            if args.action == "expect" and args.write:
                return _write(args, blueprint)
            expectation = _expectation(args, blueprint)
    except (ExpectationError, ExpectationNeeds, Refused) as exc:
        print(f"railyard acceptance {args.action}: {exc}", file=sys.stderr)
        return 2
    if args.action == "expect":
        print(json.dumps(expectation.as_dict(), indent=2, sort_keys=True))
        return 0
    folder = Path(args.evidence)
    if not folder.is_dir():
        raise SourceError("no such folder of recorded outputs", str(folder))
    report = check_folder(expectation, folder)
    print(report.as_json() if args.json else report.as_text())
    return 0 if report.passed else 1


def _fabric(args, blueprint) -> int:
    """Print the pool's two MPIJobs as one YAML stream (`kubectl apply -f -` reads it)."""
    import yaml

    from blueprints.catalog import load_catalog
    from railyard.fabric_job import fabric_jobs

    jobs = fabric_jobs(blueprint, load_catalog(), args.pool, args.nodes, args.scope)
    print(json.dumps(jobs, indent=2) if args.json else yaml.safe_dump_all(jobs, sort_keys=False), end="" if not args.json else "\n")
    return 0


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SourceError(f"can't read it: {exc.strerror}", path) from None
    except UnicodeDecodeError:
        raise SourceError("can't read it: not UTF-8 text", path) from None


def _read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise SourceError(f"can't read it: {exc.strerror}", path) from None


def _blueprint(args):
    """The validated blueprint, or None after printing its errors (a design with errors is no yardstick)."""
    from railyard.expectations import ExpectationNeeds
    from railyard.pipeline import validate
    from railyard.render import findings_report

    if not args.pool and not getattr(args, "write", None):
        raise ExpectationNeeds("--pool is required with a blueprint (or give `check` an --expect file)")
    result = validate(args.file, args.stack, args.project_dir)
    if not result.ok or result.load.blueprint is None:
        print(findings_report(result.findings, result.load.source_map), file=sys.stderr)
        print("FAILED: fix the blueprint's errors first; it is the yardstick", file=sys.stderr)
        return None
    return result.load.blueprint


def _expectation(args, blueprint):
    from blueprints.catalog import load_catalog
    from railyard.expectations import pool_expectation

    return pool_expectation(blueprint, load_catalog(), args.pool, args.level)


def _write(args, blueprint) -> int:
    """Write each pool's expectation as `<pool>.json` (sorted keys: the same blueprint gives the same bytes)."""
    from blueprints.catalog import load_catalog
    from railyard.expectations import pool_expectation

    folder, catalog = Path(args.write), load_catalog()
    folder.mkdir(parents=True, exist_ok=True)
    for pool in [args.pool] if args.pool else [pool.name for pool in blueprint.pools]:
        expectation = pool_expectation(blueprint, catalog, pool, args.level)
        if expectation.accelerator_kind is None and not expectation.efa_devices:
            print(f"{pool}: no accelerator and no EFA device, nothing for acceptance to check; no file written", file=sys.stderr)
            continue
        (folder / f"{pool}.json").write_text(json.dumps(expectation.as_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {folder / f'{pool}.json'}", file=sys.stderr)
    return 0


def _judge(args, blueprint, judge) -> int:
    """Judge the log with the pool's benchmark (nccom-test's table on a Neuron pool, nccl-tests' elsewhere), and record it as
    the pool's baseline (`--record-baseline`) or hold it to one (`--baseline`): `railyard.commands.baselines`."""
    from acceptance import nccom
    from blueprints.catalog import load_catalog
    from railyard.commands import baselines
    from railyard.expectations import fabric_line, nvlink_line, pool_expectation

    refusal = baselines.usage_refusal(args)
    if refusal:
        raise Refused(refusal)
    catalog = load_catalog()
    expectation = pool_expectation(blueprint, catalog, args.pool)
    benchmark = "nccom-test" if expectation.accelerator_kind == "neuron" else "nccl-tests"
    # A run kept to one NVLink domain (--scope clique) is held to the NVLink line, any other to the EFA line.
    line = (nvlink_line if args.scope == "clique" else fabric_line)(blueprint, catalog, args.pool, args.fraction)
    log = _read_bytes(args.log)
    text = log.decode("utf-8", errors="replace")
    if benchmark == "nccom-test":
        report = nccom.judge(text, line.line_gbs, source=f"{args.log} (nccom-test)")
    else:
        report = judge(text, line.line_gbs, source=f"{args.log} (nccl-tests, NCCL log)")
    comparison = planned = None
    if args.record_baseline or args.baseline:
        shape, run = baselines.measured(args, log, benchmark, expectation.instance_type, line.line_gbs)
        if args.baseline:
            report, comparison = baselines.against(args, report, shape, run)
        elif report.passed:
            planned = baselines.to_record(args, shape, run)
    header = line.header()
    if args.json:
        document = report.as_dict() | ({"baseline": {"file": args.baseline, **comparison.as_dict()}} if comparison else {})
        print(json.dumps(document, indent=2, sort_keys=True))
    else:
        print("\n".join([header, *([comparison.as_text(args.baseline)] if comparison else []), report.as_text()]))
    if args.record_baseline:
        return baselines.record(args, report, planned)
    return 0 if report.passed else 1
