"""topology/cost_blocks.py: a Capacity Block's line however it is held and priced, against the round-price table (p5's
block rate $30 an instance-hour, `tests/topology/round_prices.py`) on `tests/blueprints/base.BASE`'s train pool (a block
of 8 over a 168 h window): the table's indicative rate, a quoted rate, a quoted total with and without a window, no
rate at all, a block with no window, a reservation group of blocks (its own words, its count stated or the pool's
most), and a hot spare on the served pool's block, priced once on the served pool's line (whichever is listed first,
and quoted under either name)."""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import Any

import pytest

from blueprints.catalog import load_catalog
from tests.topology.round_prices import SPARE, TABLE, line_fields, priced_blueprint, table
from topology.cluster.node_groups import plan_node_groups
from topology.cost import cost_report
from topology.cost_blocks import block_holders, block_identity

WINDOW = "      start: 2026-12-01T00:00:00Z\n      end: 2026-12-08T00:00:00Z\n"
BLOCK_ID = "cr-0123456789abcdef0"
PATH = ("pools", 0, "capacity")
ITEM = "pool train: p5.48xlarge"
INDICATIVE = "(indicative: the rate of 2026-01-01; AWS prices a block when it offers it)"
GROUP = (
    (
        "      kind: capacity_block\n      reservation_id: cr-0123456789abcdef0\n",
        "      kind: reservation_group\n      reservation_ids: [cr-0a9b8c7d6e5f40001, cr-0a9b8c7d6e5f40002]\n      capacity_blocks: true\n",
    ),
    ("      instance_count: 8\n", ""),
    (WINDOW, ""),
)
MEMBERS = "cr-0a9b8c7d6e5f40001+cr-0a9b8c7d6e5f40002"


def _lines(blueprint, prices=TABLE) -> dict[str, dict[str, Any]]:
    report = cost_report(blueprint, plan_node_groups(blueprint, load_catalog()), "standard", prices, date(2026, 12, 1))
    return {line.key: dataclasses.asdict(line) for line in report.lines}


def _line(key: str, hourly, basis: str, source: str = "", upfront=None, **more: Any) -> dict[str, Any]:
    """A block line's fields: the pool's p5.48xlarge at train's path, the same figure planned and at its most."""
    item = f"pool {key.removeprefix('pool:')}: p5.48xlarge"
    fields = line_fields(
        key, item, "capacity_block", PATH, hourly, hourly, basis, source, upfront_usd=None if upfront is None else pytest.approx(upfront)
    )
    fields.update(more)
    return fields


def test_a_block_at_the_tables_rate_runs_its_window_and_pays_it_upfront():
    assert _lines(priced_blueprint())["pool:train"] == _line(
        "pool:train", 8 * 30.0, f"8 × $30/instance-hour {INDICATIVE}; 168 h window paid upfront", "blocks", 8 * 30.0 * 168
    )


def test_a_quoted_rate_is_no_indication_and_names_its_field():
    blueprint = priced_blueprint(cost="{capacity_block_quotes: {train: {usd_per_instance_hour: 25}}}")
    assert _lines(blueprint)["pool:train"] == _line(
        "pool:train",
        8 * 25.0,
        "8 × $25/instance-hour; 168 h window paid upfront",
        "declared in the blueprint (cost.capacity_block_quotes.train)",
        8 * 25.0 * 168,
    )


def test_a_quoted_total_is_spread_over_the_windows_hours():
    blueprint = priced_blueprint(cost="{capacity_block_quotes: {train: {total_usd: 33600}}}")
    assert _lines(blueprint)["pool:train"] == _line(
        "pool:train",
        33600 / 168,
        "$33,600.00 quoted for the 168 h window, paid upfront",
        "declared in the blueprint (cost.capacity_block_quotes.train.total_usd)",
        33600,
    )


def test_a_quoted_total_without_a_window_has_no_hourly_figure_but_its_upfront():
    blueprint = priced_blueprint((WINDOW, ""), cost="{capacity_block_quotes: {train: {total_usd: 33600}}}")
    assert _lines(blueprint)["pool:train"] == _line(
        "pool:train",
        None,
        "8 in the block, $33,600.00 quoted for the whole window",
        "declared in the blueprint (cost.capacity_block_quotes.train.total_usd)",
        33600,
        unknown="the block states no start/end window, so the quoted total's hourly rate is unknown",
        hint="set capacity.start and capacity.end (the block's window, as EC2 gives it)",
    )


def test_a_block_without_a_window_has_its_upfront_unknown_never_zero():
    assert _lines(priced_blueprint((WINDOW, "")))["pool:train"] == _line(
        "pool:train",
        8 * 30.0,
        f"8 × $30/instance-hour {INDICATIVE}",
        "blocks",
        None,
        upfront_unknown="the block states no start/end window, so what it costs for its window is unknown",
        hint="set capacity.start and capacity.end (the block's window, as EC2 gives it), or declare cost.capacity_block_quotes.train.total_usd "
        "(the total AWS quoted)",
    )


def test_a_block_no_table_prices_is_unpriced_with_the_quote_to_declare():
    line = _lines(priced_blueprint(), table(capacity_blocks={"date": "2026-07-22", "prices": []}))["pool:train"]
    assert "for p5.48xlarge in us-east-1" in line["unknown"] and line["unknown"].endswith("(AWS prices a block when it offers it)")
    assert line == _line(
        "pool:train",
        None,
        "8 in the block",
        unknown=line["unknown"],
        hint="declare what AWS quoted: cost.capacity_block_quotes.train.usd_per_instance_hour or cost.capacity_block_quotes.train.total_usd",
    )


def test_a_reservation_group_of_blocks_is_named_for_its_members_and_counts_the_pools_most():
    assert _lines(priced_blueprint(*GROUP))["pool:train"] == _line(
        "pool:train",
        8 * 30.0,
        f"8 in the reservation group of Capacity Blocks {MEMBERS} × $30/instance-hour {INDICATIVE}",
        "blocks",
        None,
        upfront_unknown="a reservation group states no window (each of its blocks has its own, which EC2 holds), so what its blocks cost "
        "upfront is unknown",
        hint="declare cost.capacity_block_quotes.train.total_usd (the sum AWS quoted for the group's blocks)",
    )


def test_a_reservation_group_with_its_count_stated_is_billed_for_that_count():
    counted = (GROUP[0], ("      instance_count: 8\n", "      instance_count: 12\n"), GROUP[2])
    line = _lines(priced_blueprint(*counted))["pool:train"]
    assert (line["hourly_usd"], line["basis"]) == (
        pytest.approx(12 * 30.0),
        f"12 in the reservation group of Capacity Blocks {MEMBERS} × $30/instance-hour {INDICATIVE}",
    )


def test_a_reservation_groups_quoted_total_has_no_window_to_spread_over():
    blueprint = priced_blueprint(*GROUP, cost="{capacity_block_quotes: {train: {total_usd: 5000}}}")
    assert _lines(blueprint)["pool:train"] == _line(
        "pool:train",
        None,
        f"8 in the {'reservation group of Capacity Blocks ' + MEMBERS}, $5,000.00 quoted for the whole window",
        "declared in the blueprint (cost.capacity_block_quotes.train.total_usd)",
        5000,
        unknown="a reservation group states no window, so the quoted total's hourly rate is unknown",
        hint="declare cost.capacity_block_quotes.train.usd_per_instance_hour (the rate AWS quoted) instead, which prices the hour; "
        "the upfront is then unknown",
    )


FIRST_POOL = "pools:\n"


def test_a_spare_listed_before_its_served_pool_is_priced_once_on_the_served_pools_line():
    blueprint = priced_blueprint((FIRST_POOL, FIRST_POOL + SPARE))
    lines = _lines(blueprint)
    assert lines["pool:spare"] == {
        **_line("pool:spare", 0.0, f"on Capacity Block {BLOCK_ID} with pool train, priced once on pool train's line", upfront=0.0),
        "path": ("pools", 0, "capacity"),
        "shared_with": "train",
    }
    assert lines["pool:train"]["hourly_usd"] == pytest.approx(8 * 30.0)
    assert lines["pool:train"]["path"] == ("pools", 1, "capacity")
    assert [pool.name for pool in block_holders(blueprint)[("capacity_block", BLOCK_ID)]] == ["train", "spare"]


def test_a_block_quoted_under_the_spares_name_prices_the_served_pools_line():
    blueprint = priced_blueprint((FIRST_POOL, FIRST_POOL + SPARE), cost="{capacity_block_quotes: {spare: {usd_per_instance_hour: 20}}}")
    line = _lines(blueprint)["pool:train"]
    assert (line["hourly_usd"], line["source"]) == (pytest.approx(8 * 20.0), "declared in the blueprint (cost.capacity_block_quotes.spare)")


def test_only_pools_on_blocks_have_a_block_identity():
    blueprint = priced_blueprint(*GROUP)
    train, serve = blueprint.pools
    assert block_identity(train) == ("reservation_group", MEMBERS)
    assert block_identity(serve) is None
    assert block_identity(priced_blueprint().pools[0]) == ("capacity_block", BLOCK_ID)
    assert list(block_holders(priced_blueprint())) == [("capacity_block", BLOCK_ID)]
