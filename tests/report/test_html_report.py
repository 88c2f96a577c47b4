"""`railyard report`: one self-contained page whose figures are the `validate --json` figures, and which every
example's page loads in a real headless Chromium (Debian's package, driven by Playwright) with no console error.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from railyard.cli import main
from railyard.html_report import build_report
from tests.preview.conftest import ROOT
from tests.shared import shared

EXAMPLES = sorted(path.stem for path in (ROOT / "blueprints" / "examples").glob("*.yaml"))
AT = datetime(2026, 11, 24, tzinfo=UTC)


def _page(name: str) -> str:
    """The example's report page, built once per run (whichever worker asks first)."""
    return shared(f"report-page-{name}", lambda: _built(name))


def _built(name: str) -> str:
    page, _ = build_report(str(ROOT / "blueprints" / "examples" / f"{name}.yaml"), project_dir=ROOT, now=AT)
    return page


@functools.cache
def _json(name: str) -> dict[str, Any]:
    """`railyard validate --json` of the example, run in this process (the CLI's own process is tested elsewhere)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["validate", str(ROOT / "blueprints" / "examples" / f"{name}.yaml"), "--json"])
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


class _Figures(HTMLParser):
    """Every element's `data-figure` path and `data-value`, and the tags the page uses."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: dict[str, Any] = {}
        self.tags: set[str] = set()
        self.references: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        values = dict(attrs)
        if "data-figure" in values:
            self.figures[str(values["data-figure"])] = json.loads(str(values["data-value"]))
        self.references += [str(values[key]) for key in ("src", "href") if key in values]


def _parsed(name: str) -> _Figures:
    parser = _Figures()
    parser.feed(_page(name))
    return parser


def _from_json(document: dict[str, Any], path: str) -> Any:
    """The JSON figure a page's `data-figure` path names (the page's paths key lists by name)."""
    head, *rest = path.split(".")
    if head == "fabrics":
        name, *keys = rest
        value: Any = next(fabric for fabric in document["fabrics"] if fabric["name"] == name)
        for key in keys:
            value = value.get(key)
            if value is None:
                return None
        return value
    if head == "blast_radius":
        pool, *_ = rest
        worst = next(entry for entry in document["blast_radius"] if entry["pool"] == pool)["worst"]
        return worst["share"] if worst else None
    if head == "power":
        if rest == ["it_kw"]:
            return document["power"]["it_kw"]
        zone, block, key, *feed = rest
        zones = {entry["name"]: entry for entry in document["power"]["zones"]}
        found = next(entry for entry in zones[zone]["blocks"] if entry["name"] == block)
        if key == "feeds":  # power.<zone>.<block>.feeds.<index>.<figure>
            index, figure = feed
            return next(entry for entry in found["feeds"] if entry["feed"] == int(index))[figure]
        return found[key]
    if head == "scale_up":
        pool, key = rest
        return next(entry for entry in document["scale_up"] if entry["pool"] == pool)[key]
    if head == "storage":
        tier, key = rest
        return next(entry for entry in document["storage"] if entry["name"] == tier)[key]
    if head == "quotas":
        code, key = rest
        return next(need for need in document["quotas"] if need["code"] == code)[key]
    if head == "cost":
        if rest == ["hourly_usd"]:
            return document["cost"]["hourly_usd"]
        _, key, figure = rest  # cost.lines.<key>.<figure>
        return next(line for line in document["cost"]["lines"] if line["key"] == key)[figure]
    raise AssertionError(f"unknown figure path {path}")


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_figure_on_the_page_is_the_json_figure(name):
    parsed = _parsed(name)
    document = _json(name)
    assert parsed.figures, "the page carries its figures"
    for path, value in parsed.figures.items():
        assert value == _from_json(document, path), path
    if document.get("fabrics"):
        expected = {f"fabrics.{fabric['name']}.switches.leaf" for fabric in document["fabrics"]}
        assert expected <= set(parsed.figures)
    assert "power.it_kw" in parsed.figures or not document["ok"]
    assert "cost.hourly_usd" in parsed.figures or not document["ok"]
    if document["cost"]:  # every priced line of the cost table carries its figure
        assert {f"cost.lines.{line['key']}.hourly_usd" for line in document["cost"]["lines"]} <= set(parsed.figures)
    racked = [block for zone in document["power"]["zones"] for block in zone["blocks"] if block["feeds"]] if document.get("power") else []
    if racked:  # every feed of a block that states racks has its loads on the page
        assert sum(len(block["feeds"]) for block in racked) * 2 == sum(1 for path in parsed.figures if ".feeds." in path)


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_page_is_self_contained(name):
    parsed = _parsed(name)
    assert not {"script", "link", "img", "iframe"} & parsed.tags
    assert parsed.references == []  # nothing to fetch at view time
    assert not re.search(r"url\((?!#)|@import", _page(name))  # an SVG's own url(#clip) is in the page


def test_the_same_blueprint_gives_the_same_bytes():
    # Built again beside the shared page (clearing the cache would rebuild every later test's page on this worker).
    assert _built("heterogeneous") == _page("heterogeneous")


def test_every_example_fabric_is_drawn_grouped_since_none_is_small_enough_to_read_switch_by_switch():
    # The smallest, heterogeneous's trainium fabric, has 24 switches and 16 hosts with 16 rails: 256 host cables.
    assert _page("heterogeneous").count('data-scale="grouped"') == 2
    assert 'data-scale="grouped"' in _page("p5-capacity-block") and 'data-scale="switch by switch"' not in _page("p5-capacity-block")


def test_a_fabric_whose_planes_join_above_the_leaves_says_where():
    assert "2 plane(s), joined at the spine tier, 1 rail(s)" in _page("alibaba-dcn-plus")  # dual-ToR under shared Aggs
    assert "2 plane(s), 8 rail(s)" in _page("alibaba-hpn-pod")  # HPN carries its planes to the top


def test_a_blueprint_with_errors_gets_a_page_of_its_findings_and_exit_1(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text((ROOT / "blueprints" / "examples" / "dgx-h100-superpod.yaml").read_text().replace("nodes: 127", "nodes: 0"))
    out = tmp_path / "report.html"
    done = subprocess.run([sys.executable, "-m", "railyard", "report", str(broken), "-o", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 1 and "the page lists them" in done.stderr
    page = out.read_text()
    assert 'data-ok="false"' in page and 'id="findings"' in page and 'id="fabrics"' not in page


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_opens_in_headless_chromium_with_no_error(name, tmp_path: Path, browser):
    path = tmp_path / f"{name}.html"
    path.write_text(_page(name), encoding="utf-8")
    loaded = browser.load(path)
    assert loaded.console_errors == [] and loaded.page_errors == []
    document = _json(name)
    assert {"placement", "quotas", "findings"} <= set(loaded.sections)
    if document["ok"]:
        assert {"fabrics", "blast", "power", "storage"} <= set(loaded.sections)
        assert loaded.svgs >= 2  # the blast-radius and power charts at least
    # What the browser read from the rendered page is what the JSON says.
    for path_, value in loaded.figures.items():
        assert json.loads(value) == _from_json(document, path_), path_
    # The blast-radius chart as rendered: a tolerance tick for exactly the kinds each pool is checked against.
    ticks = {drawn for drawn in loaded.drawn if drawn.startswith("tolerance-")}
    assert ticks == {f"tolerance-{entry['pool']}-{kind}" for entry in document.get("blast_radius") or [] for kind in entry["checked"]}


def test_the_cost_table_of_the_largest_example_fits_a_laptops_1280_px_window(tmp_path: Path, browser):
    path = tmp_path / "rail-131k.html"
    path.write_text(_page("rail-131k"), encoding="utf-8")
    loaded = browser.load(path, width=1280)
    assert loaded.table_right_px is not None and loaded.table_right_px["cost-table"] <= 1280
    assert loaded.scroll_width <= 1280


def _cost_figure(page: str, identifier: str) -> str:
    return page.split(f'<figure id="{identifier}">', 1)[1].split("</figure>", 1)[0]


def test_an_unpriced_line_is_drawn_and_written_as_unknown_never_as_a_zero_bar():
    page, cost = _page("p5-capacity-block"), _json("p5-capacity-block")["cost"]
    # Six lines: five priced, each labelled with its figure; the file system's price is unknown and drawn as such.
    by_line = _cost_figure(page, "cost-by-line")
    assert by_line.count("unknown (unpriced)") == 1
    assert [line["hourly_usd"] for line in cost["lines"]].count(None) == 1
    assert all(f"{line['hourly_usd']:,.2f}" in by_line for line in cost["lines"] if line["hourly_usd"] is not None)
    assert "storage (+1 unpriced)" in _cost_figure(page, "cost-by-kind")
    assert page.count(">unknown</td>") == 2  # the file system's USD/h and USD/h at max
    assert "It leaves out pool train: p5.48xlarge (a Capacity Block is paid upfront for its window" in page


def test_a_kind_with_no_priced_line_is_unknown_in_the_json_and_on_the_page():
    cost = _json("dev-g6e")["cost"]  # us-west-2: the pool, system nodes, volumes and gateways are unpriced
    assert cost["by_kind_hourly_usd"] == {"on_demand": None, "system": None, "storage": None, "network": None, "control_plane": 0.1}
    assert _cost_figure(_page("dev-g6e"), "cost-by-kind").count("unknown (unpriced)") == 4
