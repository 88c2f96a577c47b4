"""Service racks (no accelerator host) whose draw is not stated, and racks that serve several blocks (issue 44, item 9).

The fixture, hand-worked: one zone `hall` of two blocks, each of 4 host racks holding 2 hosts at 10 kW (20 kW a rack,
80 kW a block), on 3 dual-corded feeds (rack i on feeds i mod 3 and i + 1 mod 3)::

    zone hall ── management racks (the zone's own: no block, no feed; serve b1 and b2)
     ├─ block b1: host racks 0-3 │ service racks 4, 5, ... (on b1's feeds, after the host racks)
     └─ block b2: host racks 0-3

The SuperPOD case is NVIDIA's DGX SuperPOD RA-11333-001 (H100), Table 7 "Major components of the 4 SU, 127-node DGX
SuperPOD": "Racks 38", of which 32 hold the DGX systems (four per rack, eight racks a scalable unit) and 6 hold the
management, storage and network gear that serves every scalable unit; the RA gives no draw for those 6.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from railyard.pipeline import validate
from tests.preview.conftest import ROOT
from tests.topology.factory import block, blueprint, check, only, pool, zone

SUPERPOD = ROOT / "blueprints" / "examples" / "dgx-h100-superpod.yaml"
HOST_RACK_KW = 2 * 10.0


def _hall(b1_service: list[dict] | None = None, zone_service: list[dict] | None = None, **zone_fields):
    """The fixture above: 8 hosts at 10 kW in each of b1 and b2, racks of 2, 3 feeds."""
    blocks = [
        block("b1", racks=4, hosts_per_rack=2, power_feeds=3, service_racks=b1_service or []),
        block("b2", racks=4, hosts_per_rack=2, power_feeds=3),
    ]
    hall = zone("hall", blocks, service_racks=zone_service or [], **zone_fields)
    return check(blueprint([hall], [pool("train", "p5.48xlarge", 16, ["hall"], spread="blocks", node_power_kw=10.0)]))


def _zone(report) -> dict:
    [hall] = report.figures["power"]["zones"]
    return hall


def test_a_service_rack_without_a_draw_is_reported_unknown_and_left_out_of_the_kw_never_as_zero():
    report = _hall(b1_service=[{"role": "storage", "racks": 2}])
    b1 = _zone(report)["blocks"][0]
    assert b1["service_racks"] == [{"role": "storage", "racks": 2, "kw_per_rack": None, "serves": ["b1"]}]
    assert (b1["it_kw"], b1["racks_total"], b1["max_rack_kw"]) == (80.0, 6, HOST_RACK_KW)
    assert report.figures["power"]["service_racks_unstated"] == [{"zone": "hall", "block": "b1", "role": "storage", "racks": 2}]
    note = only(report, "power.service-racks-unstated")
    assert note.severity == "info"
    assert note.path == ("failure_domains", "zones", 0, "blocks", 0, "service_racks", 0, "kw_per_rack")
    assert note.message == (
        "the 2 storage racks of block 'b1' state no draw, so the block's, zone's and site's IT load, its feeds and its largest "
        "rack leave them out (they count in the racks, not in the kW)"
    )


def test_racks_after_an_unstated_group_keep_their_place_on_the_feeds():
    # Host racks 0-3 draw 20 kW, 10 on each of their two feeds (rack 0 on feeds 0+1, 1 on 1+2, 2 on 2+0, 3 on 0+1): 30, 30, 20.
    plain = _zone(_hall())["blocks"][0]["feeds"]
    assert [feed["it_kw"] for feed in plain] == [30.0, 30.0, 20.0]
    # Two storage racks of unknown draw take racks 4 and 5; the 12 kW management rack is rack 6, on feeds 0 and 1 (6 mod 3,
    # 7 mod 3): 6 kW more on each. Numbered as rack 4 it would land on feeds 1 and 2 instead.
    served = _zone(_hall(b1_service=[{"role": "storage", "racks": 2}, {"role": "management", "racks": 1, "kw_per_rack": 12.0}]))
    added = [round(after["it_kw"] - before["it_kw"], 6) for before, after in zip(plain, served["blocks"][0]["feeds"], strict=True)]
    assert added == [6.0, 6.0, 0.0]
    assert (served["blocks"][0]["it_kw"], served["blocks"][0]["max_rack_kw"]) == (92.0, HOST_RACK_KW)


def test_an_unstated_service_rack_is_not_checked_against_the_rack_budget():
    report = _hall(b1_service=[{"role": "storage", "racks": 1}])
    assert "power.rack-budget" not in [finding.code for finding in report.findings]
    # A stated draw over the budget is still refused at load.
    over = {"role": "storage", "racks": 1, "kw_per_rack": 25.0}
    with pytest.raises(ValidationError, match="a storage rack draws 25 kW, over the block's rack_budget_kw 21"):
        blueprint([zone("hall", [block("b1", 4, 2, rack_budget_kw=21.0, service_racks=[over])])], [pool("t", "p5.48xlarge", 8, ["hall"])])


def test_a_zones_own_service_racks_serve_every_block_and_count_once_in_the_zone_and_the_site():
    plain, served = _hall(), _hall(zone_service=[{"role": "management", "racks": 3, "kw_per_rack": 5.0}])
    hall = _zone(served)
    # 80 kW in each block, unchanged (the racks stand in no block, on no feed); the zone and the site add 3 x 5 kW once.
    assert [b["it_kw"] for b in hall["blocks"]] == [80.0, 80.0]
    assert [b["feeds"] for b in hall["blocks"]] == [b["feeds"] for b in _zone(plain)["blocks"]]
    assert (hall["it_kw"], served.figures["power"]["it_kw"]) == (175.0, 175.0)
    assert hall["service_racks"] == [{"role": "management", "racks": 3, "kw_per_rack": 5.0, "serves": ["b1", "b2"]}]
    assert hall["racks_total"] == 4 + 4 + 3


def test_a_zones_service_racks_count_against_the_zone_budget():
    finding = only(_hall(zone_service=[{"role": "management", "racks": 3, "kw_per_rack": 5.0}], budget_kw=170.0), "power.domain-budget")
    assert finding.certificate == {"element": "hall", "it_kw": 175.0, "budget_kw": 170.0}
    assert "power.domain-budget" not in [f.code for f in _hall(zone_service=[{"role": "management", "racks": 3}], budget_kw=170.0).findings]


def test_block_service_racks_that_serve_another_block_draw_from_the_block_they_stand_in():
    hall = _zone(_hall(b1_service=[{"role": "ufm", "racks": 1, "kw_per_rack": 4.0, "serves": ["b1", "b2"]}]))
    assert [b["it_kw"] for b in hall["blocks"]] == [84.0, 80.0]
    assert hall["it_kw"] == 164.0
    assert hall["blocks"][0]["service_racks"] == [{"role": "ufm", "racks": 1, "kw_per_rack": 4.0, "serves": ["b1", "b2"]}]
    assert hall["blocks"][1]["service_racks"] == []


def test_service_racks_that_serve_a_block_outside_their_zone_are_refused():
    with pytest.raises(ValidationError, match=r"zone 'hall': the management racks serve 'b9', which is no block of the zone \(its blocks: b1, b2\)"):
        _hall(zone_service=[{"role": "management", "racks": 2, "serves": ["b1", "b9"]}])


def test_the_superpod_example_states_its_38_racks_with_the_six_management_racks_draw_unknown():
    validation = validate(str(SUPERPOD))
    power = validation.design.figures["power"]
    [hall] = power["zones"]
    assert hall["racks_total"] == 38  # Table 7: "Racks 38": 32 racks of DGX H100 systems and 6 that serve all four SUs
    assert sum(block["racks_total"] for block in hall["blocks"]) == 32
    assert hall["service_racks"] == [{"role": "management", "racks": 6, "kw_per_rack": None, "serves": ["su1", "su2", "su3", "su4"]}]
    # The kW are the DGX systems' alone (127 x 10.2), with the management racks named as left out, not counted as 0.
    assert (hall["it_kw"], power["it_kw"]) == (1295.4, 1295.4)
    assert power["service_racks_unstated"] == [{"zone": "hall", "block": None, "role": "management", "racks": 6}]
    note = [finding for finding in validation.findings if finding.code == "power.service-racks-unstated"]
    assert [finding.path for finding in note] == [("failure_domains", "zones", 0, "service_racks", 0, "kw_per_rack")]
    assert note[0].message.startswith("the 6 management racks of zone 'hall' state no draw, so the zone's and site's IT load leave them out")


def test_the_power_table_shows_a_zones_own_service_racks_with_their_draw_or_that_it_is_not_stated():
    stated = _hall(zone_service=[{"role": "management", "racks": 3, "kw_per_rack": 5.0}])
    unstated = _hall(zone_service=[{"role": "management", "racks": 1}])
    rows = {
        name: next(rows for title, _, rows in report.tables() if title == "Power (kW)")
        for name, report in (("stated", stated), ("unstated", unstated))
    }
    assert ["  3 management racks (serve b1, b2)", "15", "", "5", ""] in rows["stated"]
    assert ["  1 management rack (serve b1, b2)", "not stated", "", "not stated", ""] in rows["unstated"]
