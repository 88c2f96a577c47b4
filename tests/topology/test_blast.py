"""Blast radius: failure injection on the explicit graphs gives the shares the checker reports, a pool's tolerance is
enforced, and the facility's dominators are networkx's."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blueprints.catalog import load_catalog
from blueprints.loader import load_blueprint
from tests.properties import examples
from tests.topology import reference
from tests.topology.factory import block, blueprint, check, codes, design, only, pool, zone
from tests.topology.fixtures import ALL_FABRICS, MEDIUM_FABRICS, fat_tree, single_corded, tor_clos
from topology.blast import checked_kinds, switch_outages
from topology.design import build_design
from topology.expand import expand_fabric
from topology.facility import ROOT, physical_outages, supply_dominators

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"


def by_kind(report, pool: str = "serve") -> dict:
    entry = next(item for item in report.figures["blast_radius"] if item["pool"] == pool)
    return entry["by_kind"]


def hosts_cut_off(facility: nx.DiGraph, removed) -> int:
    """Inject a failure: remove one element and count the hosts no longer fed from the site."""
    kept = facility.subgraph(node for node in facility if node != removed)
    fed = nx.descendants(kept, ROOT)
    return sum(data["count"] for node, data in facility.nodes(data=True) if data.get("kind") == "hosts" and node not in fed)


@pytest.mark.parametrize("name", sorted(ALL_FABRICS) + sorted(MEDIUM_FABRICS))
def test_every_single_switch_takes_down_what_removing_it_from_the_explicit_graph_does(name):
    built = design({**ALL_FABRICS, **MEDIUM_FABRICS}[name]()).fabrics[0]
    explicit = expand_fabric(built.graph)
    for _, pool_model in built.pools:
        outages = switch_outages(built.graph, pool_model.name)
        for node, data in explicit.nodes(data=True):
            if data["kind"] == "switch":
                group = data["group"]
                expected = outages.get(group, 0) if built.graph.nodes[group]["count"] == 1 else 0
                assert reference.accelerators_down(explicit, pool_model.name, node) == pytest.approx(expected), node


def test_removing_the_only_spine_leaves_the_largest_rack_standing():
    """tor_clos: 3 racks of 2 hosts (4 GPUs each) under one spine: losing it leaves 3 islands of 8 GPUs; 16 of 24 are down."""
    built = design(tor_clos()).fabrics[0]
    explicit = expand_fabric(built.graph)
    assert reference.accelerators_down(explicit, "serve", (("spine", 0, "all"), 0)) == 16
    assert by_kind(check(tor_clos()))["switch"] == {"kind": "switch", "element": "tor: spine p0 #0", "accelerators": 16, "share": 0.6667}


def test_a_dual_homed_pool_loses_nothing_to_one_tor_or_one_planes_spine():
    assert by_kind(check(tor_clos(planes=2)))["switch"] == {"kind": "switch", "element": None, "accelerators": 0, "share": 0.0}


def test_a_fat_tree_edge_switch_takes_its_two_single_nic_hosts():
    assert by_kind(check(fat_tree()), "train")["switch"]["accelerators"] == 2


def test_removing_a_rack_takes_down_its_hosts():
    """tor_clos spreads 6 hosts over 3 racks: a rack holds 2 hosts, 8 of the pool's 24 GPUs."""
    built = design(tor_clos())
    assert hosts_cut_off(built.facility, ("rack", "b1", 0)) == 2
    assert physical_outages(built.facility)[("rack", "b1", 0)] == {0: 2}
    assert by_kind(check(tor_clos()))["rack"] == {"kind": "rack", "element": "b1/rack-0000", "accelerators": 8, "share": 0.3333}


def test_removing_a_single_corded_feed_takes_down_every_rack_on_it():
    """single_corded: feed 0 feeds racks 0 and 2, 2 hosts each: 4 of 8 hosts."""
    built = design(single_corded())
    assert hosts_cut_off(built.facility, ("feed", "b1", 0)) == 4
    assert physical_outages(built.facility)[("feed", "b1", 0)] == {0: 4}
    assert by_kind(check(single_corded()))["feed"] == {"kind": "feed", "element": "b1/feed-0", "accelerators": 16, "share": 0.5}


def test_a_dual_corded_rack_survives_either_feed():
    built = design(tor_clos())
    assert hosts_cut_off(built.facility, ("feed", "b1", 0)) == 0
    assert by_kind(check(tor_clos()))["feed"]["element"] is None


def test_block_and_zone_take_everything_placed_in_them():
    kinds = by_kind(check(single_corded()))
    assert (kinds["block"]["share"], kinds["zone"]["share"]) == (1.0, 1.0)


def test_a_pool_over_its_tolerance_names_the_worst_element_it_must_survive():
    finding = only(check(tor_clos(share=0.5)), "topology.blast-radius")
    assert finding.path == ("pools", 0, "placement", "max_failure_share")
    assert finding.certificate == {"element": "tor: spine p0 #0", "kind": "switch", "accelerators": 16, "share": 0.6667, "tolerance": 0.5}
    assert "losing switch tor: spine p0 #0 takes down 16 accelerators, 66.7% of pool 'serve'" in finding.message


def test_a_pool_within_its_tolerance_gives_no_finding():
    assert "topology.blast-radius" not in codes(check(tor_clos(planes=2, share=0.34)))


def test_spread_decides_which_failures_the_tolerance_covers():
    assert checked_kinds("racks") == ("switch", "scale_up", "feed", "rack")
    assert checked_kinds("zones") == ("switch", "scale_up", "feed", "rack", "block", "zone")
    one_block = [zone("z", [block("b", racks=4, hosts_per_rack=2)])]
    racks = blueprint(one_block, [pool("serve", "g6e.xlarge", 8, ["b"], spread="racks", share=0.5)])
    assert "topology.blast-radius" not in codes(check(racks))  # the block takes 100%, but racks-spread pools need only survive a rack
    two_blocks = [zone("z", [block("b1", racks=2, hosts_per_rack=2), block("b2", racks=1, hosts_per_rack=2)])]
    blocks = blueprint(two_blocks, [pool("serve", "g6e.xlarge", 5, ["z"], spread="blocks", share=0.5)])
    finding = only(check(blocks), "topology.blast-radius")
    assert finding.certificate["element"] == "b1" and finding.certificate["share"] == 0.6  # b2 fills up: 3 of 5 hosts in b1


def test_a_pool_that_must_survive_a_zone_but_landed_in_one_is_a_spread_finding():
    zones = [zone("za", [block("a", racks=1, hosts_per_rack=2)]), zone("zb", [block("b", racks=1, hosts_per_rack=2)], availability_zone="us-east-1b")]
    crowded = blueprint(zones, [pool("first", "g6e.xlarge", 2, ["a"]), pool("serve", "g6e.xlarge", 2, ["za", "zb"], spread="zones")])
    finding = only(check(crowded), "topology.spread")
    assert finding.path == ("pools", 1, "placement", "spread")
    assert finding.certificate == {"unit": "zb", "hosts": 2, "level": "zone"}
    spread = blueprint(zones, [pool("serve", "g6e.xlarge", 2, ["za", "zb"], spread="zones")])
    assert "topology.spread" not in codes(check(spread))


@pytest.mark.parametrize("name", ["insecure", "rail-131k", "dgx-h100-superpod", "p5-capacity-block", "alibaba-dcn-plus"])
def test_the_supply_dominators_of_an_example_are_networkx_dominators(name):
    facility = build_design(load_blueprint(str(EXAMPLES / f"{name}.yaml")).blueprint, load_catalog()).facility
    assert supply_dominators(facility) == nx.immediate_dominators(facility, ROOT)


@settings(max_examples=examples(200), deadline=None, derandomize=True)
@given(
    edges=st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14)), max_size=40),
    shuffled=st.permutations(range(16)),
)
def test_the_supply_dominators_of_any_acyclic_graph_are_networkx_dominators(edges, shuffled):
    """Any graph without cycles (an edge runs from a lower number to a higher; 0 is the site), its nodes added in any
    order, with elements the site doesn't reach and elements fed from several suppliers."""
    named = {0: ROOT, **{number: ("element", number) for number in range(1, 16)}}
    graph = nx.DiGraph()
    graph.add_nodes_from(named[number] for number in shuffled)
    graph.add_edges_from((named[min(a, b)], named[max(a, b) + 1]) for a, b in edges)
    assert supply_dominators(graph) == nx.immediate_dominators(graph, ROOT)
