"""A measured baseline for the fabric test: what a run that passed the design line measured, and later runs held to it.

The design line (acceptance/nccl.py, acceptance/nccom.py) says what the fabric must reach; a baseline says what this
pool's fabric did reach, so a run that still clears the line but lost ground since (a new AMI, EFA installer, NCCL or
aws-ofi-nccl release, a node with a degraded link) is caught. It is the research's plan: "the first hardware run writes
the pool's measured baseline ...; later runs compare to it (regression, e.g. -10%)" (acceptance-conformance.md, (b)).

What is kept, per algorithm run (NCCL's default and `NCCL_ALGO=Ring` are two runs, told apart as the judge tells them,
by `NCCL_ALGO set by environment to ...`): the out-of-place busbw at every size of 1 GiB and up, as printed (nccl-tests
in GB/s, nccom-test in GiB/s), the libraries and transport the log names, the design line it passed, the log's SHA-256
and its date. Beside them, the shape it was measured on (`Shape`); a run of another shape is never compared with it.

How a later run is held to it, size by size and never across shapes, is acceptance/regression.py. The default
tolerance, 0.10, is the research's "-10%": the published two-node p5.48xlarge runs read 437.79 (F2), 443.49 (F4) and
443.72 GB/s (F1) at 2 GiB, 1.4% apart, so 10% leaves run-to-run noise room while a fabric that lost a tenth of its
bandwidth fails.

Standard library only, like the rest of the package: the file is checked field by field here rather than with
jsonschema or pydantic, which would be the node checker's first import from outside it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, fields
from typing import Any

from acceptance import nccl, nccom
from acceptance.nccl import GIB, RunFacts

KIND = "railyard.dev/fabric-baseline"
VERSION = 1
DEFAULT_TOLERANCE = 0.10
UNITS = {"nccl-tests": "GB/s", "nccom-test": "GiB/s"}
# A time as nccl-tests prints it in its timestamp column (`%Y-%m-%d %H:%M:%S`, src/util.cu @0fdb00a3), or in ISO 8601.
_LOG_TIME = re.compile(r"\b(\d{4}-\d{2}-\d{2})[ T]\d{2}:\d{2}:\d{2}")


class BaselineError(ValueError):
    """A baseline can't be used as asked (malformed, of another shape, without the run's algorithm); the message says which."""


@dataclass(frozen=True)
class Shape:
    """What a run was measured on. None: not known (the log does not say, and no flag did); it compares equal only to None."""

    pool: str
    instance_type: str
    benchmark: str
    test: str | None
    nodes: int | None
    ranks: int | None
    scope: str | None

    def differences(self, other: Shape) -> list[str]:
        """`field: baseline X, this run Y` for every field where this shape (the baseline's) and `other` (the run's) differ."""
        said = {None: "not known"}
        return [
            f"{name}: baseline {said.get(mine, mine)}, this run {said.get(theirs, theirs)}"
            for name in (field.name for field in fields(self))
            if (mine := getattr(self, name)) != (theirs := getattr(other, name))
        ]


@dataclass(frozen=True)
class Run:
    """One run's measurement: busbw per size (bytes ascending, as printed), the libraries, transport and line, and provenance."""

    algorithm: str
    busbw: tuple[tuple[int, float], ...]
    unit: str
    library: str | None
    transport: str
    design_line_gbs: float
    log_sha256: str
    measured_on: str | None
    dated_by: str | None


def observe(log: bytes, benchmark: str, design_line_gbs: float, on: str | None = None) -> tuple[RunFacts, Run]:
    """What the log (its raw bytes) says of its run: its facts and its measurement. `on` (YYYY-MM-DD) dates it; else the log's first time."""
    text = log.decode("utf-8", errors="replace")
    networks, providers, algorithm = nccl.transport(text)
    if benchmark == "nccl-tests":
        rows, facts = [(row.size_bytes, row.busbw_gbs) for row in nccl.parse_table(text)], nccl.run_facts(text)
    else:
        rows, facts = [(row.size_bytes, row.busbw_gibs) for row in nccom.parse_table(text)], nccom.run_facts(text)
    best: dict[int, float] = {}
    for size, busbw in rows:
        if size >= GIB:
            best[size] = max(busbw, best.get(size, busbw))
    stamp = _LOG_TIME.search(text)
    date, dated_by = (on, "--at") if on else (None, None)
    if date is None and stamp is not None:
        date, dated_by = stamp.group(1), "the log"
    transport = f"network {', '.join(networks) or 'not named'}; provider {', '.join(providers) or 'not named'}"
    digest = hashlib.sha256(log).hexdigest()
    run = Run(algorithm.lower(), tuple(sorted(best.items())), UNITS[benchmark], facts.library, transport, design_line_gbs, digest, date, dated_by)
    return facts, run


@dataclass(frozen=True)
class Baseline:
    """A pool's baseline file: the shape, and one run per algorithm."""

    shape: Shape
    runs: dict[str, Run]

    def with_run(self, run: Run) -> Baseline:
        """This baseline with `run` added, or put in place of the run of its algorithm."""
        return Baseline(self.shape, {**self.runs, run.algorithm: run})

    def as_json(self) -> str:
        """The file's text: sorted keys, two-space indent, a final newline; the same baseline gives the same bytes."""
        runs = {}
        for name, run in self.runs.items():
            recorded = asdict(run)
            del recorded["algorithm"]  # the run's key
            recorded["busbw"] = [{"size_bytes": size, "busbw": busbw} for size, busbw in run.busbw]
            runs[name] = recorded
        document = {"kind": KIND, "version": VERSION, "shape": asdict(self.shape), "runs": runs}
        return json.dumps(document, indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Baseline:
        """Read a baseline file; `BaselineError` naming the first field that is missing or of the wrong kind."""
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BaselineError(f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
        if not isinstance(document, dict) or document.get("kind") != KIND:
            raise BaselineError(f'not a railyard fabric baseline (no "kind": "{KIND}")')
        if document.get("version") != VERSION:
            raise BaselineError(f"version {json.dumps(document.get('version'))}: this railyard reads version {VERSION}")
        shape = _object(document, "shape")
        pool, instance_type, benchmark = (_required(_text(shape, key, "shape"), f"shape.{key}") for key in ("pool", "instance_type", "benchmark"))
        if benchmark not in UNITS:
            raise BaselineError(f"shape.benchmark: {json.dumps(benchmark)} is none of {', '.join(UNITS)}")
        test, scope = _text(shape, "test", "shape"), _text(shape, "scope", "shape")
        nodes, ranks = _count(shape, "nodes", "shape"), _count(shape, "ranks", "shape")
        runs = {name: _run(name, run) for name, run in _object(document, "runs").items()}
        if not runs:
            raise BaselineError("runs: no run recorded")
        return cls(Shape(pool, instance_type, benchmark, test, nodes, ranks, scope), runs)


def _object(document: dict[str, Any], key: str) -> dict[str, Any]:
    value = document.get(key)
    if not isinstance(value, dict):
        raise BaselineError(f"{key}: expected an object, found {json.dumps(value)}")
    return value


def _required(value: str | None, where: str) -> str:
    if value is None:
        raise BaselineError(f"{where}: missing")
    return value


def _text(document: dict[str, Any], key: str, where: str) -> str | None:
    """document[key], a string or null (absent reads as null)."""
    value = document.get(key)
    if value is not None and not isinstance(value, str):
        raise BaselineError(f"{where}.{key}: expected a string, found {json.dumps(value)}")
    return value


def _count(document: dict[str, Any], key: str, where: str) -> int | None:
    """document[key], a whole number or null (never true/false, which Python counts as numbers)."""
    value = document.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise BaselineError(f"{where}.{key}: expected a whole number, found {json.dumps(value)}")
    return value


def _number(document: dict[str, Any], key: str, where: str) -> float:
    """document[key], a number (required)."""
    value = document.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise BaselineError(f"{where}.{key}: expected a number, found {json.dumps(value)}")
    return float(value)


def _run(name: str, document: Any) -> Run:
    """One recorded run, read field by field."""
    where = f"runs.{name}"
    if not isinstance(document, dict):
        raise BaselineError(f"{where}: expected an object, found {json.dumps(document)}")
    rows = document.get("busbw")
    if not isinstance(rows, list) or not rows or not all(isinstance(row, dict) for row in rows):
        raise BaselineError(f"{where}.busbw: expected a list of {{size_bytes, busbw}}, found {json.dumps(rows)}")
    busbw = []
    for index, row in enumerate(rows):
        size = _count(row, "size_bytes", f"{where}.busbw[{index}]")
        if size is None:
            raise BaselineError(f"{where}.busbw[{index}].size_bytes: missing")
        busbw.append((size, _number(row, "busbw", f"{where}.busbw[{index}]")))
    unit, transport, digest = (_required(_text(document, key, where), f"{where}.{key}") for key in ("unit", "transport", "log_sha256"))
    library, measured_on, dated_by = (_text(document, key, where) for key in ("library", "measured_on", "dated_by"))
    line = _number(document, "design_line_gbs", where)
    return Run(name, tuple(sorted(busbw)), unit, library, transport, line, digest, measured_on, dated_by)
