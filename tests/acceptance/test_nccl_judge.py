"""The fabric judge over published nccl-tests output and a real TCP fallback: the best >= 1 GiB out-of-place busbw
against the line, never "Avg bus bandwidth", and the transport NCCL actually used."""

from __future__ import annotations

import pytest

from acceptance.nccl import GIB, judge, parse_table, transport
from tests.acceptance.evidence import FIXTURES

EFA_LOG = (FIXTURES / "nccl" / "p5-two-nodes-efa.log").read_text(encoding="utf-8")
TCP_LOG = (FIXTURES / "nccl" / "tcp-fallback.log").read_text(encoding="utf-8")
P5_LINE = 320.0  # 0.8 x 3200 Gbps / 8, what railyard derives for a p5.48xlarge pool (tests/acceptance/test_expectations.py)


def test_the_published_table_is_read_out_of_place_through_mpiruns_prefix():
    rows = parse_table(EFA_LOG)
    assert [(row.size_bytes, row.busbw_gbs) for row in rows if row.size_bytes >= GIB] == [(1073741824, 313.29), (2147483648, 437.79)]
    assert [row.size_bytes for row in rows][:2] == [0, 67108864]  # the published `...` line is skipped
    assert {row.wrong for row in rows} == {0.0}


def test_a_published_two_node_p5_run_over_efa_passes_the_p5_line():
    report = judge(EFA_LOG, P5_LINE)
    assert report.passed
    assert [(c.name, c.observed) for c in report.checks] == [
        ("fabric.transport", "network AWS Libfabric; provider efa"),
        ("fabric.correctness", "7 rows, none wrong"),
        ("fabric.busbw", "best 437.79 GB/s at 2 GiB (1 GiB 313.29, 2 GiB 437.79)"),
    ]
    # The run used NCCL's default algorithm: the report says it doesn't measure the network.
    assert list(report.skipped) == ["fabric.network-bound"]


def test_a_run_over_nccls_socket_transport_fails_whatever_its_bandwidth():
    assert transport(TCP_LOG) == (["Socket"], [], "default")
    report = judge(TCP_LOG, P5_LINE)
    assert report.failed == ("fabric.transport",)
    assert report.checks[0].observed == "network Socket"


def test_aws_ofi_nccl_bound_to_libfabrics_tcp_provider_fails_the_transport():
    log = EFA_LOG.replace("Selected Provider is efa", "Selected Provider is tcp")
    assert judge(log, P5_LINE).failed == ("fabric.transport",)


def test_a_log_without_nccl_debug_names_no_network_and_fails():
    table_only = "\n".join(line for line in EFA_LOG.splitlines() if "NCCL INFO" not in line)
    report = judge(table_only, P5_LINE)
    assert report.failed == ("fabric.transport",)
    assert report.checks[0].observed == "network never named (run with NCCL_DEBUG=INFO)"


def test_a_ring_run_below_the_line_fails_busbw():
    # Derived from the published run: forced to Ring, and halved, as a fabric with half its EFA links would give.
    halved = EFA_LOG.replace("313.29", "156.64").replace("437.79", "218.89")
    ring = "[1,0]<stdout>:node-0:22:22 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n" + halved
    report = judge(ring, P5_LINE)
    assert report.failed == ("fabric.busbw",)
    assert report.checks[2].observed == "best 218.89 GB/s at 2 GiB (1 GiB 156.64, 2 GiB 218.89)"
    assert report.skipped == {}


def test_avg_bus_bandwidth_is_never_the_verdict_a_sweep_that_stops_below_1_gib_fails():
    short = "\n".join(line for line in EFA_LOG.splitlines() if not any(size in line for size in ("1073741824", "2147483648")))
    short = short.replace("Avg bus bandwidth    : 52.9753", "Avg bus bandwidth    : 999.0")
    report = judge(short, P5_LINE)
    assert report.failed == ("fabric.busbw",)
    assert report.checks[2].observed == "no row at 1 GiB or more (sweep to -e 16G)"


def test_wrong_values_fail_correctness():
    wrong = EFA_LOG.replace("  437.79      0   9195.2", "  437.79      3   9195.2")
    assert judge(wrong, P5_LINE).failed == ("fabric.correctness",)


# nccl-tests 2.x before the root column, with an `error` column (NVIDIA/nccl#527's era), and today's layout.
OLD_HEADER = "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error"
OLD_ROW = "  1073741824     268435456   float     sum    75300   14.26   28.52  4e-07    75100   14.30   28.59  4e-07"
NEW_HEADER = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
NEW_ROW = "  1073741824     268435456     float     sum      -1   6426.3  167.09  313.29      0   6426.1  167.09  313.29      0"


@pytest.mark.parametrize(("header", "row", "busbw"), [(OLD_HEADER, OLD_ROW, 28.52), (NEW_HEADER, NEW_ROW, 313.29)])
def test_the_busbw_column_is_found_from_the_header_in_either_layout(header, row, busbw):
    assert [r.busbw_gbs for r in parse_table(f"{header}\n{row}\n")] == [busbw]
