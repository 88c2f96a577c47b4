"""A pool's price by where its instances come from (topology/cost.py), on `tests/blueprints/base.BASE`: a spot pool
at On-Demand less the declared spot discount, and unpriced, not free, without one; a reservation billed for every
reserved instance even when fewer run, and for every node when more may; a Capacity Block by its rate or its quoted
total over its window; the On-Demand discount applied once. Prices are read from the table, so the figures hold
whichever table ships; the structure of each figure is what is tested. A Hypothesis property holds a spot pool's
price to its formula over drawn discounts and sizes."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blueprints.catalog import load_catalog
from blueprints.catalog.prices import load_prices
from tests.blueprints.base import BASE, load
from tests.properties import examples
from tests.yaml_text import replace_once
from topology.cluster.node_groups import plan_node_groups
from topology.cost import cost_findings, cost_report
from topology.cost_prices import Pricer

CATALOG = load_catalog()
TABLE = load_prices()
SERVE = "    nodes: {min: 1, max: 4}\n"
DAY = date(2026, 12, 1)


def _report(text: str):
    blueprint = load(text).blueprint
    assert blueprint is not None
    return cost_report(blueprint, plan_node_groups(blueprint, CATALOG), "standard", TABLE, DAY)


def _line(text: str, key: str):
    return {line.key: line for line in _report(text).lines}[key]


def _od(instance_type: str) -> float:
    price = TABLE.on_demand("us-east-1", instance_type)
    assert price is not None
    return price.usd


def _serve(capacity: str, cost: str = "", nodes: str = SERVE) -> str:
    text = replace_once(BASE, SERVE, nodes + f"    capacity: {capacity}\n")
    return text.replace("kubernetes:\n", f"cost: {cost}\nkubernetes:\n") if cost else text


def test_a_spot_pool_costs_on_demand_less_the_declared_spot_discount_at_desired_and_at_most():
    # serve: desired 1 (1 + 0 over its two zones), at most 4.
    line = _line(_serve("{kind: spot}", "{spot_discount: 0.6}"), "pool:serve")
    assert (line.kind, line.path) == ("spot", ("pools", 1, "capacity"))
    assert line.hourly_usd == pytest.approx(1 * _od("inf2.48xlarge") * 0.4)
    assert line.hourly_at_max_usd == pytest.approx(4 * _od("inf2.48xlarge") * 0.4)
    assert line.basis.startswith("1 × $") and line.basis.endswith("less 60% (declared spot discount)")


def test_a_spot_pool_without_a_declared_discount_is_unpriced_never_free():
    report = _report(_serve("{kind: spot}"))
    line = {line.key: line for line in report.lines}["pool:serve"]
    assert (line.hourly_usd, line.hourly_at_max_usd) == (None, None)
    assert (line.unknown, line.hint, line.basis) == ("spot prices are the account's", "declare cost.spot_discount", "1-4 spot")
    (finding,) = [f for f in cost_findings(report) if f.path == ("pools", 1, "capacity")]
    assert (finding.code, finding.severity) == ("cost.price-unknown", "info")
    assert finding.message == "pool serve: inf2.48xlarge: spot prices are the account's; the cost totals leave it out"


def test_a_spot_discount_of_zero_is_on_demand_and_still_priced():
    line = _line(_serve("{kind: spot}", "{spot_discount: 0}"), "pool:serve")
    assert line.hourly_usd == pytest.approx(_od("inf2.48xlarge"))


def test_an_on_demand_discount_applies_to_on_demand_pools_and_not_to_spot_ones():
    on_demand = _line(_serve("{kind: on_demand}", "{on_demand_discount: 0.25}"), "pool:serve")
    assert on_demand.hourly_usd == pytest.approx(_od("inf2.48xlarge") * 0.75)
    assert on_demand.hourly_at_max_usd == pytest.approx(4 * _od("inf2.48xlarge") * 0.75)
    spot = _line(_serve("{kind: spot}", "{spot_discount: 0.5, on_demand_discount: 0.25}"), "pool:serve")
    assert spot.hourly_usd == pytest.approx(_od("inf2.48xlarge") * 0.5)


RESERVED = "{kind: capacity_reservation, reservation_id: cr-0123456789abcdef1, zone: us-east-1a, instance_type: inf2.48xlarge, instance_count: %d}"


@pytest.mark.parametrize(("reserved", "most", "hourly", "at_max"), [(4, 2, 4, 4), (2, 4, 2, 4), (3, 3, 3, 3)])
def test_a_reservation_bills_every_reserved_instance_used_or_not_and_every_node_beyond_it(reserved, most, hourly, at_max):
    # One zone, 1 node desired: billed for the reserved count, or for the most nodes where they exceed it.
    nodes = f"    nodes: {{min: 1, max: {most}}}\n    placement:\n      domains: [za]\n"
    placement = "    placement:\n      domains: [za, zb]\n      spread: zones\n"
    line = _line(replace_once(BASE, SERVE + placement, nodes + f"    capacity: {RESERVED % reserved}\n"), "pool:serve")
    assert line.kind == "capacity_reservation"
    assert line.hourly_usd == pytest.approx(hourly * _od("inf2.48xlarge"))
    assert line.hourly_at_max_usd == pytest.approx(at_max * _od("inf2.48xlarge"))
    assert line.basis.startswith(f"{reserved} reserved × $") and line.basis.endswith("billed used or not")


def test_a_capacity_block_is_its_count_at_its_rate_and_its_168_hour_window_upfront():
    line = _line(BASE, "pool:train")
    price = Pricer(load(BASE).blueprint, TABLE).capacity_block_rate("train", "p5.48xlarge")
    assert line.kind == "capacity_block" and line.hourly_usd == line.hourly_at_max_usd
    assert line.upfront_usd == pytest.approx(line.hourly_usd * 168)
    assert line.basis.startswith("8 × $") and line.basis.endswith("; 168 h window paid upfront")
    assert price is not None and line.hourly_usd == pytest.approx(8 * price.usd)


def test_a_quoted_block_total_is_spread_over_its_window():
    text = BASE.replace("kubernetes:\n", "cost: {capacity_block_quotes: {train: {total_usd: 16800}}}\nkubernetes:\n")
    line = _line(text, "pool:train")
    assert (line.hourly_usd, line.upfront_usd) == (pytest.approx(100.0), 16800)
    assert line.basis == "$16,800.00 quoted for the 168 h window, paid upfront"
    assert line.source == "declared in the blueprint (cost.capacity_block_quotes.train.total_usd)"


@settings(max_examples=examples(25), deadline=None)
@given(discount=st.integers(min_value=0, max_value=99).map(lambda percent: percent / 100), most=st.integers(min_value=2, max_value=8))
def test_a_spot_pools_price_is_its_nodes_times_on_demand_less_the_discount(discount, most):
    # At least 2 at most: spread over two zones, each zone's node group may scale to 1 or more.
    line = _line(_serve("{kind: spot}", f"{{spot_discount: {discount}}}", f"    nodes: {{min: 1, max: {most}}}\n"), "pool:serve")
    unit = _od("inf2.48xlarge") * (1 - discount)
    assert line.hourly_usd == pytest.approx(1 * unit)
    assert line.hourly_at_max_usd == pytest.approx(most * unit)
