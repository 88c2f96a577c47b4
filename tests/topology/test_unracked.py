"""Racks are optional: a block (or a zone without blocks) that states none holds any number of hosts.

On AWS nobody is told which rack an instance is in, so a blueprint may leave
`racks`, `hosts_per_rack` and the rack budgets out. Nothing is invented for
them: rack and feed figures are reported as unknown, the checks that need
racks refuse to run on a guess, and everything that does not need racks
(block and zone power, placement by block and zone, the fabric) still works.
"""

from __future__ import annotations

import pytest

from blueprints.findings import Finding
from blueprints.models import Blueprint
from blueprints.models.fabrics import AwsEfa
from blueprints.rules import run_blueprint_rules
from railyard.pipeline import validate
from tests.preview.conftest import ROOT
from tests.topology.factory import CATALOG, block, blueprint, check, codes, fabric, pool, rule_errors, zone

EXAMPLES = ROOT / "blueprints" / "examples"


def _zone(name: str, availability_zone: str = "us-east-1a", blocks: list[dict] | None = None) -> dict:
    return {"name": name, "availability_zone": availability_zone, **({"blocks": blocks} if blocks is not None else {})}


def _rule(model: Blueprint, code: str) -> Finding:
    """The one blueprint-rule finding with `code`."""
    [found] = [finding for finding in run_blueprint_rules(model, CATALOG) if finding.code == code]
    return found


def test_a_zone_without_blocks_holds_the_pool_and_adds_up_its_power():
    design = blueprint([_zone("za")], [pool("p", "p5en.48xlarge", 40, ["za"], node_power_kw=10.0)])
    report = check(design)
    assert not [code for code in codes(report) if code.startswith(("placement.over", "topology.placement"))]
    assert report.figures["placement"] == [{"pool": "p", "requested": 40, "placed": 40, "zones": {"za": 40}, "blocks": {"za": 40}}]
    [zone_power] = report.figures["power"]["zones"]
    [block_power] = zone_power["blocks"]
    assert (zone_power["it_kw"], block_power["it_kw"]) == (400.0, 400.0)
    # Rack figures are unknown, so they are null, never 0.
    assert (block_power["racks"], block_power["max_rack_kw"], block_power["rack_budget_kw"]) == (None, None, None)


def test_without_a_pue_the_facility_load_is_unknown_and_the_it_load_is_still_counted():
    power = check(blueprint([_zone("za")], [pool("p", "p5en.48xlarge", 2, ["za"], node_power_kw=10.0)])).figures["power"]
    assert (power["it_kw"], power["facility_kw"], power["pue"]) == (20.0, None, None)


def test_rack_and_feed_outages_are_unknown_not_zero():
    report = check(blueprint([_zone("za")], [pool("p", "p5en.48xlarge", 4, ["za"], share=0.5)]))
    [blast] = report.figures["blast_radius"]
    assert blast["unknown"] == ["rack", "feed"]
    assert blast["checked"] == ["switch"] and set(blast["by_kind"]) == {"switch", "block", "zone"}
    assert "topology.blast-radius" not in codes(report)


def test_a_pool_partly_in_unracked_blocks_has_unknown_rack_outages_too():
    zones = [zone("za", [block("racked", 4, 2)]), _zone("zb", "us-east-1b", [{"name": "open"}])]
    report = check(blueprint(zones, [pool("p", "p5en.48xlarge", 12, ["racked", "open"])]))
    [blast] = report.figures["blast_radius"]
    assert blast["unknown"] == ["rack", "feed"]


def test_a_block_of_unknown_size_sets_no_capacity_limit():
    design = blueprint([zone("za", [{"name": "open"}])], [pool("p", "p5en.48xlarge", 5000, ["open"])])
    assert "placement.over-capacity" not in rule_errors(design)
    assert check(design).figures["placement"][0]["placed"] == 5000


def test_racked_blocks_still_set_the_capacity_of_a_pool_placed_only_in_them():
    design = blueprint([zone("za", [block("b", 1, 4)])], [pool("p", "p5en.48xlarge", 5, ["b"])])
    assert "placement.over-capacity" in rule_errors(design)


def test_spreading_over_racks_nobody_stated_is_refused():
    finding = _rule(blueprint([_zone("za")], [pool("p", "p5en.48xlarge", 4, ["za"], spread="racks")]), "placement.cannot-spread")
    assert finding.path == ("pools", 0, "placement", "spread")
    assert "zone 'za' (no blocks) states no racks to spread over" in finding.message


def test_a_tor_per_rack_needs_racks():
    design = blueprint(
        [zone("za", [{"name": "open"}])],
        [pool("p", "p5en.48xlarge", 4, ["open"], fabric="tor")],
        [fabric("tor", "tor_clos", 64, nics_per_accelerator=2)],
    )
    finding = _rule(design, "placement.tor-needs-racks")
    assert finding.path == ("pools", 0, "fabric") and "block 'open' states no racks" in finding.message


def test_each_unracked_domain_in_use_gets_one_note_naming_what_is_not_computed():
    zones = [_zone("za"), _zone("zb", "us-east-1b"), zone("zc", [block("racked", 2, 2)], availability_zone="us-east-1b")]
    model = blueprint(zones, [pool("p", "p5en.48xlarge", 2, ["za", "zc"])])
    notes = [finding for finding in run_blueprint_rules(model, CATALOG) if finding.code == "placement.racks-unstated"]
    # zb holds no pool and zc states its racks: only za is noted.
    assert [(note.severity, note.path) for note in notes] == [("info", ("failure_domains", "zones", 0))]
    assert notes[0].certificate["unknown"] == ["rack and feed power", "a rack's or a feed's blast radius", "hosts per rack"]


def test_a_designed_fabric_is_sized_the_same_with_or_without_racks():
    """Outside a ToR design the leaves fill in host order, so the racks change no fabric figure."""

    def fabric_figures(su1: dict) -> dict:
        design = blueprint(
            [zone("za", [su1])],
            [pool("p", "p5en.48xlarge", 32, ["su1"], fabric="clos", role="training")],
            [fabric("clos", "rail_optimized_clos", 64, link_gbps=200, nics_per_accelerator=2)],
        )
        [figures] = check(design).figures["fabrics"]
        return figures

    unracked = fabric_figures({"name": "su1"})
    assert unracked == fabric_figures(block("su1", 8, 4))
    assert (unracked["switches"], unracked["pools"][0]["connected"]) == ({"leaf": 16, "spine": 8, "core": 0}, True)


REFERENCE_CLUSTERS = ("adt-eks-capacity-block", "parallelcluster-odcr", "hyperpod-eks-odcr", "ai-on-eks", "existing-infrastructure")


@pytest.mark.parametrize("name", REFERENCE_CLUSTERS)
def test_the_public_reference_clusters_state_no_number_aws_does_not_publish(name):
    """eksctl, ParallelCluster, HyperPod, ai-on-eks and terraform-aws-eks clusters, written as their authors do: no racks,
    no rack power, no PUE, no switch radix or link speed; validate passes and names every figure it can't compute."""
    validation = validate(str(EXAMPLES / f"{name}.yaml"))
    assert validation.ok
    blueprint_ = validation.blueprint
    assert all(not block.racked for zone in blueprint_.failure_domains.zones for block in zone.sites)
    assert all(isinstance(model, AwsEfa) for model in blueprint_.fabrics)
    assert blueprint_.power.pue is None and blueprint_.power.rack_budget_kw is None
    noted = {finding.code for finding in validation.findings if finding.severity == "info"}
    assert {"placement.racks-unstated", "fabric.provider-managed"} <= noted
    on_fabric = {pool.name for pool in blueprint_.pools if pool.fabric}
    for blast in validation.design.figures["blast_radius"]:
        assert blast["unknown"] == (["switch", "rack", "feed"] if blast["pool"] in on_fabric else ["rack", "feed"])
