"""Power adds hosts' draw into racks, blocks, zones and the site, and every budget a domain sets is checked."""

from __future__ import annotations

from tests.topology.factory import block, blueprint, check, codes, fabric, only, pool, zone


def site(rack_budget=None, block_budget=None, zone_budget=None, power=None, node_power_kw=None):
    """2 racks of 4 p5en hosts (10.2 kW each, the catalog's typical draw) in one block; 6 hosts placed packed."""
    extra = {"node_power_kw": node_power_kw} if node_power_kw else {}
    return blueprint(
        [zone("z", [block("b", racks=2, hosts_per_rack=4, rack_budget_kw=rack_budget, budget_kw=block_budget)], budget_kw=zone_budget)],
        [pool("p", "p5en.48xlarge", 6, ["b"], **extra)],
        power=power,
    )


def test_loads_add_up_from_racks_to_the_facility():
    power = check(site(power={"pue": 1.5})).figures["power"]
    assert (power["it_kw"], power["facility_kw"], power["pue"]) == (61.2, 91.8, 1.5)
    block_figures = power["zones"][0]["blocks"][0]
    assert block_figures["racks"] == [{"first": 0, "count": 1, "it_kw": 40.8}, {"first": 1, "count": 1, "it_kw": 20.4}]
    assert (block_figures["it_kw"], block_figures["max_rack_kw"], power["zones"][0]["it_kw"]) == (61.2, 40.8, 61.2)


def test_a_pools_own_node_power_overrides_the_catalog():
    assert check(site(node_power_kw=5.0)).figures["power"]["it_kw"] == 30.0


def test_a_rack_over_its_blocks_budget_is_named_with_its_load():
    finding = only(check(site(rack_budget=40)), "power.rack-budget")
    assert finding.path == ("failure_domains", "zones", 0, "blocks", 0, "rack_budget_kw")
    assert finding.certificate == {"rack": "b/rack-0000", "it_kw": 40.8, "budget_kw": 40, "racks_over": 1}
    assert "draws 40.8 kW (4 x p5en.48xlarge at 10.2 kW), over its 40 kW budget" in finding.message


def test_the_site_rack_budget_applies_where_a_block_sets_none():
    finding = only(check(site(power={"rack_budget_kw": 40})), "power.rack-budget")
    assert finding.path == ("power", "rack_budget_kw")


def test_block_and_zone_budgets_are_checked_against_their_it_load():
    report = check(site(block_budget=60, zone_budget=61))
    findings = sorted((finding.path, finding.certificate["it_kw"]) for finding in report.findings if finding.code == "power.domain-budget")
    assert findings == [(("failure_domains", "zones", 0, "blocks", 0, "budget_kw"), 61.2), (("failure_domains", "zones", 0, "budget_kw"), 61.2)]


def test_the_site_budget_is_checked_against_the_facility_load():
    finding = only(check(site(power={"site_budget_kw": 75, "pue": 1.25})), "power.site-budget")
    assert finding.path == ("power", "site_budget_kw")
    assert finding.certificate == {"it_kw": 61.2, "facility_kw": 76.5, "budget_kw": 75}
    assert "76.5 kW at the facility (61.2 kW IT x PUE 1.25)" in finding.message


def test_budgets_the_design_meets_give_no_power_finding():
    report = check(site(rack_budget=41, block_budget=62, zone_budget=62, power={"site_budget_kw": 80, "pue": 1.3}))
    assert not [code for code in codes(report) if code.startswith("power.")]


def _on_fabric(kind: str, hosts_per_rack: int = 4, **fabric_fields):
    """16 p5en hosts (10.2 kW each) in one block, on a radix-64 fabric of 200G, 2 NICs per GPU (16 host links a host)."""
    return blueprint(
        [zone("z", [block("b", racks=16 // hosts_per_rack, hosts_per_rack=hosts_per_rack)])],
        [pool("p", "p5en.48xlarge", 16, ["b"], fabric="f", role="training")],
        [fabric("f", kind, 64, link_gbps=200, nics_per_accelerator=2, **fabric_fields)],
        power={"pue": 1.25},
    )


def test_switches_draw_their_stated_power_leaves_in_their_block_spines_at_the_site():
    report = check(_on_fabric("rail_optimized_clos", switch_kw=1.5, leaf={"switch_kw": 0.8}, tiers=2))
    power = report.figures["power"]
    [figures] = report.figures["fabrics"]
    leaves, spines = figures["switches"]["leaf"], figures["switches"]["spine"]
    assert (leaves, spines) == (8, 4)  # 256 host links at 32 a leaf; 256 uplinks over 64-port spines
    assert power["network"]["fabrics"] == {"f": {"leaf": 8 * 0.8, "spine": 4 * 1.5}}
    assert power["network"]["shared_kw"] == 6.0 and power["network"]["unstated"] == []
    hosts_kw = 16 * 10.2
    [zone_power] = power["zones"]
    assert zone_power["blocks"][0]["it_kw"] == round(hosts_kw + 6.4, 2)  # the leaves stand in the block
    assert power["it_kw"] == round(hosts_kw + 6.4 + 6.0, 2) and power["facility_kw"] == round((hosts_kw + 12.4) * 1.25, 2)
    assert "power.switches-unstated" not in codes(report)


def test_a_tor_draws_in_its_rack():
    # Racks of 2 hosts: 32 host links fill a 64-port ToR's 32 down ports; each rack adds its ToR's 2 kW.
    report = check(_on_fabric("tor_clos", hosts_per_rack=2, switch_kw=2.0, tiers=2))
    racks = report.figures["power"]["zones"][0]["blocks"][0]["racks"]
    assert racks == [{"first": 0, "count": 8, "it_kw": round(2 * 10.2 + 2.0, 2)}]
    assert "topology.port-budget" not in codes(report)


def test_unstated_switch_power_is_named_not_guessed():
    report = check(_on_fabric("rail_optimized_clos", tiers=2))
    note = only(report, "power.switches-unstated")
    assert (note.severity, note.path, note.certificate) == ("info", ("fabrics", 0, "switch_kw"), {"tiers": ["leaf", "spine"]})
    assert report.figures["power"]["network"] == {"shared_kw": 0.0, "fabrics": {"f": {"leaf": None, "spine": None}}, "unstated": ["f"]}
    assert report.figures["power"]["it_kw"] == round(16 * 10.2, 2)
