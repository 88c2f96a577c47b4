"""What the NCCL reader (acceptance/nccl.py) says of a run beside its verdict, where mutation testing found it unheld:
the libraries' versions read whichever way the ranks are counted, the test's name kept when only NCCL's INFO lines count
the ranks, and a log that counts ranks but not nodes (or nodes but not ranks) read as "not said", not as an error."""

from __future__ import annotations

from acceptance.nccl import GIB, Row, RunFacts, judge, parse_table, run_facts

VERSIONS = "NCCL INFO NCCL version 2.18.5+cuda12.2\nNCCL INFO Initializing aws-ofi-nccl 1.7.3-aws\n"
LIBRARIES = "NCCL 2.18.5+cuda12.2, aws-ofi-nccl 1.7.3-aws"


def test_a_header_with_rank_lines_gives_the_test_nodes_ranks_and_the_libraries_versions():
    header = "# Collective test starting: all_gather_perf\n#  Rank  0 Group  0 Pid  1 on node-a\n#  Rank  1 Group  0 Pid  2 on node-b\n"
    assert run_facts(header + VERSIONS) == RunFacts("all_gather_perf", 2, 2, LIBRARIES)


def test_without_rank_lines_the_test_and_libraries_are_still_read_beside_nccls_counts():
    text = "# Collective test starting: reduce_scatter_perf\n" + VERSIONS + "NCCL INFO comm 0x1 rank 0 nRanks 16 nNodes 2\n"
    assert run_facts(text) == RunFacts("reduce_scatter_perf", 2, 16, LIBRARIES)


def test_ranks_counted_without_nodes_leave_the_nodes_unsaid_and_the_reverse():
    assert run_facts("NCCL INFO comm 0x1 rank 0 nRanks 16\n") == RunFacts(None, None, 16, None)
    assert run_facts("NCCL INFO comm 0x1 rank 0 nNodes 2\n") == RunFacts(None, 2, None, None)
    assert run_facts("no NCCL lines at all\n") == RunFacts(None, None, None, None)


HEADER = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
EFA = "node-0:1:1 [0] NCCL INFO Using network Libfabric\nnode-0:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa\n"
ROW = "  1073741824  268435456  float  sum  -1  1000.0  100.00  {busbw}  {wrong}  1000.0  100.00  {busbw}  {wrong}\n"


def test_every_check_of_a_default_algorithm_run_states_what_it_expected_saw_and_read():
    # A run on EFA at 400 GB/s against a 320 GB/s line, one value wrong, NCCL's default algorithm: each check as the
    # node's annotation prints it, with the source the caller named, and the skip that says why the run proves less.
    report = judge(EFA + HEADER + ROW.format(busbw=400.0, wrong=1), 320.0, source="fabric/nccl-tests.log")
    assert [(c.name, c.passed, c.expected, c.observed, c.source) for c in report.checks] == [
        (
            "fabric.transport",
            True,
            "NCCL over EFA: `Using network Libfabric` (aws-ofi-nccl), provider efa",
            "network Libfabric; provider efa",
            "fabric/nccl-tests.log",
        ),
        ("fabric.correctness", False, "no wrong values in any row", "1 rows with wrong values", "fabric/nccl-tests.log"),
        ("fabric.busbw", True, ">= 320.0 GB/s out-of-place busbw at >= 1 GiB", "best 400 GB/s at 1 GiB (1 GiB 400)", "fabric/nccl-tests.log"),
    ]
    assert report.skipped == {
        "fabric.network-bound": "NCCL_ALGO was default: only a Ring run measures the network (a default run on few nodes can beat the NICs)"
    }


def test_a_sweep_short_of_1_gib_still_states_the_line_it_was_held_to_and_the_default_source():
    report = judge(EFA + HEADER + ROW.format(busbw=400.0, wrong=0).replace("1073741824", "536870912"), 320.25)
    assert [(c.name, c.expected, c.observed, c.source) for c in report.checks][2] == (
        "fabric.busbw",
        ">= 320.2 GB/s out-of-place busbw at >= 1 GiB",
        "no row at 1 GiB or more (sweep to -e 16G)",
        "nccl-tests log",
    )


NEW_ROW = "  1073741824  268435456  float  sum  -1  6426.3  167.09  313.29  0  6426.1  167.09  313.29  0\n"


def test_a_table_printed_without_its_header_is_read_in_todays_layout_busbw_eighth_and_wrong_ninth():
    assert parse_table(NEW_ROW) == [Row(GIB, 313.29, 0.0)]
    assert parse_table(NEW_ROW.replace("313.29  0  6426.1", "313.29  2  6426.1")) == [Row(GIB, 313.29, 2.0)]


def test_the_older_layouts_error_column_is_read_as_the_rows_deviation_with_its_type_not_as_a_count():
    old = "#  size  count  type  redop  time  algbw  busbw  error  time  algbw  busbw  error\n"
    assert parse_table(old + "  1073741824  268435456  float  sum  75300  14.26  28.52  0e+00  75100  14.30  28.59  0e+00\n") == [
        Row(GIB, 28.52, None, 0.0, "float")
    ]


def test_a_header_without_a_wrong_column_reads_rows_with_no_wrong_figure():
    assert parse_table(
        "#  size  count  type  redop  root  time  algbw  busbw\n  1073741824  268435456  float  sum  -1  6426.3  167.09  313.29\n"
    ) == [Row(GIB, 313.29, None)]


def test_a_row_whose_figures_do_not_read_is_skipped_and_the_rows_after_it_still_count():
    broken = NEW_ROW.replace("313.29  0  6426.1", "N/A  0  6426.1").replace("1073741824", "536870912")
    assert parse_table(HEADER + broken + NEW_ROW) == [Row(GIB, 313.29, 0.0)]


def test_lines_that_do_not_start_with_a_size_are_no_rows_whatever_numbers_follow():
    # NCCL's channel lines carry numbers where busbw sits; a line naming its columns before the figures is no row either.
    channels = "node-0:22:22 [0] NCCL INFO Channel 00/32 :    0   1   2   3   4   5   6   7\n"
    labelled = "size 1073741824 268435456 float sum -1 6426.3 167.09 313.29 0\n"
    assert parse_table(HEADER + channels + labelled + "\n" + NEW_ROW) == [Row(GIB, 313.29, 0.0)]
