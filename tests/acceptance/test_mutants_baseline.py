"""A pool's fabric baseline (acceptance/baseline.py) on built logs and documents, where mutation testing found it
unheld: the best busbw kept per size where a size is printed twice, sizes under 1 GiB left out, an ISO 8601 time
dating the run, the transport in words when nothing is named, a shape's differences in words, a run replaced by
its algorithm's next, and each field of the file refused by name when it is the wrong kind."""

from __future__ import annotations

import json

import pytest

from acceptance.baseline import Baseline, BaselineError, Run, Shape, observe
from acceptance.nccl import GIB

HEADER = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
SHAPE = Shape("train", "p5.48xlarge", "nccl-tests", "all_reduce_perf", 2, 16, None)


def _row(size: int, busbw: float) -> str:
    return f"  {size}  {size // 4}  float  sum  -1  1000.0  100.00  {busbw}  0  1000.0  100.00  {busbw}  0\n"


def test_the_best_busbw_of_a_size_printed_twice_is_kept_and_sizes_under_1_gib_are_left_out():
    log = HEADER + _row(GIB // 2, 999.0) + _row(GIB, 300.0) + _row(GIB, 310.0) + _row(2 * GIB, 400.0) + _row(2 * GIB, 390.0)
    facts, run = observe(log.encode(), "nccl-tests", 320.0)
    assert run.busbw == ((GIB, 310.0), (2 * GIB, 400.0))
    assert (run.transport, run.library, run.design_line_gbs, run.unit) == ("network not named; provider not named", None, 320.0, "GB/s")
    assert (facts.test, facts.nodes, facts.ranks) == (None, None, None)


def test_an_iso_8601_time_in_the_log_dates_the_run():
    run = observe(("started 2026-11-27T09:15:02Z\n" + HEADER + _row(GIB, 300.0)).encode(), "nccl-tests", 320.0)[1]
    assert (run.measured_on, run.dated_by) == ("2026-11-27", "the log")


def test_a_shapes_differences_are_said_field_by_field_with_unknown_in_words():
    other = Shape("train", "p5en.48xlarge", "nccl-tests", None, 2, 16, "rack-a")
    assert SHAPE.differences(other) == [
        "instance_type: baseline p5.48xlarge, this run p5en.48xlarge",
        "test: baseline all_reduce_perf, this run not known",
        "scope: baseline not known, this run rack-a",
    ]
    assert SHAPE.differences(SHAPE) == []


def test_a_run_replaces_the_one_of_its_algorithm_and_keeps_the_others():
    ring = Run("ring", ((GIB, 300.0),), "GB/s", None, "t", 320.0, "a" * 64, None, None)
    tree = Run("tree", ((GIB, 350.0),), "GB/s", None, "t", 320.0, "b" * 64, None, None)
    newer = Run("ring", ((GIB, 305.0),), "GB/s", None, "t", 320.0, "c" * 64, "2026-11-28", "--at")
    grown = Baseline(SHAPE, {"ring": ring}).with_run(tree).with_run(newer)
    assert (grown.shape, grown.runs) == (SHAPE, {"ring": newer, "tree": tree})


def _document(**changes) -> str:
    run = {"busbw": [{"size_bytes": GIB, "busbw": 300.0}], "unit": "GB/s", "transport": "t", "log_sha256": "a" * 64, "design_line_gbs": 320.0}
    document = {
        "kind": "railyard.dev/fabric-baseline",
        "version": 1,
        "shape": {"pool": "train", "instance_type": "p5.48xlarge", "benchmark": "nccl-tests"},
        "runs": {"ring": run},
    }
    for path, value in changes.items():
        *parents, last = path.split("__")
        target = document
        for part in parents:
            target = target[part]
        target[last] = value
    return json.dumps(document)


def test_a_minimal_file_reads_with_every_optional_field_unknown():
    baseline = Baseline.from_json(_document())
    assert baseline.shape == Shape("train", "p5.48xlarge", "nccl-tests", None, None, None, None)
    assert baseline.runs == {"ring": Run("ring", ((GIB, 300.0),), "GB/s", None, "t", 320.0, "a" * 64, None, None)}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"shape": []}, "shape: expected an object, found []"),
        ({"shape__test": 5}, "shape.test: expected a string, found 5"),
        ({"shape__pool": 5}, "shape.pool: expected a string, found 5"),
        ({"shape__scope": 5}, "shape.scope: expected a string, found 5"),
        ({"runs__ring__busbw": [{"size_bytes": True, "busbw": 1.0}]}, "runs.ring.busbw[0].size_bytes: expected a whole number, found true"),
        ({"runs__ring__unit": 5}, "runs.ring.unit: expected a string, found 5"),
        ({"shape__ranks": 1.5}, "shape.ranks: expected a whole number, found 1.5"),
        ({"runs__ring": "fast"}, 'runs.ring: expected an object, found "fast"'),
        ({"runs__ring__busbw": [5]}, "runs.ring.busbw: expected a list of {size_bytes, busbw}, found [5]"),
        ({"runs__ring__busbw": {"size_bytes": 1}}, 'runs.ring.busbw: expected a list of {size_bytes, busbw}, found {"size_bytes": 1}'),
        ({"runs__ring__busbw": [{"busbw": 1.0}]}, "runs.ring.busbw[0].size_bytes: missing"),
        ({"runs__ring__busbw": [{"size_bytes": GIB, "busbw": True}]}, "runs.ring.busbw[0].busbw: expected a number, found true"),
        ({"runs__ring__unit": None}, "runs.ring.unit: missing"),
        ({"runs__ring__library": 2}, "runs.ring.library: expected a string, found 2"),
        ({"runs__ring__design_line_gbs": "320"}, 'runs.ring.design_line_gbs: expected a number, found "320"'),
        ({"kind": "railyard.dev/other"}, 'not a railyard fabric baseline (no "kind": "railyard.dev/fabric-baseline")'),
        ({"version": None}, "version null: this railyard reads version 1"),
    ],
)
def test_each_field_of_the_wrong_kind_is_refused_by_name(changes, message):
    with pytest.raises(BaselineError) as caught:
        Baseline.from_json(_document(**changes))
    assert str(caught.value) == message


def test_whole_number_figures_read_as_numbers_and_the_rows_come_back_sorted():
    text = _document(runs__ring__busbw=[{"size_bytes": 2 * GIB, "busbw": 400}, {"size_bytes": GIB, "busbw": 300}], runs__ring__design_line_gbs=320)
    run = Baseline.from_json(text).runs["ring"]
    assert (run.busbw, run.design_line_gbs) == (((GIB, 300.0), (2 * GIB, 400.0)), 320.0)


def test_the_scope_and_the_library_are_read_back():
    baseline = Baseline.from_json(_document(shape__scope="rack-a", runs__ring__library="NCCL 2.28.7"))
    assert (baseline.shape.scope, baseline.runs["ring"].library) == ("rack-a", "NCCL 2.28.7")


def test_a_log_with_a_stray_byte_is_still_read_and_every_network_and_provider_is_named():
    named = "NCCL INFO Using network Libfabric\nNCCL INFO Using network Socket\nSelected Provider is efa\nSelected Provider is tcp\n"
    log = b"\xff garbled line\n" + (named + HEADER + _row(GIB, 300.0)).encode()
    run = observe(log, "nccl-tests", 320.0)[1]
    assert (run.busbw, run.transport) == (((GIB, 300.0),), "network Libfabric, Socket; provider efa, tcp")
