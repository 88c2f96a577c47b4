"""The report's drawings as data: the fabric picture's boxes and edges (with counts and links), and the blast-radius
chart's rows, states and tolerance ticks, held to the merged graph and the `validate --json` figures."""

from __future__ import annotations

import re

import pytest

from railyard.html_report import build_report
from railyard.html_report.blast_cells import percent
from railyard.html_report.blast_section import BlastBar, blast_bars, blast_section
from railyard.html_report.fabric_model import Box, Edge, grouped, picture_of
from railyard.html_report.fabric_picture import edge_label, fabric_svg
from railyard.html_report.page import _cell, _table
from railyard.pipeline import validate
from tests.preview.conftest import ROOT
from tests.report.test_html_report import AT, EXAMPLES, _json, _page
from tests.topology import fixtures
from tests.topology.factory import design


def _fabrics(name: str):
    validation = validate(str(ROOT / "blueprints" / "examples" / f"{name}.yaml"), None, ROOT)
    assert validation.ok and validation.design is not None
    return validation.design.design.fabrics


def _counts(picture) -> dict[tuple, int]:
    return {box.key: box.count for box in picture.boxes}


def _links(picture) -> dict[tuple[tuple, tuple], tuple[int, float | None]]:
    return {(edge.lower, edge.upper): (edge.links, edge.gbps) for edge in picture.edges}


RAILS = [("leaf", 0, "rail", rail) for rail in range(8)]


def test_rail_131k_is_drawn_as_a_dozen_boxes_with_their_counts_and_links():
    (fabric,) = _fabrics("rail-131k")
    picture = picture_of(fabric)
    assert picture.scale == "grouped"
    assert _counts(picture) == {("core", 0): 2048, ("spine", 0): 4096, **dict.fromkeys(RAILS, 512), ("host", 0, "frontier"): 16384}
    # Each host has 16 links of 200G, two on each of the 8 rails; each rail's 512 leaves send 64 uplinks each.
    assert _links(picture) == {
        (("spine", 0), ("core", 0)): (262144, 200),
        **{(rail, ("spine", 0)): (32768, 200) for rail in RAILS},
        **{(("host", 0, "frontier"), rail): (32768, 200) for rail in RAILS},
    }
    labels = {box.key: box.label for box in picture.boxes}
    assert labels[("spine", 0)] == "spine\n4,096 switches in 64 pods"
    assert labels[("leaf", 0, "rail", 3)] == "leaf · rail 3\n512 switches"
    assert labels[("host", 0, "frontier")] == "frontier\n16,384 hosts"


def test_a_dual_plane_fabric_keeps_its_planes_apart_and_folds_rails_that_do_not_fit_a_row():
    (fabric,) = _fabrics("alibaba-hpn-pod")
    picture = picture_of(fabric)
    planes = {("core", 0): 60, ("core", 1): 60, ("spine", 0): 60, ("spine", 1): 60, ("leaf", 0): 120, ("leaf", 1): 120}
    assert _counts(picture) == {**planes, ("host", 0, "train"): 1920, ("host", 1, "backup"): 120}
    assert _links(picture) == {
        (("spine", 0), ("core", 0)): (480, 400),
        (("spine", 1), ("core", 1)): (480, 400),
        (("leaf", 0), ("spine", 0)): (7200, 400),
        (("leaf", 1), ("spine", 1)): (7200, 400),
        (("host", 0, "train"), ("leaf", 0)): (15360, 200),
        (("host", 0, "train"), ("leaf", 1)): (15360, 200),
        (("host", 1, "backup"), ("leaf", 0)): (960, 200),
        (("host", 1, "backup"), ("leaf", 1)): (960, 200),
    }
    assert {box.key: box.label for box in picture.boxes}[("leaf", 1)] == "leaf · plane 1, 8 rails\n120 switches"


def test_a_fabric_whose_planes_join_at_the_spines_draws_both_planes_under_one_spine_box():
    (fabric,) = _fabrics("alibaba-dcn-plus")
    picture = picture_of(fabric)
    assert _counts(picture) == {("core", 0): 128, ("spine", 0): 256, ("leaf", 0): 128, ("leaf", 1): 128, ("host", 0, "train"): 2048}
    assert _links(picture)[(("leaf", 1), ("spine", 0))] == (8192, 400)


@pytest.mark.parametrize("name", ["rail-131k", "dgx-h100-superpod", "alibaba-hpn-pod", "alibaba-dcn-plus", "heterogeneous", "p5-capacity-block"])
def test_the_grouped_boxes_hold_every_switch_host_and_link_of_the_fabric(name):
    figures = {fabric["name"]: fabric for fabric in _json(name)["fabrics"]}
    for fabric in _fabrics(name):
        picture = grouped(fabric)
        switches = {tier: sum(box.count for box in picture.boxes if box.tier == tier) for tier in ("leaf", "spine", "core")}
        assert switches == {tier: figures[fabric.plan.name]["switches"][tier] for tier in switches}
        assert sum(box.count for box in picture.boxes if box.tier == "host") == figures[fabric.plan.name]["hosts"]
        assert sum(edge.links for edge in picture.edges) == sum(links for _, _, links in fabric.graph.edges(data="links"))


def test_a_small_fabric_is_drawn_switch_by_switch_as_its_sketch_shows():
    (fabric,) = design(fixtures.rail_two_tier()).fabrics
    picture = picture_of(fabric)
    assert picture.scale == "switch by switch"
    leaves = [("leaf", 0, position, 0, rail) for position in (0, 1) for rail in (0, 1)]
    spines = [("spine", 0, "all", member) for member in (0, 1)]
    hosts = [("host", "train", position, host) for position in (0, 1) for host in (0, 1)]
    assert [box.key for box in picture.boxes] == spines + leaves + hosts
    # Two links from every leaf to every spine; each host two ports on each rail leaf of its position.
    expected = {(leaf, spine): (2, 100) for leaf in leaves for spine in spines}
    expected |= {(host, leaf): (2, 100) for host in hosts for leaf in leaves if leaf[2] == host[2]}
    assert _links(picture) == expected


def test_a_rail_only_fabric_meets_each_rails_spine_from_that_rails_leaves_only():
    (fabric,) = design(fixtures.rail_only()).fabrics
    picture = grouped(fabric)
    assert _links(picture) == {
        (("leaf", 0, "rail", 0), ("spine", 0, "rail", 0)): (8, 100),
        (("leaf", 0, "rail", 1), ("spine", 0, "rail", 1)): (8, 100),
        (("host", 0, "train"), ("leaf", 0, "rail", 0)): (8, 100),
        (("host", 0, "train"), ("leaf", 0, "rail", 1)): (8, 100),
    }
    assert Box("spine", ("spine", 0, "rail", 1), 1, "spine · rail 1\n1 switch") in picture.boxes


def test_an_edge_says_its_links_and_speed_or_its_bandwidth_when_speeds_differ():
    assert edge_label(32768, 200, 6553.6) == "32,768 × 200G"
    assert edge_label(12, None, 3.2) == "3.2 Tb/s"
    assert Edge(("leaf", 0), ("spine", 0), 2, None, 0.5).gbps is None


def test_the_page_draws_rail_131k_grouped_and_says_what_a_box_and_an_edge_are():
    page = _page("rail-131k")
    assert 'data-scale="grouped"' in page
    assert "each edge is every link between two boxes: links × link speed" in page
    assert page.count("32,768 × 200G") == 2  # one shared label for the 8 edges on each side of the rail leaves


# The blast-radius chart: a level that is not checked is drawn as not checked, never against the tolerance.


def test_a_rack_spread_pool_draws_block_and_zone_as_not_checked_with_no_tolerance():
    (entry,) = _json("p5-capacity-block")["blast_radius"]
    assert blast_bars(entry) == [
        BlastBar("train", "switch", 0.0, "within", 0.1),
        BlastBar("train", "rack", 0.0625, "within", 0.1),
        BlastBar("train", "feed", 0.0, "within", 0.1),
        BlastBar("train", "block", 1.0, "not checked", None),
        BlastBar("train", "zone", 1.0, "not checked", None),
    ]


def test_unknown_kinds_are_rows_with_no_bar():
    entries = {entry["pool"]: entry for entry in _json("alibaba-hpn-pod")["blast_radius"]}
    assert blast_bars(entries["train"]) == [
        BlastBar("train", "switch", 0.0, "within", 1.0),
        BlastBar("train", "rack", None, "unknown", None),
        BlastBar("train", "feed", None, "unknown", None),
        BlastBar("train", "block", 0.0667, "within", 1.0),
        BlastBar("train", "zone", 1.0, "not checked", None),
    ]


def _drawn(section: str) -> set[str]:
    return set(re.findall(r'id="((?:bar|tolerance)-[^"]+)"', section))


def test_the_chart_draws_a_tolerance_tick_only_where_the_table_says_checked():
    document = _json("p5-capacity-block")
    section = blast_section(document, _cell, _table)
    assert _drawn(section) == {
        "bar-train-switch-within",
        "bar-train-rack-within",
        "bar-train-feed-within",
        "bar-train-block-not-checked",
        "bar-train-zone-not-checked",
        "tolerance-train-switch",
        "tolerance-train-rack",
        "tolerance-train-feed",
    }
    assert "100%: not checked (spread: racks)" in section
    assert '<tr data-pool="train" data-verdict="within tolerance">' in section
    assert "<td>block 100%, zone 100%</td>" in section  # the table's "not checked" column
    assert "<td>switch, feed, rack</td>" in section


def test_a_pool_over_its_tolerance_is_red_in_the_chart_and_over_in_the_table():
    document = _json("p5-capacity-block")
    (entry,) = document["blast_radius"]
    over = {**entry, "max_failure_share": 0.05}  # the worst rack takes 6.25%
    section = blast_section({**document, "blast_radius": [over]}, _cell, _table)
    assert "bar-train-rack-over" in _drawn(section) and "tolerance-train-rack" in _drawn(section)
    assert "6.25% &gt; 5% tolerated" in section  # the chart's words (SVG text escapes ">")
    assert 'data-verdict="over tolerance"' in section


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_examples_chart_table_and_verdict_agree(name):
    document = _json(name)
    if not document["ok"]:
        return
    page = _page(name)
    findings = {finding["code"] for finding in document["findings"]}
    assert "topology.blast-radius" not in findings  # the page says ok ...
    for entry in document["blast_radius"]:
        bars = blast_bars(entry)
        # ... so no checked bar is over its tolerance, and the ticks are exactly the checked kinds.
        assert not any(bar.state == "over" for bar in bars)
        assert {bar.kind for bar in bars if bar.tolerance is not None} == set(entry["checked"])
        ticks = {drawn.removeprefix(f"tolerance-{entry['pool']}-") for drawn in _drawn(page) if drawn.startswith(f"tolerance-{entry['pool']}-")}
        assert ticks == set(entry["checked"])
        verdict = "within tolerance" if entry["worst"] else "nothing checked"
        assert f'data-pool="{entry["pool"]}" data-verdict="{verdict}"' in page


def test_shares_read_the_same_in_the_chart_and_the_table():
    assert [percent(share) for share in (0.0625, 1.0, 0.0, 0.125, 0.0002, 0.252)] == ["6.25%", "100%", "0%", "12.5%", "0.02%", "25.2%"]


def _texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def test_the_drawing_has_one_line_per_edge_and_one_label_per_box_or_fan():
    (fabric,) = _fabrics("rail-131k")
    svg, picture = fabric_svg(fabric)
    assert svg.count('id="line2d_') == len(picture.edges) == 17
    texts = _texts(svg)
    # Box labels are two lines of text each; edge labels one, the 8 identical edges on each side of the leaves sharing one.
    assert sorted(text for text in texts if "×" in text) == ["262,144 × 200G", "each 32,768 × 200G", "each 32,768 × 200G"]
    assert {"core", "2,048 switches", "spine", "4,096 switches in 64 pods", "frontier", "16,384 hosts"} <= set(texts)
    assert texts.count("512 switches") == 8


def test_a_small_fabric_is_drawn_as_dots_and_lines_with_a_legend_of_its_tiers():
    (fabric,) = design(fixtures.rail_two_tier()).fabrics
    svg, picture = fabric_svg(fabric)
    assert picture.scale == "switch by switch"
    assert svg.count('id="line2d_') == len(picture.edges) == 16
    assert _texts(svg) == ["spine", "leaf", "host"]
    assert fabric_svg(fabric)[0] == svg  # the same fabric, the same bytes


def test_a_pool_over_its_tolerance_gets_a_failed_page_with_its_red_bar_and_verdict(tmp_path, browser):
    blueprint = tmp_path / "over.yaml"
    text = (ROOT / "blueprints" / "examples" / "p5-capacity-block.yaml").read_text()
    blueprint.write_text(text.replace("max_failure_share: 0.1", "max_failure_share: 0.05"))  # its worst rack takes 6.25%
    page, ok = build_report(str(blueprint), project_dir=ROOT, now=AT)
    assert not ok and 'data-ok="false"' in page and "FAILED: 1 error(s)" in page
    assert "<td>topology.blast-radius</td>" in page
    assert 'data-verdict="over tolerance"' in page and "6.25% &gt; 5% tolerated" in page
    path = tmp_path / "over.html"
    path.write_text(page, encoding="utf-8")
    loaded = browser.load(path)
    assert loaded.console_errors == [] and loaded.page_errors == []
    assert {"bar-train-rack-over", "tolerance-train-rack"} <= set(loaded.drawn)
