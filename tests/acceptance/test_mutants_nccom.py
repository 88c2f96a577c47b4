"""The nccom-test judge (acceptance/nccom.py) at its edges, where mutation testing found it unheld: every check's
expected words and source, busbw exactly at the line after the GiB-to-GB conversion and a hair under, the 1 GiB floor
exactly and one byte under, a transport named by the network alone or the provider alone, rows that do not read, and
the run's facts from nccom-test's command line in each of its spellings."""

from __future__ import annotations

import pytest

from acceptance.nccl import GIB, RunFacts
from acceptance.nccom import judge, parse_table, run_facts

HEADER = "       size(B)    count(elems)    type    time(us)    algbw(GB/s)    busbw(GB/s)\n"


def _row(size: int, busbw_gibs: float) -> str:
    return f"    {size}    {size // 4}    fp32    41806    23.92    {busbw_gibs}\n"


def test_every_check_states_its_expectation_and_the_source_the_caller_named():
    report = judge(HEADER + _row(GIB, 47.09), 40.0, source="nccom-test.txt")
    assert [(c.name, c.passed, c.expected, c.observed, c.source) for c in report.checks] == [
        ("fabric.completed", True, "every size completed (no neuron-bench failure)", "1 sizes completed", "nccom-test.txt"),
        ("fabric.busbw", True, ">= 40.0 GB/s busbw at >= 1 GiB", "best 50.56 GB/s (47.09 GiB/s) at 1 GiB (1 GiB 47.09 GiB/s)", "nccom-test.txt"),
    ]
    assert judge(HEADER + _row(GIB, 47.09), 40.0).checks[0].source == "nccom-test output"


@pytest.mark.parametrize(("busbw_gibs", "passed"), [(40.0, True), (39.99, False)])
def test_busbw_is_held_to_the_line_in_gb_s_so_40_gib_s_clears_a_42_9_gb_s_line_and_a_hair_under_does_not(busbw_gibs, passed):
    # 40 GiB/s x 1.073741824 = 42.94967296 GB/s: the line set exactly there.
    assert judge(HEADER + _row(GIB, busbw_gibs), 40.0 * GIB / 1e9).checks[-1].passed is passed


def test_only_rows_of_at_least_1_gib_count_and_the_best_of_them_is_judged():
    text = HEADER + _row(GIB - 1, 90.0) + _row(GIB, 30.0) + _row(2 * GIB, 45.0)
    assert judge(text, 40.0).checks[-1].observed == "best 48.32 GB/s (45 GiB/s) at 2 GiB (1 GiB 30 GiB/s, 2 GiB 45 GiB/s)"
    assert judge(HEADER + _row(GIB - 1, 90.0), 40.0).checks[-1].observed == "no row at 1 GiB or more (sweep to -e 16G)"


@pytest.mark.parametrize(
    ("lines", "passed", "seen"),
    [
        ("NCCL INFO Using network Libfabric\n", True, "network Libfabric; provider not named"),
        ("NET/OFI Selected Provider is efa\n", True, "network not named; provider efa"),
        ("NET/OFI Selected Provider is tcp\n", False, "network not named; provider tcp"),
        ("NCCL INFO Using network Socket\n", False, "network Socket; provider not named"),
    ],
)
def test_a_transport_named_by_its_network_or_its_provider_alone_is_judged_on_what_is_named(lines, passed, seen):
    (check,) = [c for c in judge(lines + HEADER + _row(GIB, 47.09), 40.0).checks if c.name == "fabric.transport"]
    assert (check.passed, check.expected, check.observed) == (passed, "collectives over EFA: libfabric provider efa", seen)


def test_rows_that_do_not_read_are_skipped_and_the_rows_after_them_still_count():
    broken = "    536870912    134217728    fp32    21803    22.93    N/A\n"
    assert [(r.size_bytes, r.busbw_gibs) for r in parse_table(HEADER + broken + "\n" + _row(GIB, 47.09))] == [(GIB, 47.09)]


def test_a_table_printed_without_its_header_is_read_in_the_guides_layout():
    assert [(r.size_bytes, r.busbw_gibs) for r in parse_table(_row(GIB, 47.09))] == [(GIB, 47.09)]


@pytest.mark.parametrize(
    ("command", "facts"),
    [
        ("nccom-test -r 64 -N 2 allr --hosts a b", RunFacts("all_reduce", 2, 64, None)),
        ("nccom-test --nworkers 32 --nnodes 4 all_gather", RunFacts("all_gather", 4, 32, None)),
        ("nccom-test -r 32 redsct", RunFacts("reduce_scatter", 1, 32, None)),
        ("nccom-test -r x -N y sendrecv", RunFacts("sendrecv", None, None, None)),
        ("nccom-test -b 8", RunFacts(None, 1, None, None)),
    ],
)
def test_the_operation_ranks_and_nodes_come_from_the_command_line_in_each_spelling(command, facts):
    assert run_facts(f"NEURON_RT_ROOT_COMM_ID=10.1.4.145:45654 {command}\n" + HEADER) == facts


def test_output_that_does_not_repeat_the_command_says_nothing_of_the_run_but_its_libraries():
    assert run_facts(HEADER + "NCCL INFO NCCL version 2.18.5\n") == RunFacts(None, None, None, "NCCL 2.18.5")


def test_the_options_are_read_after_the_first_nccom_test_on_the_line_not_before_it_nor_after_a_host_named_like_it():
    line = "srun -N 4 nccom-test -r 64 --hosts nccom-test-0 nccom-test-1 -N 2 allr\n"
    assert run_facts(line + HEADER) == RunFacts("all_reduce", 2, 64, None)
    assert run_facts("srun -N 4 nccom-test -r 32 allg\n" + HEADER) == RunFacts("all_gather", 1, 32, None)


def test_a_header_with_another_layout_says_where_busbw_sits_and_lines_not_starting_with_a_size_are_no_rows():
    wider = "       size(B)    count(elems)    type    time(us)    algbw(GB/s)    busbw(GB/s)    errors\n"
    row = "    1073741824    268435456    fp32    41806    23.92    47.09    0\n"
    labelled = "size 1073741824 268435456 fp32 41806 23.92\n"
    assert [(r.size_bytes, r.busbw_gibs) for r in parse_table(wider + row)] == [(GIB, 47.09)]
    assert [(r.size_bytes, r.busbw_gibs) for r in parse_table(labelled + _row(GIB, 47.09))] == [(GIB, 47.09)]


def test_every_network_and_provider_named_is_shown_and_the_last_failure_line_is_quoted():
    named = "NCCL INFO Using network Libfabric\nNCCL INFO Using network Socket\nSelected Provider is efa\nSelected Provider is tcp\n"
    (transport,) = [c for c in judge(named + HEADER + _row(GIB, 47.09), 40.0).checks if c.name == "fabric.transport"]
    assert (transport.passed, transport.observed) == (False, "network Libfabric, Socket; provider efa, tcp")
    failed = "Failure running neuron-bench - log file /tmp/a\nFailure running neuron-bench - log file /tmp/b\n2 errors found - test failed\n"
    (completed,) = [c for c in judge(HEADER + _row(GIB, 47.09) + failed, 40.0).checks if c.name == "fabric.completed"]
    assert (completed.passed, completed.observed) == (False, "1 sizes completed; 2 errors found - test failed")


def test_a_sweep_short_of_1_gib_fails_busbw_stating_the_line():
    (busbw,) = [c for c in judge(HEADER + _row(GIB // 2, 90.0), 40.0).checks if c.name == "fabric.busbw"]
    assert (busbw.passed, busbw.expected, busbw.observed) == (False, ">= 40.0 GB/s busbw at >= 1 GiB", "no row at 1 GiB or more (sweep to -e 16G)")


def test_the_libraries_are_read_beside_the_command_line():
    text = "nccom-test -r 32 allr\nNCCL INFO NCCL version 2.18.5\n" + HEADER
    assert run_facts(text) == RunFacts("all_reduce", 1, 32, "NCCL 2.18.5")
