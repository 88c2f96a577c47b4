"""The baseline's pure parts (acceptance/baseline.py, acceptance/regression.py): what a log says of its run, the file's
bytes and how it is read back, and the size-by-size comparison, on the published logs and variants derived from them."""

from __future__ import annotations

import hashlib
import json

import pytest

from acceptance.baseline import Baseline, BaselineError, Shape, observe
from acceptance.nccl import run_facts
from acceptance.nccom import run_facts as nccom_facts
from acceptance.regression import compare
from tests.acceptance.baselines import NCCOM_TABLE, P5_LOG, RING, TCP_LOG, scaled_busbw, with_header, without_size

GIB = 2**30
P5 = Shape("p5", "p5.48xlarge", "nccl-tests", "all_reduce_perf", 2, 16, None)


def _recorded(log: str, shape: Shape = P5) -> Baseline:
    run = observe(log.encode(), "nccl-tests", 320.0, "2026-12-01")[1]
    return Baseline(shape, {run.algorithm: run})


def _run(log: str):
    return observe(log.encode(), "nccl-tests", 320.0)[1]


def test_nccl_tests_header_gives_the_test_the_nodes_and_the_ranks_and_its_library_code_the_version():
    facts = run_facts(with_header(P5_LOG, nodes=2))
    assert (facts.test, facts.nodes, facts.ranks, facts.library) == ("all_reduce_perf", 2, 16, "NCCL 2.28.7")


def test_without_the_header_nccls_own_info_lines_count_ranks_and_nodes_and_name_the_version():
    # The real NCCL 2.28.9 capture: `comm ... rank 0 nRanks 1 nNodes 1` and `NCCL version 2.28.9+cuda13.0`.
    facts = run_facts(TCP_LOG)
    assert (facts.test, facts.nodes, facts.ranks, facts.library) == (None, 1, 1, "NCCL 2.28.9+cuda13.0")
    assert run_facts(P5_LOG) == run_facts("")  # the published excerpt says none of it


def test_the_libraries_are_nccls_version_line_and_aws_ofi_nccls_initializing_line():
    # aws-ofi-nccl: NCCL_OFI_INFO(..., "Initializing " PACKAGE_STRING), PACKAGE_STRING being `aws-ofi-nccl <version>`.
    info = "[1,0]<stdout>:node-0:22:22 [0] NCCL INFO "
    log = f"{info}NCCL version 2.18.5+cuda12.2\n{info}NET/OFI Initializing aws-ofi-nccl 1.7.3-aws\n" + P5_LOG
    assert run_facts(log).library == "NCCL 2.18.5+cuda12.2, aws-ofi-nccl 1.7.3-aws"


def test_nccom_tests_command_line_gives_the_operation_ranks_and_nodes_and_a_bare_table_gives_none():
    facts = nccom_facts(NCCOM_TABLE)
    assert (facts.test, facts.nodes, facts.ranks) == ("all_reduce", 2, 64)
    table = "\n".join(NCCOM_TABLE.splitlines()[1:])
    assert (nccom_facts(table).nodes, nccom_facts(table).ranks) == (None, None)


def test_a_run_keeps_the_out_of_place_busbw_of_every_size_from_1_gib_with_its_provenance():
    run = observe(P5_LOG.encode(), "nccl-tests", 320.0, "2026-12-01")[1]
    assert run.busbw == ((GIB, 313.29), (2 * GIB, 437.79))
    assert (run.algorithm, run.unit, run.transport) == ("default", "GB/s", "network AWS Libfabric; provider efa")
    assert (run.log_sha256, run.measured_on, run.dated_by) == (hashlib.sha256(P5_LOG.encode()).hexdigest(), "2026-12-01", "--at")
    assert _run(RING + P5_LOG).algorithm == "ring"


def test_a_run_is_dated_by_at_else_by_the_first_time_the_log_prints_else_not_at_all():
    stamped = P5_LOG.replace("313.29      0\n", "313.29      0  2026-11-27 09:15:02\n")  # nccl-tests' timestamp column
    assert (_run(stamped).measured_on, _run(stamped).dated_by) == ("2026-11-27", "the log")
    assert observe(stamped.encode(), "nccl-tests", 320.0, "2026-12-01")[1].measured_on == "2026-12-01"
    assert (_run(P5_LOG).measured_on, _run(P5_LOG).dated_by) == (None, None)


def test_nccom_busbw_is_kept_as_printed_in_gibibytes():
    _, run = observe(NCCOM_TABLE.encode(), "nccom-test", 40.0)
    assert (run.busbw, run.unit) == (((GIB, 47.09),), "GiB/s")


def test_the_file_is_sorted_indented_json_that_reads_back_to_the_same_bytes():
    text = _recorded(P5_LOG).as_json()
    document = json.loads(text)
    assert text == json.dumps(document, indent=2, sort_keys=True) + "\n"
    shape = {"pool": "p5", "instance_type": "p5.48xlarge", "benchmark": "nccl-tests", "test": "all_reduce_perf", "nodes": 2, "ranks": 16}
    assert document["shape"] == shape | {"scope": None}
    assert document["runs"]["default"]["busbw"] == [{"size_bytes": GIB, "busbw": 313.29}, {"size_bytes": 2 * GIB, "busbw": 437.79}]
    assert Baseline.from_json(text).as_json() == text


def _broken(edit) -> str:
    document = json.loads(_recorded(P5_LOG).as_json())
    edit(document)
    return json.dumps(document)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not JSON: Expecting property name enclosed in double quotes at line 1, column 2"),
        ("[]", 'not a railyard fabric baseline (no "kind": "railyard.dev/fabric-baseline")'),
        (_broken(lambda d: d.update(version=2)), "version 2: this railyard reads version 1"),
        (_broken(lambda d: d["shape"].pop("instance_type")), "shape.instance_type: missing"),
        (_broken(lambda d: d["shape"].update(nodes=True)), "shape.nodes: expected a whole number, found true"),
        (_broken(lambda d: d["shape"].update(benchmark="ib_write_bw")), 'shape.benchmark: "ib_write_bw" is none of nccl-tests, nccom-test'),
        (_broken(lambda d: d["runs"]["default"]["busbw"][1].update(busbw="fast")), 'runs.default.busbw[1].busbw: expected a number, found "fast"'),
        (_broken(lambda d: d["runs"]["default"].update(busbw=[])), "runs.default.busbw: expected a list of {size_bytes, busbw}, found []"),
        (_broken(lambda d: d.update(runs={})), "runs: no run recorded"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_field(text, message):
    with pytest.raises(BaselineError) as caught:
        Baseline.from_json(text)
    assert str(caught.value) == message


def test_the_same_run_against_itself_passes_every_size_at_ratio_one():
    comparison = compare(_recorded(P5_LOG), P5, _run(P5_LOG), 0.10)
    assert comparison.passed
    assert [(s.size_bytes, s.ratio, s.verdict) for s in comparison.sizes] == [(GIB, 1.0, "pass"), (2 * GIB, 1.0, "pass")]


def test_a_run_20_percent_slower_at_one_size_fails_that_size_and_only_that_one():
    comparison = compare(_recorded(P5_LOG), P5, _run(scaled_busbw(P5_LOG, 0.8, (2 * GIB,))), 0.10)
    assert not comparison.passed
    assert [(s.size_bytes, s.baseline, s.measured, s.verdict) for s in comparison.sizes] == [
        (GIB, 313.29, 313.29, "pass"),
        (2 * GIB, 437.79, 350.23, "fail"),
    ]
    check = comparison.check("p5.json")
    assert (check.name, check.passed, check.observed) == ("fabric.baseline", False, "1 GiB 1.00; 2 GiB 0.80")


def test_a_run_within_the_tolerance_passes_and_a_tighter_tolerance_fails_it():
    slower = _run(scaled_busbw(P5_LOG, 0.95))
    assert compare(_recorded(P5_LOG), P5, slower, 0.10).passed
    assert not compare(_recorded(P5_LOG), P5, slower, 0.02).passed


def test_a_size_only_the_baseline_holds_fails_and_a_size_only_the_run_has_is_reported_not_judged():
    stopped = compare(_recorded(P5_LOG), P5, _run(without_size(P5_LOG, 2 * GIB)), 0.10)
    assert [(s.size_bytes, s.verdict) for s in stopped.sizes] == [(GIB, "pass"), (2 * GIB, "missing")]
    assert not stopped.passed
    longer = compare(_recorded(without_size(P5_LOG, 2 * GIB)), P5, _run(P5_LOG), 0.10)
    assert [(s.size_bytes, s.verdict) for s in longer.sizes] == [(GIB, "pass"), (2 * GIB, "new")]
    assert longer.passed


def test_another_shape_is_refused_naming_every_field_that_differs():
    four = Shape("p5", "p5.48xlarge", "nccl-tests", "all_gather_perf", 4, 32, None)
    with pytest.raises(BaselineError) as caught:
        compare(_recorded(P5_LOG), four, _run(P5_LOG), 0.10)
    named = "test: baseline all_reduce_perf, this run all_gather_perf; nodes: baseline 2, this run 4; ranks: baseline 16, this run 32"
    assert f"was measured on another shape ({named}); record this shape's own baseline" == str(caught.value)


def test_a_run_of_an_algorithm_the_baseline_does_not_hold_is_refused():
    with pytest.raises(BaselineError) as caught:
        compare(_recorded(P5_LOG), P5, _run(RING + P5_LOG), 0.10)
    assert str(caught.value) == "holds no ring run (it holds: default); record one with --record-baseline"


def test_a_new_library_release_is_noted_not_refused():
    newer = "[1,0]<stdout>:node-0:22:22 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n" + P5_LOG
    comparison = compare(_recorded(P5_LOG), P5, _run(newer), 0.10)
    assert comparison.passed
    assert comparison.notes == ("libraries: not named in the baseline, NCCL 2.21.5+cuda12.4 in this run",)
