"""nccl-tests before v2.13.0 print `error`, the largest deviation from the expected value, not a count of wrong elements:
the gate fails a row only where nccl-tests did, past the type's tolerance times (ranks - 1) (src/common.cu `DeltaMaxValue`
and `CheckData` at v2.11.0). A float reduction is never exact, so a healthy run's `4e-07` passes."""

from __future__ import annotations

import pytest

from acceptance.nccl import GIB, Row, judge, parse_table, run_facts

HEADER = "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error"


def _log(error: str, kind: str = "float", ranks: int = 16) -> str:
    """An older nccl-tests log over `ranks` ranks (eight a host, v2.11.0's `#   Rank N Pid P on HOST` lines) with one 1 GiB row."""
    lines = ["# Using devices"]
    lines += [
        f"#   Rank {rank:2d} Pid {4000 + rank:6d} on node-{rank // 8} device {rank % 8:2d} [0x{rank:02x}] NVIDIA H100 80GB HBM3"
        for rank in range(ranks)
    ]
    lines += [
        "node-0:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa",
        "node-0:1:1 [0] NCCL INFO Using network Libfabric",
        HEADER,
        f"  1073741824     268435456   {kind}     sum    75300   14.26  400.52  {error}    75100   14.30  400.59  {error}",
    ]
    return "\n".join(lines) + "\n"


def test_the_rank_lines_before_the_group_column_count_the_ranks_and_hosts():
    facts = run_facts(_log("0e+00"))
    assert (facts.ranks, facts.nodes) == (16, 2)


@pytest.mark.parametrize(
    ("kind", "ranks", "allowed"),
    [("float", 16, 15e-5), ("half", 16, 15e-2), ("bfloat16", 2, 1e-2), ("double", 8, 7e-12), ("float", None, 1e-5)],
)
def test_a_deviation_up_to_the_types_tolerance_times_ranks_less_one_passes_and_past_it_fails(kind, ranks, allowed):
    assert not Row(GIB, 400.0, None, allowed, kind).is_wrong(ranks)
    assert Row(GIB, 400.0, None, allowed * 1.01, kind).is_wrong(ranks)


@pytest.mark.parametrize("kind", ["int32", "int8", "uint64", ""])
def test_an_integer_row_is_exact_any_deviation_fails(kind):
    assert not Row(GIB, 400.0, None, 0.0, kind).is_wrong(16)
    assert Row(GIB, 400.0, None, 1e-190, kind).is_wrong(16)


def test_one_rank_allows_no_deviation_and_a_count_is_still_a_count():
    assert Row(GIB, 400.0, None, 1e-9, "float").is_wrong(1)
    assert not Row(GIB, 400.0, 0.0).is_wrong(1) and Row(GIB, 400.0, 1.0).is_wrong(None)


def test_a_healthy_float_runs_rounding_passes_correctness_as_nccl_tests_passed_it():
    report = judge(_log("4e-07"), 360.0)
    [correctness] = [check for check in report.checks if check.name == "fabric.correctness"]
    assert (correctness.passed, correctness.observed) == (True, "1 rows, none wrong")
    assert report.failed == ()


def test_a_deviation_past_the_tolerance_fails_correctness_and_says_by_how_much():
    report = judge(_log("5e-01"), 360.0)
    [correctness] = [check for check in report.checks if check.name == "fabric.correctness"]
    assert correctness.observed == "1 rows with wrong values (largest error 0.5 in a float row, past nccl-tests' tolerance over 16 ranks)"
    assert report.failed == ("fabric.correctness",)


def test_the_row_reads_its_type_from_the_header():
    assert parse_table(_log("2e-03", kind="half")) == [Row(GIB, 400.52, None, 2e-03, "half")]


def test_a_log_that_does_not_count_its_ranks_is_held_to_two_ranks_tolerance_and_says_so():
    unranked = "\n".join(line for line in _log("2e-05").splitlines() if "Rank" not in line) + "\n"
    report = judge(unranked, 360.0)
    [correctness] = [check for check in report.checks if check.name == "fabric.correctness"]
    assert correctness.observed == (
        "1 rows with wrong values (largest error 2e-05 in a float row, past nccl-tests' tolerance over two ranks (the log does not say how many))"
    )
    assert judge(unranked.replace("2e-05", "1e-05"), 360.0).failed == ()


def test_the_tolerance_grows_with_the_ranks_the_log_lists():
    # 1e-4 is past two ranks' float tolerance (1e-5) but within sixteen's (15e-5).
    assert judge(_log("1e-04"), 360.0).failed == ()
    assert judge(_log("1e-04", ranks=2), 360.0).failed == ("fabric.correctness",)


def test_the_largest_of_several_wrong_rows_is_named_wherever_it_sits():
    rows = "".join(
        f"  {GIB * 2**shift}  268435456  float  sum  75300  14.26  400.52  {error}  75100  14.30  400.59  {error}\n"
        for shift, error in enumerate(("5e-01", "9e-01", "2e-01"))
    )
    [correctness] = [check for check in judge(_log("0e+00") + rows, 360.0).checks if check.name == "fabric.correctness"]
    assert correctness.observed == "3 rows with wrong values (largest error 0.9 in a float row, past nccl-tests' tolerance over 16 ranks)"


def test_a_header_that_names_no_type_reads_its_rows_and_holds_them_exact():
    header = "#  size  count  redop  time  algbw  busbw  error  time  algbw  busbw  error\n"
    text = _log("0e+00").replace(HEADER, header.rstrip("\n")).replace("   float     sum", "     sum")
    assert parse_table(text) == [Row(GIB, 400.52, None, 0.0, "")]
    [correctness] = [check for check in judge(text.replace("0e+00", "1e-30"), 360.0).checks if check.name == "fabric.correctness"]
    assert correctness.observed == (
        "1 rows with wrong values (largest error 1e-30 in a row whose type the header does not name, past nccl-tests' tolerance over 16 ranks)"
    )
