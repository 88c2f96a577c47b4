"""The fabric judge (acceptance/nccl.py) at its edges: a log where some ranks use NCCL's Socket transport and others
Libfabric, a provider list with efa beside another, the busbw line exactly met and a hair under, the 1 GiB floor
exactly and one byte under, one wrong value, the Ring switch in any case, and NCCL's version code on either side of
2.9's change of scheme. A Hypothesis property holds the busbw verdict to `best >= line` over drawn tables."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acceptance.nccl import GIB, judge, libraries, parse_table, run_facts, transport
from tests.properties import examples

HEADER = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
EFA = "node-0:1:1 [0] NCCL INFO Using network Libfabric\nnode-0:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa\n"
RING = "node-0:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"


def _row(size: int, busbw: float, wrong: int | str = 0) -> str:
    return f"  {size}  {size // 4}  float  sum  -1  1000.0  100.00  {busbw}  {wrong}  1000.0  100.00  {busbw}  {wrong}\n"


def _verdict(text: str, line: float = 100.0) -> dict[str, tuple[bool, str]]:
    return {check.name: (check.passed, check.observed) for check in judge(text, line).checks}


def test_ranks_split_between_socket_and_libfabric_fail_the_transport_naming_both():
    mixed = EFA + "node-1:2:2 [8] NCCL INFO Using network Socket\n" + HEADER + _row(GIB, 400.0)
    assert transport(mixed) == (["Libfabric", "Socket"], ["efa"], "default")
    assert _verdict(mixed)["fabric.transport"] == (False, "network Libfabric, Socket; provider efa")


def test_the_older_plugin_name_passes_and_a_second_provider_beside_efa_fails():
    older = EFA.replace("Using network Libfabric", "Using network AWS Libfabric") + HEADER + _row(GIB, 400.0)
    assert _verdict(older)["fabric.transport"] == (True, "network AWS Libfabric; provider efa")
    both = EFA + "node-1:2:2 [8] NCCL INFO NET/OFI Selected provider is tcp\n" + HEADER + _row(GIB, 400.0)
    assert _verdict(both)["fabric.transport"] == (False, "network Libfabric; provider efa, tcp")


@pytest.mark.parametrize(("busbw", "passed"), [(100.0, True), (99.99, False), (100.01, True)])
def test_busbw_exactly_at_the_line_passes_and_a_hair_under_fails(busbw, passed):
    assert _verdict(EFA + HEADER + _row(GIB, busbw))["fabric.busbw"] == (passed, f"best {busbw:g} GB/s at 1 GiB (1 GiB {busbw:g})")


def test_only_rows_of_at_least_1_gib_count_toward_busbw():
    just_under = EFA + HEADER + _row(GIB - 4, 900.0)
    assert _verdict(just_under)["fabric.busbw"] == (False, "no row at 1 GiB or more (sweep to -e 16G)")
    both = EFA + HEADER + _row(GIB - 4, 900.0) + _row(GIB, 50.0) + _row(2 * GIB, 120.0)
    assert _verdict(both)["fabric.busbw"] == (True, "best 120 GB/s at 2 GiB (1 GiB 50, 2 GiB 120)")


@pytest.mark.parametrize(
    ("wrong", "passed", "observed"), [(0, True, "1 rows, none wrong"), (1, False, "1 rows with wrong values"), ("N/A", True, "1 rows, none wrong")]
)
def test_one_wrong_value_fails_correctness(wrong, passed, observed):
    assert _verdict(EFA + HEADER + _row(GIB, 400.0, wrong))["fabric.correctness"] == (passed, observed)


def test_a_log_with_no_table_fails_correctness_as_well_as_busbw():
    verdict = _verdict(EFA)
    assert verdict["fabric.correctness"] == (False, "0 rows, none wrong")
    assert verdict["fabric.busbw"][0] is False


@pytest.mark.parametrize(
    ("line", "skipped"),
    [(RING, []), (RING.replace("Ring", "RING"), []), (RING.replace("Ring", "Tree"), ["fabric.network-bound"]), ("", ["fabric.network-bound"])],
)
def test_only_a_ring_run_is_said_to_measure_the_network(line, skipped):
    report = judge(line + EFA + HEADER + _row(GIB, 400.0), 100.0)
    assert list(report.skipped) == skipped


def test_a_run_with_every_check_passing_is_accepted_and_one_failing_is_not():
    assert judge(RING + EFA + HEADER + _row(GIB, 400.0), 100.0).passed
    assert judge(RING + EFA + HEADER + _row(GIB, 400.0), 400.01).failed == ("fabric.busbw",)


@pytest.mark.parametrize(
    ("code", "version"),
    [(22807, "2.28.7"), (20900, "2.9.0"), (2708, "2.7.8"), (2806, "2.8.6")],
)
def test_nccls_version_code_is_read_on_either_side_of_2_9(code, version):
    assert libraries(f"# nccl-tests version 2.17.6 nccl-headers={code} nccl-library={code}\n") == f"NCCL {version}"


def test_the_plugin_and_nccl_versions_are_named_and_a_log_naming_neither_says_none():
    text = "NCCL INFO NCCL version 2.18.5+cuda12.2\nNCCL INFO Initializing aws-ofi-nccl 1.7.3-aws\n"
    assert libraries(text) == "NCCL 2.18.5+cuda12.2, aws-ofi-nccl 1.7.3-aws"
    assert libraries("nothing here\n") is None


def test_ranks_and_nodes_come_from_the_header_else_from_nccls_counts():
    header = "# Collective test starting: all_reduce_perf\n#  Rank  0 Group  0 Pid  1 on node-a\n#  Rank  1 Group  0 Pid  2 on node-b\n"
    header += "#  Rank  2 Group  0 Pid  3 on node-b\n"
    facts = run_facts(header)
    assert (facts.test, facts.nodes, facts.ranks) == ("all_reduce_perf", 2, 3)
    counted = run_facts("NCCL INFO comm 0x1 rank 0 nRanks 16 nNodes 2\nNCCL INFO comm 0x2 rank 1 nranks 8 nNodes 1\n")
    assert (counted.test, counted.nodes, counted.ranks) == (None, 2, 16)


@settings(max_examples=examples(60), deadline=None)
@given(
    line=st.floats(min_value=1, max_value=1000, allow_nan=False).map(lambda value: round(value, 2)),
    rows=st.lists(st.tuples(st.integers(min_value=0, max_value=34), st.floats(min_value=0, max_value=1000).map(lambda v: round(v, 2))), max_size=8),
)
def test_busbw_passes_exactly_when_the_best_row_of_at_least_1_gib_reaches_the_line(line, rows):
    # Sizes 2^0 .. 2^34 bytes: below, at and above the 1 GiB (2^30) floor.
    text = EFA + HEADER + "".join(_row(2**power, busbw) for power, busbw in rows)
    large = [busbw for power, busbw in rows if 2**power >= GIB]
    assert [row.size_bytes for row in parse_table(text)] == [2**power for power, _ in rows]
    assert _verdict(text, line)["fabric.busbw"][0] == (bool(large) and max(large) >= line)
