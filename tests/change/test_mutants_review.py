"""railyard/change/before_after.py, flavors.py and findings_change.py on built values: a figure before and after (unknown
is never a change of zero; a move below a millionth is no move), a pool's capacity split across Kueue flavors (each half
of the condition, each boundary), and the new side's findings sorted into new, changed, unchanged and resolved."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from blueprints.findings import error, info, warning
from railyard.change.before_after import BeforeAfter
from railyard.change.findings_change import findings_change
from railyard.change.flavors import flavor_splits

# --- before_after.py -------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "change", "moved"),
    [
        (1, 3, 2, True),
        (3, 1, -2, True),
        (2, 2, 0, False),
        (1.0, 1.0000004, pytest.approx(0.0000004), False),  # rounds to 0 at six places
        (1.0, 1.000001, pytest.approx(0.000001), True),
        (None, 2, None, True),  # appears
        (2, None, None, True),  # goes
        (None, None, None, False),
    ],
)
def test_the_change_is_after_less_before_and_a_side_without_a_value_makes_it_unknown(before, after, change, moved):
    figures = BeforeAfter(before, after)
    assert figures.change == change
    assert figures.moved is moved


def test_rounding_applies_to_both_sides_before_the_change_is_taken():
    figures = BeforeAfter(251.8234, 503.6512)
    assert figures.rounded(lambda value: round(value, 2)) == BeforeAfter(251.82, 503.65)
    assert figures.as_json(lambda value: None if value is None else round(value, 2)) == {"before": 251.82, "after": 503.65, "change": 251.83}
    assert BeforeAfter(1, 4).as_json() == {"before": 1, "after": 4, "change": 3}
    assert BeforeAfter(None, 4).as_json() == {"before": None, "after": 4, "change": None}


@pytest.mark.parametrize(
    ("before", "after", "cells"),
    [
        (1, 3, ["1", "3", "+2"]),
        (None, 3, ["-", "3", "unknown"]),
        (3, None, ["3", "-", "unknown"]),
        (None, None, ["-", "-", "-"]),
        (0, 0, ["0", "0", "+0"]),
    ],
)
def test_a_rows_cells_show_a_dash_where_a_side_has_no_value_and_unknown_for_a_change_that_cannot_be_taken(before, after, cells):
    assert BeforeAfter(before, after).cells(lambda value: f"{value}", lambda value: f"{value:+}") == cells


# --- flavors.py --------------------------------------------------------------------------------------------------------------------


def _preview(*flavors: tuple[str, dict]) -> SimpleNamespace:
    kueue = SimpleNamespace(flavors=[SimpleNamespace(pool=pool, quotas=quotas) for pool, quotas in flavors])
    return SimpleNamespace(plan=SimpleNamespace(kubernetes=SimpleNamespace(kueue=kueue)))


GPU = "nvidia.com/gpu"


def test_a_pool_split_in_two_halves_the_largest_job_and_keeps_the_total():
    old = _preview(("train", {GPU: 1024, "cpu": 4}))
    new = _preview(("train", {GPU: 512}), ("train-b", {GPU: 512}), ("cpu-only", {"cpu": 8}))
    assert flavor_splits(old, new) == [
        (
            "kueue nvidia.com/gpu",
            "capacity split across Kueue flavors: the largest nvidia.com/gpu quota one flavor holds goes from 1,024 to 512 GPUs (total "
            "1,024 -> 1,024; pools train-b): Kueue gives each PodSet one flavor per resource, so no single job's workers can span them, "
            "and one that needs more than 512 GPUs is no longer admitted",
            {"resource": GPU, "largest_before": 1024, "largest_after": 512, "pools": ["train", "train-b"]},
        )
    ]


def test_a_split_into_pools_both_sides_have_names_all_of_them_and_neuron_is_read_too():
    neuron = "aws.amazon.com/neuron"
    old = _preview(("a", {neuron: 64}), ("b", {neuron: 16}))
    new = _preview(("a", {neuron: 40}), ("b", {neuron: 40}))
    ((subject, summary, figures),) = flavor_splits(old, new)
    assert subject == "kueue aws.amazon.com/neuron"
    assert "goes from 64 to 40 Neuron devices (total 80 -> 80; pools a, b)" in summary
    assert figures["pools"] == ["a", "b"]


@pytest.mark.parametrize(
    ("before", "after", "split"),
    [
        ({"a": 100}, {"a": 50, "b": 50}, True),  # the total exactly the old largest
        ({"a": 100}, {"a": 50, "b": 49}, False),  # capacity went: the ceilings say so
        ({"a": 100}, {"a": 100, "b": 10}, False),  # the largest didn't shrink
        ({"a": 100}, {"a": 99, "b": 1}, True),  # one less
        ({"a": 100}, {"a": 101}, False),
    ],
)
def test_a_split_needs_a_smaller_largest_flavor_and_a_total_at_least_the_old_largest(before, after, split):
    old = _preview(*((pool, {GPU: quota}) for pool, quota in before.items()))
    new = _preview(*((pool, {GPU: quota}) for pool, quota in after.items()))
    assert bool(flavor_splits(old, new)) is split


def test_a_side_with_no_queue_no_plan_or_no_accelerator_quota_has_no_split():
    split = _preview(("a", {GPU: 50}), ("b", {GPU: 50}))
    no_queue = SimpleNamespace(plan=SimpleNamespace(kubernetes=SimpleNamespace(kueue=None)))
    no_plan = SimpleNamespace(plan=None)
    zero = _preview(("a", {GPU: 0}))
    for old in (no_queue, no_plan, zero):
        assert flavor_splits(old, split) == []
    assert flavor_splits(_preview(("a", {GPU: 100})), no_plan) == []


# --- findings_change.py --------------------------------------------------------------------------------------------------------


def test_findings_are_new_changed_unchanged_or_resolved_by_code_severity_message_and_path():
    kept = warning("a.kept", ("pools", 0), "same words")
    moved = warning("a.moved", ("pools", 2), "same words").at("old.yaml", 9, 1)
    moved_now = warning("a.moved", ("pools", 3), "same words").at("new.yaml", 4, 1)
    quota_old = error("q.need", ("pools", 1), "needs 1152")
    quota_new = error("q.need", ("pools", 1), "needs 2304")
    gone = error("g.gone", ("pools", 5), "was wrong")
    added = warning("n.new", (), "now wrong")
    note = info("i.note", (), "a note")
    change = findings_change([kept, moved, quota_old, gone], [kept, moved_now, quota_new, added, note])
    assert change.added == (added, note)
    assert change.changed == (quota_new,)
    assert change.resolved == (gone,)
    assert [change.status(finding) for finding in change.new_side] == ["unchanged", "unchanged", "changed", "new", "new"]
    assert change.listed() == [("unchanged", kept), ("unchanged", moved_now), ("changed", quota_new), ("new", added), ("resolved", gone)]
    assert change.summary() == (
        "the new side: 1 error(s), 3 warning(s), 1 note(s); against the old side: new 1 warning(s), 1 note(s); changed 1 error(s); "
        "resolved 1 error(s)"
    )


def test_a_severity_change_is_a_new_finding_and_the_old_one_resolved():
    was, now = warning("x", (), "m"), error("x", (), "m")
    change = findings_change([was], [now])
    assert (change.added, change.changed, change.resolved) == ((now,), (), (was,))


def test_each_finding_is_matched_once():
    one = warning("x", (), "m")
    change = findings_change([one], [one, one])
    assert (change.added, change.changed, change.resolved) == ((one,), (), ())
    change = findings_change([one, one], [one])
    assert (change.added, change.resolved) == ((), (one,))
    change = findings_change([one] * 5, [one] * 5)  # five on each side: each matched once, in the first pass
    assert (change.added, change.changed, change.resolved) == ((), (), ())


def test_a_resolved_note_is_counted_not_listed_and_nothing_reads_none():
    note = info("i", (), "n")
    change = findings_change([note], [])
    assert change.listed() == []
    assert change.summary() == ("the new side: 0 error(s), 0 warning(s), 0 note(s); against the old side: new none; changed none; resolved 1 note(s)")


def test_the_json_gives_counts_each_findings_status_and_those_resolved():
    kept, added, gone = warning("k", (), "m"), error("n", (), "m"), warning("g", (), "m")
    document = findings_change([kept, gone], [kept, added]).as_json()
    assert document["counts"] == {"error": 1, "warning": 1, "info": 0}
    assert (document["new"], document["changed"], document["resolved"]) == (
        {"error": 1, "warning": 0, "info": 0},
        {"error": 0, "warning": 0, "info": 0},
        {"error": 0, "warning": 1, "info": 0},
    )
    assert document["findings"] == [{**kept.as_json(), "status": "unchanged"}, {**added.as_json(), "status": "new"}]
    assert document["resolved_findings"] == [gone.as_json()]


def test_a_gpu_quota_that_did_not_split_does_not_hide_a_neuron_split():
    neuron = "aws.amazon.com/neuron"
    old = _preview(("a", {GPU: 100, neuron: 64}))
    new = _preview(("a", {GPU: 100, neuron: 32}), ("b", {neuron: 32}))
    assert [subject for subject, _, _ in flavor_splits(old, new)] == ["kueue aws.amazon.com/neuron"]
