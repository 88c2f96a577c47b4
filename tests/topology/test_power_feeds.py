"""Power per feed: a rack's draw splits over its feeds, and a feed must carry its dual-corded racks in full when their other feed fails."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tests.topology.factory import block, blueprint, check, codes, design, only, pool, zone


def site(feeds: int = 2, feeds_per_rack: int = 2, feed_budget=None, racks: int = 2, nodes: int = 6):
    """`racks` racks of 4 p5en hosts (10.2 kW each) on `feeds` feeds; `nodes` hosts placed packed (rack 0 fills first)."""
    shape = block("b", racks=racks, hosts_per_rack=4, power_feeds=feeds, feeds_per_rack=feeds_per_rack, feed_budget_kw=feed_budget)
    return blueprint([zone("z", [shape])], [pool("p", "p5en.48xlarge", nodes, ["b"])])


def _feeds(report):
    return report.figures["power"]["zones"][0]["blocks"][0]["feeds"]


def test_dual_corded_racks_split_over_two_feeds_and_move_in_full_when_one_fails():
    # Racks of 40.8 and 20.4 kW, each on feeds 0 and 1: 30.6 kW a feed; 61.2 kW on the survivor.
    assert _feeds(check(site())) == [{"feed": 0, "it_kw": 30.6, "failover_kw": 61.2}, {"feed": 1, "it_kw": 30.6, "failover_kw": 61.2}]


def test_with_more_feeds_a_feed_takes_only_what_it_shares_with_the_failed_one():
    # Three feeds; rack i draws from feeds i mod 3 and (i + 1) mod 3: rack 0 (40.8 kW) on 0 and 1, rack 1 (20.4 kW) on 1 and 2.
    # Feed 1 carries 20.4 + 10.2; losing feed 0 moves rack 0's other 20.4 kW to it: 51.0 kW.
    feeds = _feeds(check(site(feeds=3)))
    assert feeds == [
        {"feed": 0, "it_kw": 20.4, "failover_kw": 40.8},
        {"feed": 1, "it_kw": 30.6, "failover_kw": 51.0},
        {"feed": 2, "it_kw": 10.2, "failover_kw": 20.4},
    ]


def test_single_corded_racks_move_nothing_when_a_feed_fails():
    assert _feeds(check(site(feeds_per_rack=1))) == [{"feed": 0, "it_kw": 40.8, "failover_kw": 40.8}, {"feed": 1, "it_kw": 20.4, "failover_kw": 20.4}]


def test_a_feed_over_its_rating_when_its_neighbour_fails_is_an_error_at_the_rating():
    finding = only(check(site(feed_budget=50)), "power.feed-budget")
    assert finding.path == ("failure_domains", "zones", 0, "blocks", 0, "feed_budget_kw")
    assert finding.certificate == {"feed": "b/feed-0", "it_kw": 30.6, "failover_kw": 61.2, "budget_kw": 50, "feeds_over": 2}
    assert "carries 30.6 kW with every feed up and 61.2 kW when b/feed-1 fails" in finding.message
    assert "power.feed-budget" not in codes(check(site(feed_budget=61.2)))


# A rating on a block without racks is refused at load: tests/blueprints/test_malformed.py ("feed-budget-without-racks").


def test_the_summed_loads_match_the_facility_graphs_wiring():
    # feed_loads sums from the rack index for speed; the graph's feed -> rack edges are the wiring it must agree with.
    from topology.power import feed_loads, power_figures

    facility = design(site(feeds=3, racks=5, nodes=17)).facility
    rack_kw = power_figures(facility).rack_kw
    expected: dict[int, float] = {}
    for rack, kw in rack_kw.items():
        feeds = [node[2] for node in facility.predecessors(rack) if node[0] == "feed"]
        for feed in feeds:
            expected[feed] = expected.get(feed, 0.0) + kw / len(feeds)
    assert {feed.index: round(feed.kw, 6) for feed in feed_loads(facility, rack_kw)["b"]} == {k: round(v, 6) for k, v in expected.items()}


def test_racks_with_no_accelerator_host_count_and_draw_from_their_block_and_its_feeds():
    # Two dual-corded feeds; 4 host racks of 2 p5 nodes, then 2 management racks of 8 kW, which wire as racks 4 and 5.
    def design(service: list[dict]) -> dict:
        block = {"name": "b1", "racks": 4, "hosts_per_rack": 2, "power_feeds": 2, "service_racks": service}
        report = check(blueprint([zone("hall", [block])], [pool("train", "p5.48xlarge", 8, ["hall"])]))
        [zone_figures] = report.figures["power"]["zones"]
        return zone_figures["blocks"][0]

    plain, served = design([]), design([{"role": "management", "racks": 2, "kw_per_rack": 8.0}])
    assert served["it_kw"] == pytest.approx(plain["it_kw"] + 16.0)
    assert (served["racks_total"], served["service_racks"]) == (6, [{"role": "management", "racks": 2, "kw_per_rack": 8.0, "serves": ["b1"]}])
    # Each feed carries half of every dual-corded rack: 8 kW more on each.
    assert [feed["it_kw"] for feed in served["feeds"]] == pytest.approx([feed["it_kw"] + 8.0 for feed in plain["feeds"]])


def test_the_largest_rack_draw_counts_service_racks_that_draw_more_than_the_host_racks():
    # Issue 44: six 50 kW service racks beside host racks of 2 p5 nodes (2 x the catalog's typical p5 node kW) each.
    block = {"name": "b1", "racks": 4, "hosts_per_rack": 2, "power_feeds": 2, "service_racks": [{"role": "network", "racks": 6, "kw_per_rack": 50.0}]}
    report = check(blueprint([zone("hall", [block])], [pool("train", "p5.48xlarge", 8, ["hall"])]))
    [figures] = report.figures["power"]["zones"][0]["blocks"]
    host_rack_kw = max(run["it_kw"] for run in figures["racks"])
    assert host_rack_kw < 50.0
    assert figures["max_rack_kw"] == 50.0


def test_a_service_rack_over_the_blocks_rack_budget_is_refused():
    storage = {"role": "storage", "racks": 1, "kw_per_rack": 12.0}
    block = {"name": "b1", "racks": 4, "hosts_per_rack": 2, "rack_budget_kw": 10.0, "service_racks": [storage]}
    with pytest.raises(ValidationError, match="a storage rack draws 12 kW, over the block's rack_budget_kw 10"):
        blueprint([zone("hall", [block])], [pool("train", "p5.48xlarge", 8, ["hall"])])
