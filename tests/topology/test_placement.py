"""Placement is deterministic: packed fills racks in order, spread settings deal round-robin, and what doesn't fit is reported."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest

from tests.topology.factory import CATALOG, block, blueprint, check, only, pool, zone
from topology.placement import BlockSite, _deal_in_order, _deal_round_robin, fill_in_order, place_pools, round_robin


def deal_one_at_a_time(hosts: int, capacities: list[int]) -> list[int]:
    """The definition of round-robin, literally: one host per unit per round, skipping full units."""
    counts = [0] * len(capacities)
    while hosts and any(count < capacity for count, capacity in zip(counts, capacities, strict=True)):
        for unit, capacity in enumerate(capacities):
            if hosts and counts[unit] < capacity:
                counts[unit] += 1
                hosts -= 1
    return counts


@pytest.mark.parametrize("capacities", [list(caps) for caps in itertools.product([0, 1, 2, 5], repeat=3)] + [[3, 0, 7, 1, 4]])
def test_round_robin_equals_dealing_one_host_at_a_time(capacities):
    for hosts in range(sum(capacities) + 3):
        assert round_robin(hosts, capacities) == deal_one_at_a_time(hosts, capacities)


def _sites_with(free_per_rack: list[list[int]]) -> list[BlockSite]:
    sites = []
    for index, free in enumerate(free_per_rack):
        named = SimpleNamespace(name=f"b{index}")
        sites.append(BlockSite(0, index, None, named, list(free), [[] for _ in free], sum(free)))
    return sites


def _dense(deal, hosts: int, sites: list[BlockSite]) -> list[tuple[str, int, int]]:
    racks = [(site, index) for site in sites for index in range(len(site.free))]
    counts = deal(hosts, [site.free[index] for site, index in racks])
    return [(site.name, index, count) for (site, index), count in zip(racks, counts, strict=True) if count]


@pytest.mark.parametrize("free_per_rack", [[list(racks)] for racks in itertools.product([0, 1, 3], repeat=4)] + [[[0, 2], [1, 0, 4]], [[], [2, 2]]])
def test_dealing_only_open_racks_equals_dealing_every_rack(free_per_rack):
    # The sparse dealers visit only racks with free slots; the dense definitions visit every rack.
    sites = _sites_with(free_per_rack)
    for hosts in range(sum(map(sum, free_per_rack)) + 2):
        assert [(s.name, i, c) for s, i, c in _deal_round_robin(hosts, sites)] == _dense(round_robin, hosts, sites)
        assert [(s.name, i, c) for s, i, c in _deal_in_order(hosts, sites)] == _dense(fill_in_order, hosts, sites)


def test_fill_in_order_fills_each_unit_before_the_next():
    assert fill_in_order(7, [3, 3, 3]) == [3, 3, 1]
    assert fill_in_order(10, [3, 3]) == [3, 3]


def racks_of(model, pool_index: int = 0) -> dict[str, int]:
    return place_pools(model, CATALOG).hosts_by(pool_index, "rack")


def test_packed_fills_racks_in_order():
    model = blueprint([zone("z", [block("b", racks=4, hosts_per_rack=4)])], [pool("p", "g6e.xlarge", 6, ["b"])])
    assert racks_of(model) == {"b/rack-0000": 4, "b/rack-0001": 2}


def test_spread_racks_deals_round_robin_over_every_rack_of_every_domain():
    model = blueprint(
        [zone("z", [block("b1", racks=2, hosts_per_rack=4), block("b2", racks=2, hosts_per_rack=4)])],
        [pool("p", "g6e.xlarge", 6, ["b1", "b2"], spread="racks")],
    )
    assert racks_of(model) == {"b1/rack-0000": 2, "b1/rack-0001": 2, "b2/rack-0000": 1, "b2/rack-0001": 1}


def test_spread_blocks_deals_over_blocks_then_packs_each_block():
    model = blueprint(
        [zone("z", [block("b1", racks=2, hosts_per_rack=4), block("b2", racks=2, hosts_per_rack=4)])],
        [pool("p", "g6e.xlarge", 6, ["z"], spread="blocks")],
    )
    assert racks_of(model) == {"b1/rack-0000": 3, "b2/rack-0000": 3}


def test_spread_zones_deals_over_zones_and_skips_full_ones():
    zones = [zone("za", [block("a", racks=1, hosts_per_rack=2)]), zone("zb", [block("b", racks=2, hosts_per_rack=4)], availability_zone="us-east-1b")]
    model = blueprint(zones, [pool("p", "g6e.xlarge", 7, ["za", "zb"], spread="zones")])
    assert place_pools(model, CATALOG).hosts_by(0, "zone") == {"za": 2, "zb": 5}


def test_pools_share_racks_in_blueprint_order_lowest_slots_first():
    model = blueprint(
        [zone("z", [block("b", racks=2, hosts_per_rack=4)])], [pool("first", "g6e.xlarge", 3, ["b"]), pool("second", "g6e.xlarge", 3, ["b"])]
    )
    placement = place_pools(model, CATALOG)
    assert placement.site("b").racks == [[(0, 3), (1, 1)], [(1, 2)]]


def test_hosts_that_find_no_slot_are_a_finding_naming_the_pools_that_took_them():
    model = blueprint(
        [zone("z", [block("b", racks=2, hosts_per_rack=4)])], [pool("first", "g6e.xlarge", 6, ["b"]), pool("second", "g6e.xlarge", 4, ["b"])]
    )
    finding = only(check(model), "topology.placement")
    assert finding.path == ("pools", 1, "nodes")
    assert "needs 4 hosts, but only 2 free slots" in finding.message and "'first'" in finding.message
    assert finding.certificate == {"requested": 4, "placed": 2, "domains": ["b"], "sharing_with": ["first"]}


def test_a_pool_that_fits_gives_no_placement_finding():
    model = blueprint(
        [zone("z", [block("b", racks=2, hosts_per_rack=4)])], [pool("first", "g6e.xlarge", 4, ["b"]), pool("second", "g6e.xlarge", 4, ["b"])]
    )
    assert "topology.placement" not in [finding.code for finding in check(model).findings]
