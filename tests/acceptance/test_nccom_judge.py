"""The Trainium fabric judge over AWS's published nccom-test table and variants derived from it: the best >= 1 GiB
busbw (GiB/s, converted to GB/s) against the line, every size completed, and the transport where the output names it."""

from __future__ import annotations

from acceptance.nccom import judge, parse_table
from railyard.expectations import NEURON_FRACTION, FabricLine
from tests.acceptance.evidence import FIXTURES

TABLE = (FIXTURES / "nccom" / "trn1-two-instances.txt").read_text(encoding="utf-8")
TRN1_LINE = FabricLine("trn1", 800.0, NEURON_FRACTION).line_gbs  # 0.4 x 800 Gbps / 8 = 40 GB/s on a trn1.32xlarge


def scaled(text: str, factor: float) -> str:
    """The table with every busbw multiplied by `factor`: the same run on a slower fabric."""
    lines = []
    for line in text.splitlines():
        tokens = line.split()
        if len(tokens) == 6 and tokens[0].isdigit():
            tokens[5] = f"{float(tokens[5]) * factor:.2f}"
            line = "    ".join(tokens)
        lines.append(line)
    return "\n".join(lines)


def test_the_published_table_is_read_row_by_row_in_gibibytes():
    rows = parse_table(TABLE)
    assert len(rows) == 28
    assert (rows[0].size_bytes, rows[0].busbw_gibs) == (8, 0.0)
    assert (rows[-1].size_bytes, rows[-1].busbw_gibs) == (1073741824, 47.09)
    assert round(rows[-1].busbw_gbs, 2) == 50.56


def test_the_published_two_instance_run_passes_the_trn1_line_and_leaves_the_unnamed_transport_unjudged():
    report = judge(TABLE, TRN1_LINE)
    assert TRN1_LINE == 40.0
    assert report.passed
    assert [(check.name, check.passed, check.observed) for check in report.checks] == [
        ("fabric.completed", True, "28 sizes completed"),
        ("fabric.busbw", True, "best 50.56 GB/s (47.09 GiB/s) at 1 GiB (1 GiB 47.09 GiB/s)"),
    ]
    assert report.skipped == {"fabric.transport": "nccom-test's table does not name the transport (the job sets FI_PROVIDER=efa)"}


def test_a_run_below_the_line_fails_on_busbw():
    report = judge(scaled(TABLE, 0.5), TRN1_LINE)
    assert report.failed == ("fabric.busbw",)
    assert report.checks[-1].observed == "best 25.29 GB/s (23.55 GiB/s) at 1 GiB (1 GiB 23.55 GiB/s)"


def test_a_sweep_that_stops_below_1_gib_fails_even_though_its_average_is_printed():
    small = "\n".join(line for line in TABLE.splitlines() if not line.strip().startswith("1073741824"))
    report = judge(small, TRN1_LINE)
    assert report.failed == ("fabric.busbw",)
    assert report.checks[-1].observed == "no row at 1 GiB or more (sweep to -e 16G)"


def test_a_size_that_failed_in_neuron_bench_fails_the_run():
    failed = TABLE.replace(
        "     536870912       134217728    fp32       21803          22.93          45.15",
        "     536870912    Failure running neuron-bench - log file /tmp/nccom_test_log_7pqpdfjf.log",
    ).replace("Avg bus bandwidth:      9.3924GB/s", "1 errors found - test failed")
    report = judge(failed, TRN1_LINE)
    assert report.failed == ("fabric.completed",)
    assert report.checks[0].observed == "27 sizes completed; 1 errors found - test failed"


def test_a_log_that_names_a_provider_other_than_efa_fails_the_transport():
    tcp = "NCCL INFO NET/OFI Selected Provider is tcp (found 1 nics)\nNCCL INFO Using network Socket\n" + TABLE
    report = judge(tcp, TRN1_LINE)
    assert report.failed == ("fabric.transport",)
    assert report.checks[0].observed == "network Socket; provider tcp"
    efa = "NCCL INFO NET/OFI Selected Provider is efa (found 8 nics)\n" + TABLE
    assert judge(efa, TRN1_LINE).passed


def test_the_command_judges_a_neuron_pool_with_nccom_test_against_its_own_line(capsys):
    from railyard.cli import main
    from tests.kubernetes.fixtures import EXAMPLES

    log = str(FIXTURES / "nccom" / "trn1-two-instances.txt")
    assert main(["acceptance", "judge", log, str(EXAMPLES / "heterogeneous.yaml"), "--pool", "trainium"]) == 1
    printed = capsys.readouterr().out
    assert printed.splitlines()[0] == "pool trainium: line 160.0 GB/s = 0.4 x 3200 Gbps of EFA / 8 (to calibrate on hardware)"
    assert printed.splitlines()[-1] == "REJECTED (1 failed: fabric.busbw)"
