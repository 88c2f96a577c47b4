"""A run held to its pool's baseline (acceptance/regression.py), on built runs, where mutation testing found it
unheld: each size exactly at the tolerance's share and a hair under, a size only in the baseline or only in the run,
a zero baseline, the verdict needing one compared size, the notes on libraries and transport, the check's, text's and
JSON's exact words, and the errors for another shape or an algorithm the baseline lacks."""

from __future__ import annotations

import dataclasses

import pytest

from acceptance.baseline import Baseline, BaselineError, Run, Shape
from acceptance.nccl import GIB
from acceptance.regression import SizeVerdict, compare

SHAPE = Shape("train", "p5.48xlarge", "nccl-tests", "all_reduce_perf", 2, 16, None)
RECORDED = Run(
    "ring", ((GIB, 300.0), (2 * GIB, 400.0)), "GB/s", "NCCL 2.28.7", "network Libfabric; provider efa", 320.0, "ab" * 32, "2026-11-20", "the log"
)
BASELINE = Baseline(SHAPE, {"ring": RECORDED})


def _run(*busbw: tuple[int, float], **changes) -> Run:
    return dataclasses.replace(RECORDED, busbw=busbw, measured_on="2026-11-28", **changes)


@pytest.mark.parametrize(("measured", "verdict"), [(270.0, "pass"), (269.99, "fail")])
def test_a_size_passes_exactly_at_90_percent_of_the_baseline_and_fails_a_hair_under(measured, verdict):
    comparison = compare(BASELINE, SHAPE, _run((GIB, measured), (2 * GIB, 400.0)), 0.10)
    assert comparison.sizes[0] == SizeVerdict(GIB, 300.0, measured, verdict)
    assert comparison.passed is (verdict == "pass")


def test_a_size_only_in_the_baseline_fails_one_only_in_the_run_is_new_and_not_judged():
    comparison = compare(BASELINE, SHAPE, _run((2 * GIB, 400.0), (4 * GIB, 500.0)), 0.10)
    assert [(s.size_bytes, s.baseline, s.measured, s.verdict) for s in comparison.sizes] == [
        (GIB, 300.0, None, "missing"),
        (2 * GIB, 400.0, 400.0, "pass"),
        (4 * GIB, None, 500.0, "new"),
    ]
    assert comparison.passed is False
    assert comparison.check("fabric/baseline.json").observed == "1 GiB missing; 2 GiB 1.00"


def test_sizes_that_are_all_new_compare_nothing_and_do_not_pass():
    comparison = compare(BASELINE, SHAPE, _run((4 * GIB, 500.0)), 0.10)
    assert comparison.passed is False
    assert comparison.check("b.json").observed == "1 GiB missing; 2 GiB missing"
    only_new = compare(Baseline(SHAPE, {"ring": dataclasses.replace(RECORDED, busbw=())}), SHAPE, _run((4 * GIB, 500.0)), 0.10)
    assert (only_new.passed, only_new.check("b.json").observed) == (False, "no size in common")


def test_a_zero_baseline_has_no_ratio_and_the_json_rounds_the_ratio_to_four_places():
    assert SizeVerdict(GIB, 0.0, 5.0, "pass").ratio is None
    assert SizeVerdict(GIB, 300.0, None, "missing").ratio is None
    assert SizeVerdict(GIB, 300.0, 100.0, "fail").as_dict() == {
        "size_bytes": GIB,
        "baseline": 300.0,
        "measured": 100.0,
        "ratio": 0.3333,
        "verdict": "fail",
    }
    assert SizeVerdict(GIB, None, 1.0, "new").as_dict()["ratio"] is None


def test_the_check_text_and_json_say_what_was_held_to_what():
    run = _run((GIB, 150.0), (2 * GIB, 400.0), (4 * GIB, 500.0), library="NCCL 2.29.1", transport="network Socket; provider not named")
    comparison = compare(BASELINE, SHAPE, run, 0.15)
    check = comparison.check("fabric/train.json")
    assert (check.name, check.passed, check.source) == ("fabric.baseline", False, "fabric/train.json")
    assert check.expected == ">= 0.85 x the ring run's busbw at each size (measured 2026-11-20, dated by the log; log sha256 abababababab)"
    assert check.observed == "1 GiB 0.50; 2 GiB 1.00"
    assert comparison.as_text("fabric/train.json").splitlines() == [
        "baseline fabric/train.json: the ring run (measured 2026-11-20, dated by the log; log sha256 abababababab); each size must reach 0.85 of it",
        "      size   baseline GB/s   measured GB/s  ratio  verdict",
        "     1 GiB             300             150   0.50  FAIL",
        "     2 GiB             400             400   1.00  pass",
        "     4 GiB               -             500      -  new: not in the baseline, not judged against it",
        "  note: libraries: NCCL 2.28.7 in the baseline, NCCL 2.29.1 in this run",
        "  note: transport: network Libfabric; provider efa in the baseline, network Socket; provider not named in this run",
    ]
    assert comparison.as_dict() == {
        "passed": False,
        "algorithm": "ring",
        "tolerance": 0.15,
        "unit": "GB/s",
        "recorded": {"measured_on": "2026-11-20", "dated_by": "the log", "log_sha256": "ab" * 32},
        "sizes": [size.as_dict() for size in comparison.sizes],
        "notes": list(comparison.notes),
    }


def test_a_missing_size_is_shown_as_failing_in_the_text_and_an_undated_baseline_says_so():
    undated = Baseline(SHAPE, {"ring": dataclasses.replace(RECORDED, measured_on=None, dated_by=None, library=None)})
    comparison = compare(undated, SHAPE, _run((2 * GIB, 400.0)), 0.10)
    assert comparison.as_text("b.json").splitlines()[2] == "     1 GiB             300               -      -  FAIL: in the baseline, not in this run"
    assert comparison.check("b.json").expected == ">= 0.90 x the ring run's busbw at each size (not dated; log sha256 abababababab)"
    assert comparison.notes == ("libraries: not named in the baseline, NCCL 2.28.7 in this run",)


def test_another_shape_or_an_algorithm_the_baseline_lacks_is_refused_saying_what_to_record():
    with pytest.raises(BaselineError) as caught:
        compare(BASELINE, dataclasses.replace(SHAPE, nodes=4, scope="rack-a"), _run((GIB, 300.0)), 0.10)
    assert str(caught.value) == (
        "was measured on another shape (nodes: baseline 2, this run 4; scope: baseline not known, this run rack-a); record this shape's own baseline"
    )
    with pytest.raises(BaselineError) as caught:
        compare(BASELINE, SHAPE, _run((GIB, 300.0), algorithm="tree"), 0.10)
    assert str(caught.value) == "holds no tree run (it holds: ring); record one with --record-baseline"


def test_every_algorithm_held_is_listed_and_a_library_the_run_does_not_name_is_said_so():
    two = Baseline(SHAPE, {"ring": RECORDED, "nvls": dataclasses.replace(RECORDED, algorithm="nvls")})
    with pytest.raises(BaselineError, match=r"^holds no tree run \(it holds: nvls, ring\); record one with --record-baseline$"):
        compare(two, SHAPE, _run((GIB, 300.0), algorithm="tree"), 0.10)
    assert compare(BASELINE, SHAPE, _run((GIB, 300.0), (2 * GIB, 400.0), library=None), 0.10).notes == (
        "libraries: NCCL 2.28.7 in the baseline, not named in this run",
    )
