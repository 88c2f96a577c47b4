"""Fabric acceptance: judge an nccl-tests run (its table and NCCL's log) against a bus-bandwidth line.

What is judged, and why:
- out-of-place `busbw` at message sizes of 1 GiB and up, the best of them (the plateau): small
  messages measure latency, and "Avg bus bandwidth" averages every size from the sweep's start,
  so one run reads 52.98 or 123.34 GB/s depending only on where the sweep began
  (awsome-distributed-training and EKS Blueprints, two p5.48xlarge each; acceptance-conformance.md F2/F4);
- the transport NCCL used (`Using network ...` in an `NCCL_DEBUG=INFO` log): the aws-ofi-nccl
  plugin names itself `Libfabric` (older releases print `AWS Libfabric`); `Socket` is NCCL's TCP fallback,
  which runs, slowly, and hides a node without EFA; a provider other than `efa` in aws-ofi-nccl's
  `Selected Provider is ...` line is the same fault one layer down;
- the algorithm: only `NCCL_ALGO=Ring` measures the network. On two nodes NCCL's default (Tree,
  NVLS) can exceed the NICs' line rate (NVIDIA/nccl-tests#196), so a default run that clears the
  line proves less than a Ring run does, and the report says so.

The table layout is nccl-tests' (`size count type redop root time algbw busbw #wrong ...`, the
out-of-place half first); lines may carry mpirun's `[1,0]<stdout>:` prefix. Older nccl-tests
have no `root` column and an `error` column: the header row is read for where `busbw` sits.
`#wrong` counts wrong elements (nccl-tests v2.13.0 on); `error` (before it) is the largest deviation
from the expected value, which nccl-tests itself failed only past a tolerance of the row's type
times (ranks - 1): `DeltaMaxValue` and `CheckData` in src/common.cu at v2.11.0 (NVIDIA/nccl-tests,
replaced by the count in 51af557, "Data corruption errors now reported in number of wrong elements
instead of max deviation"). A reduction in floating point is never exact, so `4e-07` in a float
row over 16 ranks is a pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acceptance.report import Checks, Report

GIB = 2**30
OFI_NETWORKS = ("Libfabric", "AWS Libfabric")
_PREFIX = re.compile(r"^\[\d+,\d+\]<std(?:out|err)>:")


# nccl-tests' tolerance per element type for the older `error` column (src/common.cu `DeltaMaxValue` at v2.11.0): every type
# not named is an integer type, held to 1e-200, so any deviation fails it.
DELTA_MAX = {"half": 1e-2, "bfloat16": 1e-2, "float": 1e-5, "double": 1e-12}
INTEGER_DELTA = 1e-200


@dataclass(frozen=True)
class Row:
    """One size of the sweep: bytes, out-of-place bus bandwidth (GB/s, 10^9 bytes) and its wrong-value count (None if not printed);
    in the older layout, the largest deviation nccl-tests printed (`error`) and the row's element type instead of the count."""

    size_bytes: int
    busbw_gbs: float
    wrong: float | None
    error: float | None = None
    type: str = ""

    def is_wrong(self, ranks: int | None) -> bool:
        """Whether nccl-tests would fail this row: any wrong element, or (older layout) a deviation past the type's tolerance
        times (ranks - 1). Ranks unknown: the tolerance of two, the tightest a fabric test runs under."""
        if self.error is None:
            return bool(self.wrong)
        return self.error > DELTA_MAX.get(self.type, INTEGER_DELTA) * (max(ranks or 2, 1) - 1)


def _lines(text: str) -> list[str]:
    return [_PREFIX.sub("", line) for line in text.splitlines()]


def parse_table(text: str) -> list[Row]:
    """The table's rows, out-of-place columns, in the order printed."""
    columns = ["size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong"]
    rows = []
    for line in _lines(text):
        tokens = line.split()
        if tokens[:1] == ["#"] and "busbw" in tokens:
            columns = tokens[1:]
            continue
        if not tokens or not tokens[0].isdigit():
            continue  # a row starts with its size; one too short for busbw or #wrong fails their lookup below
        try:
            busbw = float(tokens[columns.index("busbw")])
            figure = next((name for name in columns if name in ("#wrong", "error")), None)
            value = tokens[columns.index(figure)] if figure is not None else "N/A"
            read = float(value) if value != "N/A" else None
            kind = tokens[columns.index("type")] if "type" in columns else ""
        except (ValueError, IndexError):
            continue
        rows.append(Row(int(tokens[0]), busbw, None, read, kind) if figure == "error" else Row(int(tokens[0]), busbw, read))
    return rows


def transport(text: str) -> tuple[list[str], list[str], str]:
    """The networks NCCL said it used, the libfabric providers aws-ofi-nccl selected, and the algorithm forced (`default` if none)."""
    lines = _lines(text)
    networks = sorted({m.group(1).strip() for line in lines if (m := re.search(r"NCCL INFO Using network (.+)$", line))})
    providers = sorted({m.group(1).lower() for line in lines if (m := re.search(r"Selected [Pp]rovider is (\w+)", line))})
    algorithm = next((m.group(1) for line in lines if (m := re.search(r"NCCL_ALGO set by environment to (\S+)", line))), "default")
    return networks, providers, algorithm


@dataclass(frozen=True)
class RunFacts:
    """What a log says of its run beside the table (None where it does not say): the test, its nodes and ranks, the libraries' versions."""

    test: str | None
    nodes: int | None
    ranks: int | None
    library: str | None


def libraries(text: str) -> str | None:
    """The versions NCCL's INFO lines name (`NCCL version 2.18.5+cuda12.2`, aws-ofi-nccl's `Initializing aws-ofi-nccl 1.7.3-aws`), or None."""
    lines = _lines(text)
    nccl = next((m.group(1) for line in lines if (m := re.search(r"NCCL INFO NCCL version (\S+)", line))), None)
    if nccl is None:
        # nccl-tests' own header: `# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807` (NCCL_VERSION_CODE).
        code = next((int(m.group(1)) for line in lines if (m := re.search(r"nccl-library=(\d+)", line))), None)
        nccl = None if code is None else _version(code)
    plugin = next((m.group(1) for line in lines if (m := re.search(r"Initializing aws-ofi-nccl (\S+)", line))), None)
    named = ([f"NCCL {nccl}"] if nccl else []) + ([f"aws-ofi-nccl {plugin}"] if plugin else [])
    return ", ".join(named) or None


def _version(code: int) -> str:
    """NCCL_VERSION_CODE as a version: major x 10000 + minor x 100 + patch since 2.9, major x 1000 + minor x 100 + patch before (nccl.h)."""
    major, rest = divmod(code, 10000) if code >= 20900 else divmod(code, 1000)
    return f"{major}.{rest // 100}.{rest % 100}"


def run_facts(text: str) -> RunFacts:
    """The test, nodes and ranks from nccl-tests' header (`# Collective test starting: all_reduce_perf`, one `#  Rank N ... on HOST`
    line per rank: nccl-tests src/util.cu @0fdb00a3; before v2.13.0 without `Group N`), else the ranks and nodes NCCL's INFO
    lines count (`nRanks 16 nNodes 2`)."""
    lines = _lines(text)
    test = next((m.group(1) for line in lines if (m := re.match(r"#\s*Collective test starting: (\S+)", line))), None)
    nodes, ranks = _nodes_and_ranks(lines)
    return RunFacts(test, nodes, ranks, libraries(text))


def _nodes_and_ranks(lines: list[str]) -> tuple[int | None, int | None]:
    """The hosts and ranks of the header's rank lines, else the most NCCL's INFO lines count (None where nothing says)."""
    hosts = {m.group(1): m.group(2) for line in lines if (m := re.match(r"#\s+Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)", line))}
    if hosts:
        return len(set(hosts.values())), len(hosts)
    ranks = [int(m.group(1)) for line in lines if (m := re.search(r"NCCL INFO .*\bn[Rr]anks (\d+)", line))]
    nodes = [int(m.group(1)) for line in lines if (m := re.search(r"NCCL INFO .*\bnNodes (\d+)", line))]
    return max(nodes, default=None), max(ranks, default=None)


def judge(text: str, line_gbs: float, source: str = "nccl-tests log") -> Report:
    """Pass when NCCL used EFA through libfabric, no value was wrong, and the best >= 1 GiB out-of-place busbw reaches `line_gbs`."""
    checks = Checks(source=source)
    networks, providers, algorithm = transport(text)
    bad_provider = [p for p in providers if p != "efa"]
    on_ofi = bool(networks) and all(n in OFI_NETWORKS for n in networks) and not bad_provider
    seen = f"network {', '.join(networks) or 'never named (run with NCCL_DEBUG=INFO)'}" + (f"; provider {', '.join(providers)}" if providers else "")
    checks.add("fabric.transport", on_ofi, "NCCL over EFA: `Using network Libfabric` (aws-ofi-nccl), provider efa", seen)
    rows = parse_table(text)
    large = [row for row in rows if row.size_bytes >= GIB]
    _, ranks = _nodes_and_ranks(_lines(text))
    wrong = [row for row in rows if row.is_wrong(ranks)]
    counted = f"{len(wrong)} rows with wrong values" if wrong else f"{len(rows)} rows, none wrong"
    deviations = [row for row in wrong if row.error is not None]
    if deviations:
        worst = max(deviations, key=lambda row: row.error or 0.0)
        over = f"{ranks} ranks" if ranks else "two ranks (the log does not say how many)"
        kind = f"a {worst.type} row" if worst.type else "a row whose type the header does not name"
        counted += f" (largest error {worst.error:g} in {kind}, past nccl-tests' tolerance over {over})"
    checks.add("fabric.correctness", bool(rows) and not wrong, "no wrong values in any row", counted)
    expected = f">= {line_gbs:.1f} GB/s out-of-place busbw at >= 1 GiB"
    if not large:
        checks.add("fabric.busbw", False, expected, "no row at 1 GiB or more (sweep to -e 16G)")
    else:
        best = max(large, key=lambda row: row.busbw_gbs)
        sizes = ", ".join(f"{row.size_bytes // GIB} GiB {row.busbw_gbs:g}" for row in large)
        checks.add("fabric.busbw", best.busbw_gbs >= line_gbs, expected, f"best {best.busbw_gbs:g} GB/s at {best.size_bytes // GIB} GiB ({sizes})")
    if algorithm.lower() != "ring":
        why = "only a Ring run measures the network (a default run on few nodes can beat the NICs)"
        checks.skip("fabric.network-bound", f"NCCL_ALGO was {algorithm}: {why}")
    return Report(tuple(checks.made), checks.skipped)
