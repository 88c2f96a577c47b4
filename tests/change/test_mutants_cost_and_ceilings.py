"""railyard/change/cost.py and ceilings.py on built cost reports and sides: each line's figures before and after (added,
removed, resized, an unknown price that is never a change of zero), the totals, and the ceilings (max nodes,
accelerators and spend per pool and in all, service quotas with the new side's status, Kueue queue quotas)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from blueprints.catalog.quotas import load_quotas
from railyard.change.before_after import BeforeAfter
from railyard.change.ceilings import Ceiling, ceilings
from railyard.change.cost import cost_change, line_figure
from tests.change.built import blueprint, pool, side
from topology.cost_report import CostLine, CostReport

QUOTAS = load_quotas()


def _line(key: str, hourly: float | None = 10.0, kind: str = "pool", **fields) -> CostLine:
    return CostLine(key, f"item {key}", kind, (), hourly, fields.pop("at_max", hourly), fields.pop("basis", "2 nodes"), **fields)


def _report(*lines: CostLine, hours: int = 730) -> CostReport:
    return CostReport("us-east-1", hours, tuple(lines))


# --- cost.py -----------------------------------------------------------------------------------------------------------------------


def test_a_lines_figure_is_zero_where_absent_or_unpaid_and_none_where_unknown():
    assert line_figure(None, "hourly_usd") == 0.0
    assert line_figure(_line("a", 2), "hourly_usd") == 2.0
    assert line_figure(_line("a", None, unknown="no price"), "hourly_usd") is None
    assert line_figure(_line("a", 2), "upfront_usd") == 0.0  # nothing upfront
    assert line_figure(_line("a", 2, upfront_unknown="no window"), "upfront_usd") is None
    assert line_figure(_line("a", None, unknown="no price"), "upfront_usd") == 0.0  # an unpriced pool pays nothing upfront
    assert line_figure(_line("b", None, kind="capacity_block", unknown="no rate"), "upfront_usd") is None  # nor a block, known
    assert line_figure(_line("b", 5, kind="capacity_block", upfront_usd=840.0), "upfront_usd") == 840.0


def test_added_removed_and_changed_lines_in_the_new_reports_order_then_those_removed():
    old = _report(_line("pool:gone", 3), _line("pool:train", 10), _line("nat", 1))
    new = _report(_line("pool:new", 4), _line("pool:train", 12), _line("nat", 1))
    change = cost_change(old, new)
    assert [(delta.key, delta.what, delta.delta_usd) for delta in change.deltas] == [
        ("pool:new", "added", 4.0),
        ("pool:train", "changed", 2.0),
        ("pool:gone", "removed", -3.0),
    ]
    assert change.hourly_delta_usd == pytest.approx(3.0)
    assert change.rows() == [
        ("cost: pool:new", "+4.00 USD/h (+2,920 USD a month of 730 h): item pool:new, added"),
        ("cost: pool:train", "+2.00 USD/h (+1,460 USD a month of 730 h): item pool:train, changed"),
        ("cost: pool:gone", "-3.00 USD/h (-2,190 USD a month of 730 h): item pool:gone, removed"),
    ]


def test_an_unknown_price_moves_only_when_the_line_was_requantified():
    old = _report(_line("pool:a", None, unknown="no price", basis="2 nodes"), _line("pool:b", None, unknown="no price"))
    new = _report(_line("pool:a", None, unknown="no price", basis="4 nodes"), _line("pool:b", None, unknown="no price"))
    (delta,) = cost_change(old, new).deltas
    assert (delta.key, delta.delta_usd, delta.moved(), delta.requantified) == ("pool:a", None, ("hourly_usd",), True)
    assert delta.summary(730) == "USD/h change unknown, a side's price is missing: item pool:a, changed"
    # A price that appears is a move, with its change unknown.
    (appears,) = cost_change(_report(_line("pool:a", None, unknown="x")), _report(_line("pool:a", 5))).deltas
    assert appears.moved() == ("hourly_usd",) and appears.delta_usd is None


def test_a_capacity_blocks_upfront_moves_alone_and_its_hourly_change_has_no_month():
    old = _report(_line("pool:cb", 98.0, kind="capacity_block", upfront_usd=16464.0))
    new = _report(_line("pool:cb", 98.0, kind="capacity_block", upfront_usd=32928.0))
    (delta,) = cost_change(old, new).deltas
    assert delta.moved() == ("upfront_usd",)
    assert cost_change(old, new).rows() == [("cost: pool:cb", "+16,464.00 USD upfront: item pool:cb, changed")]
    resized = _report(_line("pool:cb", 196.0, kind="capacity_block", upfront_usd=16464.0))
    assert cost_change(old, resized).rows() == [("cost: pool:cb", "+98.00 USD/h: item pool:cb, changed")]
    assert delta.as_json() == {
        "key": "pool:cb",
        "item": "item pool:cb",
        "what": "changed",
        "moved": ["upfront_usd"],
        "hourly_usd": {"before": 98.0, "after": 98.0, "change": 0.0},
        "upfront_usd": {"before": 16464.0, "after": 32928.0, "change": 16464.0},
    }


def test_a_summary_counts_the_month_unless_told_the_line_is_a_capacity_block():
    (delta,) = cost_change(_report(_line("pool:a", 2.0)), _report(_line("pool:a", 3.5))).deltas
    assert delta.summary(730) == "+1.50 USD/h (+1,095 USD a month of 730 h): item pool:a, changed"
    assert delta.summary(730, capacity_block=True) == "+1.50 USD/h: item pool:a, changed"


def test_an_unknown_hourly_change_is_said_and_the_known_upfront_one_follows_it():
    old = _report(_line("pool:a", None, unknown="no price", basis="2 nodes", upfront_usd=100.0))
    new = _report(_line("pool:a", None, unknown="no price", basis="4 nodes", upfront_usd=250.0))
    (delta,) = cost_change(old, new).deltas
    assert delta.moved() == ("hourly_usd", "upfront_usd")
    assert delta.summary(730) == "USD/h change unknown, a side's price is missing; +150.00 USD upfront: item pool:a, changed"


def test_lines_that_did_not_move_are_left_out():
    same = _report(_line("pool:a", 1.0), _line("pool:b", None, unknown="x"))
    assert cost_change(same, same).deltas == ()


def test_the_totals_before_and_after_with_the_month_naming_blocks_left_out():
    old = _report(_line("pool:a", 2.0), _line("pool:b", None, unknown="x"), hours=730)
    new = _report(_line("pool:a", 3.0), _line("pool:cb", 5.0, kind="capacity_block", upfront_usd=840.0), hours=730)
    totals = cost_change(old, new).totals()
    assert totals == [
        ("hourly_usd", "USD per hour as planned", BeforeAfter(2.0, 8.0)),
        ("monthly_usd", "USD a month as planned (730 h; Capacity Blocks left out, paid upfront)", BeforeAfter(1460.0, 2190.0)),
        ("upfront_usd", "USD upfront for Capacity Blocks", BeforeAfter(0.0, 840.0)),
        ("unpriced_lines", "lines unpriced, left out of the totals", BeforeAfter(1, 0)),
    ]
    assert cost_change(old, old).totals()[1][1] == "USD a month as planned (730 h)"
    document = cost_change(old, new).as_json()
    assert (document["currency"], document["hours_per_month"]) == ("USD", 730)
    assert document["totals"]["hourly_usd"] == {"before": 2.0, "after": 8.0, "change": 6.0}
    assert document["totals"]["unpriced_lines"] == {"before": 1, "after": 0, "change": -1}
    assert [line["key"] for line in document["lines"]] == ["pool:a", "pool:cb", "pool:b"]


# --- ceilings.py ----------------------------------------------------------------------------------------------------------------


def _validation(pools, lines=(), quotas=(), priced: bool = True):
    validation = side(blueprint(*pools))
    validation.cost = _report(*lines) if priced else None
    validation.quotas = list(quotas)
    return validation


def _preview(validation, kueue=None):
    plan = None if kueue is False else SimpleNamespace(kubernetes=SimpleNamespace(kueue=kueue))
    return SimpleNamespace(validation=validation, plan=plan)


def _kueue(queue: str, flavors: dict[str, dict[str, int]], covered=("cpu", "nvidia.com/gpu", "memory")):
    return SimpleNamespace(
        cluster_queue=queue, covered_resources=covered, flavors=[SimpleNamespace(pool=pool, quotas=quotas) for pool, quotas in flavors.items()]
    )


def _rows(old, new):
    return {row.key: row for row in ceilings(old, new)}


def test_a_raised_max_moves_the_pools_and_totals_nodes_accelerators_and_spend_at_max():
    old = _validation([pool("train", max_nodes=4), pool("infer", instance_type="g6e.12xlarge", max_nodes=2)], [_line("pool:train", 10, at_max=40)])
    new = _validation([pool("train", max_nodes=8), pool("infer", instance_type="g6e.12xlarge", max_nodes=2)], [_line("pool:train", 10, at_max=80)])
    rows = _rows(_preview(old), _preview(new))
    figures = {key: (row.figures.before, row.figures.after) for key, row in rows.items()}
    assert figures == {
        "max_nodes": (6, 10),
        "max_accelerators": (40, 72),
        "hourly_at_max_usd": (40, 80),
        "pool:train:max_nodes": (4, 8),
        "pool:train:max_accelerators": (32, 64),
        "pool:train:hourly_at_max_usd": (40, 80),
        "pool:infer:max_nodes": (2, 2),
        "pool:infer:max_accelerators": (8, 8),
        "pool:infer:hourly_at_max_usd": (None, None),  # no line: unpriced, never zero
    }
    assert [row.label for row in ceilings(_preview(old), _preview(new))][:6] == [
        "all pools: max nodes",
        "all pools: max accelerators",
        "whole design: spend at max, USD/h (priced lines)",
        "pool train: max nodes",
        "pool train: max accelerators",
        "pool train: spend at max, USD/h",
    ]
    assert (rows["max_nodes"].kind, rows["max_nodes"].unit, rows["pool:train:max_nodes"].kind) == ("total", "nodes", "pool")
    assert rows["pool:train:hourly_at_max_usd"].unit == "USD/h" and rows["pool:train:hourly_at_max_usd"].money


def test_a_pool_on_one_side_only_counts_zero_on_the_other_and_comes_after_the_new_sides():
    old = _validation([pool("gone", max_nodes=3)], [_line("pool:gone", 5, at_max=15)])
    new = _validation([pool("added", max_nodes=2)], [_line("pool:added", 4, at_max=8)])
    rows = ceilings(_preview(old), _preview(new))
    assert [(row.key, row.figures.before, row.figures.after) for row in rows if row.kind == "pool"] == [
        ("pool:added:max_nodes", 0, 2),
        ("pool:added:max_accelerators", 0, 16),
        ("pool:added:hourly_at_max_usd", 0.0, 8),
        ("pool:gone:max_nodes", 3, 0),
        ("pool:gone:max_accelerators", 24, 0),
        ("pool:gone:hourly_at_max_usd", 15, 0.0),
    ]


def test_the_spend_total_names_the_new_sides_unpriced_lines_and_an_unpriced_side_is_unknown():
    old = _validation([pool("train", max_nodes=1)], [_line("pool:train", 1, at_max=1)])
    new = _validation([pool("train", max_nodes=1)], [_line("pool:train", 1, at_max=1), _line("nat", None, unknown="x")])
    rows = _rows(_preview(old), _preview(new))
    assert rows["hourly_at_max_usd"].label == "whole design: spend at max, USD/h (priced lines; 1 unpriced on the new side, left out)"
    unpriced = _validation([pool("train", max_nodes=1, instance_type="no.such")], priced=False)
    rows = _rows(_preview(unpriced), _preview(new))
    assert rows["hourly_at_max_usd"].figures == BeforeAfter(None, 1)
    assert rows["pool:train:max_accelerators"].figures.before == 0  # an unknown type holds no accelerators known
    assert rows["pool:train:hourly_at_max_usd"].figures.before is None
    assert _rows(_preview(new), _preview(unpriced))["hourly_at_max_usd"].label == "whole design: spend at max, USD/h (priced lines)"
    assert _rows(_preview(side(None)), _preview(new))["max_nodes"].figures == BeforeAfter(0, 1)


def test_each_quota_either_side_needs_with_the_new_sides_account_value_and_status():
    code_a, code_b = list(QUOTAS)[:2]
    old = _validation(
        [], quotas=[SimpleNamespace(code=code_a, needed=100, available=500, ok=True), SimpleNamespace(code=code_b, needed=7, available=None, ok=None)]
    )
    new = _validation([], quotas=[SimpleNamespace(code=code_a, needed=600, available=500, ok=False)])
    rows = [row for row in ceilings(_preview(old), _preview(new)) if row.kind == "service-quota"]
    assert rows == [
        Ceiling("service-quota", f"quota:{code_a}", QUOTAS[code_a].label, QUOTAS[code_a].unit, BeforeAfter(100, 600), 500, "OVER"),
        Ceiling("service-quota", f"quota:{code_b}", QUOTAS[code_b].label, QUOTAS[code_b].unit, BeforeAfter(7, 0), None, None),
    ]
    fits = _validation([], quotas=[SimpleNamespace(code=code_a, needed=1, available=None, ok=None)])
    (row,) = [row for row in ceilings(_preview(old), _preview(fits)) if row.key == f"quota:{code_a}"]
    assert row.status == "check"
    (row,) = [row for row in ceilings(_preview(fits), _preview(old)) if row.key == f"quota:{code_a}"]
    assert (row.available, row.status) == (500, "ok")


def test_queue_quotas_per_pool_flavor_and_resource_with_their_units():
    old = _preview(_validation([]), _kueue("jobs", {"train": {"nvidia.com/gpu": 32, "memory": 4096}}))
    new = _preview(_validation([]), _kueue("jobs-v2", {"train": {"nvidia.com/gpu": 64, "cpu": 10}, "infer": {}}))
    rows = [row for row in ceilings(old, new) if row.kind == "queue-quota"]
    assert [(row.key, row.label, row.unit, row.figures.before, row.figures.after) for row in rows] == [
        ("queue:train:cpu", "Kueue queue jobs-v2, pool train: cpu nominal quota, vCPUs", "vCPUs", 0, 10),
        ("queue:train:nvidia.com/gpu", "Kueue queue jobs-v2, pool train: nvidia.com/gpu nominal quota, GPUs", "GPUs", 32, 64),
        ("queue:train:memory", "Kueue queue jobs-v2, pool train: memory nominal quota, MiB", "MiB", 4096, 0),
        ("queue:infer:cpu", "Kueue queue jobs-v2, pool infer: cpu nominal quota, vCPUs", "vCPUs", 0, 0),
        ("queue:infer:nvidia.com/gpu", "Kueue queue jobs-v2, pool infer: nvidia.com/gpu nominal quota, GPUs", "GPUs", 0, 0),
        ("queue:infer:memory", "Kueue queue jobs-v2, pool infer: memory nominal quota, MiB", "MiB", 0, 0),
    ]


def test_a_queue_on_the_old_side_only_is_named_by_it_and_an_unknown_resource_by_itself():
    old = _preview(_validation([]), _kueue("jobs", {"train": {"example.com/fpga": 2}}, covered=("example.com/fpga",)))
    for new in (_preview(_validation([]), None), _preview(_validation([]), False)):
        (row,) = [row for row in ceilings(old, new) if row.kind == "queue-quota"]
        assert (row.label, row.unit, row.figures) == (
            "Kueue queue jobs, pool train: example.com/fpga nominal quota, example.com/fpga",
            "example.com/fpga",
            BeforeAfter(2, 0),
        )


def test_a_rows_cells_and_json_round_money_to_the_cent_and_count_the_rest():
    money = Ceiling("pool", "k", "l", "USD/h", BeforeAfter(251.8234, 503.6512))
    assert money.cells() == ["251.82", "503.65", "+251.83"]
    assert money.as_json() == {
        "kind": "pool",
        "key": "k",
        "label": "l",
        "unit": "USD/h",
        "before": 251.82,
        "after": 503.65,
        "change": 251.83,
        "available": None,
        "status": None,
    }
    count = Ceiling("service-quota", "q", "l", "vCPUs", BeforeAfter(1000, 2500), 3000, "ok")
    assert count.cells() == ["1,000", "2,500", "+1,500"]
    assert count.as_json()["change"] == 1500 and count.as_json()["available"] == 3000 and not count.money


def test_the_totals_and_a_pools_rows_in_full_each_counting_its_own_figure():
    # Nodes, accelerators and spend all differ, so each total sums its own column: 3 + 0 nodes, 24 + 0 accelerators,
    # 55.5 USD/h at max. A pool whose max is 0 adds no node.
    old = _validation([pool("train", max_nodes=3), pool("idle", max_nodes=0)], [_line("pool:train", 10, at_max=55.5)])
    new = _validation([pool("train", max_nodes=3), pool("idle", max_nodes=0)], [_line("pool:train", 10, at_max=55.5)])
    rows = ceilings(_preview(old), _preview(new))
    assert rows[:6] == (
        Ceiling("total", "max_nodes", "all pools: max nodes", "nodes", BeforeAfter(3, 3)),
        Ceiling("total", "max_accelerators", "all pools: max accelerators", "accelerators", BeforeAfter(24, 24)),
        Ceiling("total", "hourly_at_max_usd", "whole design: spend at max, USD/h (priced lines)", "USD/h", BeforeAfter(55.5, 55.5)),
        Ceiling("pool", "pool:train:max_nodes", "pool train: max nodes", "nodes", BeforeAfter(3, 3)),
        Ceiling("pool", "pool:train:max_accelerators", "pool train: max accelerators", "accelerators", BeforeAfter(24, 24)),
        Ceiling("pool", "pool:train:hourly_at_max_usd", "pool train: spend at max, USD/h", "USD/h", BeforeAfter(55.5, 55.5)),
    )


def test_a_quota_only_the_new_side_needs_was_needed_zero_before():
    code = list(QUOTAS)[0]
    new = _validation([], quotas=[SimpleNamespace(code=code, needed=96, available=128, ok=True)])
    (row,) = [row for row in ceilings(_preview(_validation([])), _preview(new)) if row.kind == "service-quota"]
    assert (row.figures, row.available, row.status) == (BeforeAfter(0, 96), 128, "ok")
