"""Every commercial region's On-Demand rate for p5.48xlarge, p5en.48xlarge and g6e.12xlarge agrees with a second,
independent reading of it (`blueprints/catalog/on_demand_readings.yaml`), and the generator refuses a row that doesn't."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from blueprints.catalog.ec2_sources import on_demand_table
from blueprints.catalog.offer_files import trim
from blueprints.catalog.on_demand_readings import Reading, ReadingError, load_readings, parse_readings
from blueprints.catalog.prices import load_prices

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "ec2_offer_file.json"
TYPES = ("p5.48xlarge", "p5en.48xlarge", "g6e.12xlarge")
SKYPILOT = "skypilot-org/skypilot-catalog @ 00148f2af367: catalogs/v8/aws/vms.csv"
READ_DAY = "2026-11-29 (read; the file states no date, the catalog is rebuilt from AWS's Price List every few hours)"


def _commercial(region: str) -> bool:
    return not region.startswith(("us-gov-", "cn-"))


def test_every_commercial_row_of_the_three_types_agrees_with_at_least_one_second_reading():
    prices = load_prices()
    readings = load_readings()
    checked: dict[tuple[str, str], list[str]] = {}
    for region in filter(_commercial, prices.on_demand_regions):
        for name in TYPES:
            price = prices.on_demand(region, name)
            if price is None:
                continue
            held = [reading for reading in readings if (reading.instance_type, reading.region) == (name, region)]
            assert held, f"{name} in {region} has no second reading in on_demand_readings.yaml"
            assert all(reading.agrees(price.usd) for reading in held), (name, region, price.usd, held)
            checked[(name, region)] = sorted(reading.source for reading in held)
    # railyard prices these three in us-east-1 alone among commercial regions (Karpenter's table); each has two or three readings.
    assert checked == {
        ("p5.48xlarge", "us-east-1"): ["quick_reference", "skypilot"],
        ("p5en.48xlarge", "us-east-1"): ["quick_reference", "skypilot"],
        ("g6e.12xlarge", "us-east-1"): ["eks_node_viewer", "quick_reference", "skypilot"],
    }
    assert (prices.on_demand("us-east-1", "p5.48xlarge").usd, prices.on_demand("us-east-1", "p5en.48xlarge").usd) == (55.04, 63.296)
    assert prices.on_demand("us-east-1", "g6e.12xlarge").usd == 10.49264


def test_the_readings_cover_the_regions_aws_sells_p5_and_p5en_in_and_cite_their_source():
    readings = load_readings()
    p5 = {reading.region: reading.usd for reading in readings if reading.instance_type == "p5.48xlarge" and reading.source == "skypilot"}
    assert (p5["us-west-2"], p5["us-east-2"], p5["eu-north-1"], p5["ap-northeast-1"]) == (55.04, 55.04, 58.8928, 68.8)
    assert len(p5) == 12
    p5en = {reading.region for reading in readings if reading.instance_type == "p5en.48xlarge"}
    assert {"us-west-2", "us-east-2", "ap-northeast-1", "eu-south-2"} <= p5en and len(p5en) == 11
    g6e = {reading.region: reading.usd for reading in readings if reading.instance_type == "g6e.12xlarge" and reading.source == "skypilot"}
    assert (g6e["us-west-2"], g6e["us-east-2"], g6e["eu-central-1"]) == (10.49264, 10.49264, 13.12002) and len(g6e) == 8
    assert {reading.instance_type for reading in readings} == set(TYPES)
    assert {reading.cited for reading in readings if reading.source == "skypilot"} == {f"{SKYPILOT} ({READ_DAY})"}


def test_a_rounded_reading_agrees_within_its_rounding_and_not_a_cent_past_it():
    reading = Reading("p5en.48xlarge", "us-east-1", 63.3, "quick_reference", "cited", 0.005)
    assert reading.agrees(63.296) and reading.agrees(63.305) and reading.agrees(63.295)
    assert not reading.agrees(63.294) and not reading.agrees(63.306)
    exact = Reading("p5.48xlarge", "us-west-2", 55.04, "skypilot", "cited", 0.0)
    assert exact.agrees(55.04) and not exact.agrees(55.041)


def _offer_for(region: str, p5_usd: str, tmp_path: Path) -> Path:
    """A trimmed offer file for `region` pricing p5.48xlarge at `p5_usd` (the fixture's made-up 12.34 replaced)."""
    trimmed = trim(json.loads(FIXTURE.read_text()), {"p5.48xlarge"})
    text = json.dumps(trimmed).replace('"us-west-2"', f'"{region}"').replace('"12.3400000000"', f'"{p5_usd}"')
    (tmp_path / f"{region}.json").write_text(text)
    return tmp_path


def test_an_offer_file_whose_p5_rate_disagrees_with_the_reading_fails_the_generator_naming_both(tmp_path):
    offers = _offer_for("us-west-2", "98.3200000000", tmp_path)
    message = (
        "the On-Demand table disagrees with a second reading (on_demand_readings.yaml): p5.48xlarge in us-west-2: "
        f"aws-offer:us-west-2.json reads 98.32, {SKYPILOT} ({READ_DAY}) reads 55.04; "
        "check AWS's EC2 On-Demand pricing page for the region and correct whichever is wrong before regenerating"
    )
    with pytest.raises(ReadingError, match=re.escape(message)):
        on_demand_table({"p5.48xlarge"}, offers)


def test_an_offer_file_that_agrees_with_the_reading_is_kept_with_its_provenance(tmp_path):
    table = on_demand_table({"p5.48xlarge"}, _offer_for("us-west-2", "55.0400000000", tmp_path))
    assert table["prices"]["us-west-2"] == {"p5.48xlarge": 55.04}
    assert table["region_source"]["us-west-2"] == "aws-offer:us-west-2.json"


def test_a_reading_naming_no_source_or_a_file_of_another_shape_is_refused():
    with pytest.raises(ReadingError, match=re.escape("readings[0] names source 'vantage', which 'sources' lacks")):
        parse_readings({"sources": {}, "readings": [{"type": "p5.48xlarge", "region": "us-east-1", "usd": 55.04, "source": "vantage"}]})
    with pytest.raises(ReadingError, match="expected a mapping with 'sources' and 'readings'"):
        parse_readings({"readings": {}})
