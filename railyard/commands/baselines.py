"""`railyard acceptance judge ... --record-baseline FILE | --baseline FILE`: a pool's measured fabric baseline, kept and held to.

    railyard acceptance judge LOG BLUEPRINT --pool P --record-baseline FILE [--force] [--at TIME] [--nodes N] [--scope S]
    railyard acceptance judge LOG BLUEPRINT --pool P --baseline FILE [--tolerance T] [--nodes N] [--scope S]

The reading and comparing are the node checker's (`acceptance/baseline.py`, `acceptance/regression.py`, standard library
only); this module reads and writes the file and says what it did. A run that fails the design line is not recorded
(exit 1); a file that can't be used as asked (unreadable, malformed, of another shape, already holding the run without
`--force`) is exit 2 with its path, before anything is written.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from blueprints.source import SourceError
from railyard.commands.arguments import instant


class Refused(ValueError):
    """The flags ask for something that can't be done (the message says why): exit 2, nothing written."""


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text}: a tolerance is a share of the baseline, at least 0 and below 1 (0.10 = 10%)")
    return value


def _moment(text: str) -> datetime:
    """`--at`: an ISO 8601 time, or `now` for the wall clock (only when asked: the file must not change with the day it is written)."""
    return datetime.now(UTC) if text == "now" else instant(text)


def add_baseline_arguments(judge) -> None:
    """The baseline flags of `acceptance judge`."""
    which = judge.add_mutually_exclusive_group()
    which.add_argument("--record-baseline", metavar="FILE", help="if the run passes the design line, record it as the pool's baseline in FILE")
    which.add_argument("--baseline", metavar="FILE", help="also hold the run to the baseline in FILE, size by size")
    judge.add_argument("--force", action="store_true", help="with --record-baseline: replace what FILE holds for this run")
    judge.add_argument("--at", metavar="TIME", type=_moment, help="with --record-baseline: the run's date (ISO 8601, or `now`; default: the log's)")
    judge.add_argument("--tolerance", type=_tolerance, default=None, help="with --baseline: the share a size may fall below it (default 0.10)")
    judge.add_argument("--nodes", type=int, default=None, help="the nodes the run used, where the log does not say (nccom-test never does)")
    judge.add_argument(
        "--scope",
        choices=["node", "layer3", "clique", "pool"],
        default=None,
        help="the --scope the run's job was made with (clique: held to the NVLink line)",
    )


def usage_refusal(args) -> str | None:
    """Why the baseline flags don't go together as given, or None."""
    if (args.force or args.at) and not args.record_baseline:
        return "--force and --at date a recorded baseline: give them with --record-baseline FILE"
    if args.tolerance is not None and not args.baseline:
        return "--tolerance applies to a comparison: give it with --baseline FILE"
    return None


def measured(args, log: bytes, benchmark: str, instance_type: str, line_gbs: float):
    """The run's shape (the pool's, the log's and the flags') and its measurement; `Refused` when --nodes contradicts the log."""
    from acceptance.baseline import Shape, observe

    on = args.at.astimezone(UTC).date().isoformat() if args.at else None
    facts, run = observe(log, benchmark, line_gbs, on)
    if args.nodes is not None and facts.nodes is not None and args.nodes != facts.nodes:
        raise Refused(f"--nodes {args.nodes}, but the log shows {facts.nodes} node(s)")
    nodes = facts.nodes if facts.nodes is not None else args.nodes
    return Shape(args.pool, instance_type, benchmark, facts.test, nodes, facts.ranks, args.scope), run


def read_baseline(path: str):
    """The baseline in `path`; `SourceError` (exit 2, with the path) when it can't be read or isn't one."""
    from acceptance.baseline import Baseline, BaselineError

    try:
        return Baseline.from_json(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise SourceError(f"can't read the baseline: {exc.strerror}", path) from None
    except UnicodeDecodeError:
        raise SourceError("can't read the baseline: not UTF-8 text", path) from None
    except BaselineError as exc:
        raise SourceError(f"not a usable baseline: {exc}", path) from None


def to_record(args, shape, run):
    """What `--record-baseline` will write, and the word for it, checked before anything is printed or written:
    `Refused` when the node count is unknown, `SourceError` (with the path) when the file holds what this run would replace."""
    from acceptance.baseline import Baseline

    if shape.nodes is None:
        raise Refused("not recorded: the log does not say how many nodes ran; give --nodes N (the --nodes of `acceptance fabric`)")
    path = Path(args.record_baseline)
    fresh = Baseline(shape, {run.algorithm: run})
    baseline, what = _merged(args, path, fresh, run) if path.exists() else (fresh, "wrote")
    others = sorted(set(baseline.runs) - {run.algorithm})
    return baseline, f"{what} the {run.algorithm} run into {path}" + (f" (it also holds: {', '.join(others)})" if others else "")


def record(args, report, planned) -> int:
    """Write the planned baseline if the run passed the design line (exit 0), else say why not (exit 1)."""
    if not report.passed:
        print(f"not recorded: the run failed the design line ({', '.join(report.failed)}); a baseline must pass it", file=sys.stderr)
        return 1
    baseline, said = planned
    path = Path(args.record_baseline)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(baseline.as_json(), encoding="utf-8")
    print(said, file=sys.stderr)
    return 0


def _merged(args, path: Path, fresh, run):
    """What to write over an existing file: this run beside its other runs (same shape); with --force, in place of what clashes."""
    try:
        existing = read_baseline(str(path))
    except SourceError as exc:
        if not args.force:
            raise SourceError(f"{exc.message}; --force replaces it", str(path)) from None
        return fresh, "replaced"
    differences = existing.shape.differences(fresh.shape)
    if differences:
        if not args.force:
            raise SourceError(f"holds a baseline of another shape ({'; '.join(differences)}); --force replaces it", str(path))
        return fresh, "replaced"
    held = existing.runs.get(run.algorithm)
    if held is not None and not args.force:
        when = held.measured_on or "undated"
        raise SourceError(f"already holds a {run.algorithm} run ({when}, log sha256 {held.log_sha256[:12]}); --force replaces it", str(path))
    return existing.with_run(run), ("replaced" if held is not None else "added")


def against(args, report, shape, run):
    """The report with the `fabric.baseline` check added, and the comparison; `SourceError` (exit 2) for a baseline that can't be used."""
    from acceptance.baseline import DEFAULT_TOLERANCE, BaselineError
    from acceptance.regression import compare
    from acceptance.report import Report

    baseline = read_baseline(args.baseline)
    tolerance = DEFAULT_TOLERANCE if args.tolerance is None else args.tolerance
    try:
        comparison = compare(baseline, shape, run, tolerance)
    except BaselineError as exc:
        # A figure the log does not give is the flag's to state: say which, rather than only "another shape".
        unstated = [f"--{name}" for name in ("nodes", "scope") if getattr(shape, name) is None and getattr(baseline.shape, name) is not None]
        hint = f"; if this run's log does not say it, give {' and '.join(unstated)}" if unstated else ""
        raise SourceError(f"can't judge this run against it: the baseline {exc}{hint}", args.baseline) from None
    return Report((*report.checks, comparison.check(args.baseline)), report.skipped), comparison
