"""Fabric acceptance on Trainium: judge an `nccom-test` run (Neuron's collective benchmark) against a bus-bandwidth line.

nccom-test prints one row per size, `size(B) count(elems) type time(us) algbw(GB/s) busbw(GB/s)`, then
`Avg bus bandwidth`; a size that failed prints `Failure running neuron-bench - log file ...` in place of its
figures and the run ends `N errors found - test failed` (aws-neuron/aws-neuron-sdk
tools/neuron-sys-tools/nccom-test.rst @0f75c1e0). That page defines both bandwidth columns in gibibytes a
second (1 GiB = 1,073,741,824 bytes), so busbw is converted to GB/s (10^9 bytes) before it meets the line.

What is judged, as for nccl-tests (acceptance/nccl.py): the best busbw at 1 GiB and up (never the average,
which the sweep's start drags down); every size completed; and the transport, where the output names it.
nccom-test's table does not: only a log that also carries the libfabric plugin's lines (`Selected Provider
is ...`, `Using network ...`) shows it, and then anything but EFA fails. A table alone leaves the transport
unjudged, and the report says so; the job railyard emits sets `FI_PROVIDER=efa`, so libfabric fails rather
than falls back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acceptance.nccl import GIB, OFI_NETWORKS, RunFacts, libraries, transport
from acceptance.report import Checks, Report

GB_PER_GIB = GIB / 1e9
_FAILED = re.compile(r"Failure running neuron-bench|errors? found - test failed")
# The guide's collective operations, by every name its command line takes.
OPERATIONS = {"allr": "all_reduce", "allg": "all_gather", "redsct": "reduce_scatter"} | {
    name: name for name in ("all_reduce", "all_gather", "reduce_scatter", "sendrecv")
}


@dataclass(frozen=True)
class Row:
    """One size of the sweep: bytes, and bus bandwidth as printed (GiB/s) and in GB/s."""

    size_bytes: int
    busbw_gibs: float

    @property
    def busbw_gbs(self) -> float:
        """The bus bandwidth in GB/s (10^9 bytes a second), the line's unit."""
        return self.busbw_gibs * GB_PER_GIB


def parse_table(text: str) -> list[Row]:
    """The table's completed rows, in the order printed; the header row says where `busbw(GB/s)` sits."""
    columns = ["size(B)", "count(elems)", "type", "time(us)", "algbw(GB/s)", "busbw(GB/s)"]
    rows = []
    for line in text.splitlines():
        tokens = line.split()
        if "busbw(GB/s)" in tokens:
            columns = tokens
            continue
        if len(tokens) != len(columns) or not tokens[0].isdigit():
            continue
        try:
            rows.append(Row(int(tokens[0]), float(tokens[columns.index("busbw(GB/s)")])))
        except ValueError:
            continue
    return rows


def judge(text: str, line_gbs: float, source: str = "nccom-test output") -> Report:
    """Pass when every size completed, the transport (if named) is EFA, and the best >= 1 GiB busbw reaches `line_gbs` GB/s."""
    checks = Checks(source=source)
    networks, providers, _ = transport(text)
    if networks or providers:
        on_efa = all(n in OFI_NETWORKS for n in networks) and all(p == "efa" for p in providers)
        seen = f"network {', '.join(networks) or 'not named'}; provider {', '.join(providers) or 'not named'}"
        checks.add("fabric.transport", on_efa, "collectives over EFA: libfabric provider efa", seen)
    else:
        checks.skip("fabric.transport", "nccom-test's table does not name the transport (the job sets FI_PROVIDER=efa)")
    rows = parse_table(text)
    failures = [line.strip() for line in text.splitlines() if _FAILED.search(line)]
    completed = f"{len(rows)} sizes completed" + (f"; {failures[-1]}" if failures else "")
    checks.add("fabric.completed", bool(rows) and not failures, "every size completed (no neuron-bench failure)", completed)
    expected = f">= {line_gbs:.1f} GB/s busbw at >= 1 GiB"
    large = [row for row in rows if row.size_bytes >= GIB]
    if not large:
        checks.add("fabric.busbw", False, expected, "no row at 1 GiB or more (sweep to -e 16G)")
    else:
        best = max(large, key=lambda row: row.busbw_gibs)
        sizes = ", ".join(f"{row.size_bytes // GIB} GiB {row.busbw_gibs:g} GiB/s" for row in large)
        observed = f"best {best.busbw_gbs:.2f} GB/s ({best.busbw_gibs:g} GiB/s) at {best.size_bytes // GIB} GiB ({sizes})"
        checks.add("fabric.busbw", best.busbw_gbs >= line_gbs, expected, observed)
    return Report(tuple(checks.made), checks.skipped)


def run_facts(text: str) -> RunFacts:
    """The operation, ranks (`-r`) and nodes (`-N`, 1 by default) from nccom-test's command line where the output repeats it
    (the guide's examples do; the job railyard emits does not), and whatever versions NCCL-style INFO lines name."""
    command = next((line.split("nccom-test", 1)[1].split() for line in text.splitlines() if re.search(r"\bnccom-test\s", line)), None)
    if command is None:
        return RunFacts(None, None, None, libraries(text))
    options = dict(zip(command, command[1:], strict=False))
    ranks = options.get("-r", options.get("--nworkers"))
    nodes = options.get("-N", options.get("--nnodes", "1"))
    operation = next((OPERATIONS[token] for token in command if token in OPERATIONS), None)
    numbers = [int(value) if value and value.isdigit() else None for value in (nodes, ranks)]
    return RunFacts(operation, numbers[0], numbers[1], libraries(text))
