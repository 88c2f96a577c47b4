"""Capacity Block rates are generated from the vendored scrape of AWS's pricing page, per type and region, never typed.

The scrape (koyakimu/ec2-capacity-blocks-for-ml-pricing-json @ b3a54aee, 2026-07-22) prices p5en.48xlarge at $54.92 an
instance-hour in the US regions and $49.928 in eu-west-2, and lists Local Zone and UltraServer rows railyard keeps out.
"""

from __future__ import annotations

import json

import pytest

from blueprints.catalog.block_sources import SOURCE, block_rows
from blueprints.catalog.ec2_sources import PriceSourceError
from blueprints.catalog.prices import load_prices


def test_every_region_the_scrape_prices_a_planned_type_in_becomes_a_row_and_local_zones_and_ultraservers_stay_out():
    provenance, rows = block_rows({"p5en.48xlarge", "p5.48xlarge", "u-p6e-gb200x72"})
    p5en = {row["region"]: row["usd"] for row in rows if row["instance_type"] == "p5en.48xlarge"}
    assert p5en == {
        **dict.fromkeys(["ap-northeast-1", "ap-northeast-2", "ap-south-1", "ap-southeast-3", "eu-north-1", "eu-south-2", "eu-west-2"], 49.928),
        **dict.fromkeys(["us-east-1", "us-east-2", "us-west-1", "us-west-2"], 54.92),
    }
    assert "us-east-1-atl-2a" not in {row["region"] for row in rows}  # p5.48xlarge's Atlanta Local Zone row
    assert {row["instance_type"] for row in rows} == {"p5en.48xlarge", "p5.48xlarge"}  # not wanted: UltraServer rows
    assert (provenance["commit"], provenance["scraped"]) == ("b3a54aee92b6ef6b3c50ea6cacbcc03536675c7e", "2026-07-22T07:14:56Z")


def test_the_table_answers_the_generated_rates_with_the_scrapes_date_and_marks_them_indicative():
    table = load_prices()
    price = table.capacity_block("eu-west-2", "p5en.48xlarge")
    assert price is not None and (price.usd, price.date, price.confidence) == (49.928, "2026-07-22", "mirror")
    assert price.source.startswith("koyakimu/ec2-capacity-blocks-for-ml-pricing-json @ b3a54aee92b6: data/pricing.json")
    assert table.capacity_block("eu-west-1", "p5en.48xlarge") is None  # the page prices none there


def test_a_file_of_another_shape_or_a_type_priced_twice_in_a_region_is_refused():
    with pytest.raises(PriceSourceError, match="expected the scrape's"):
        block_rows({"p5.48xlarge"}, json.dumps({"prices": []}))
    document = json.loads(SOURCE.read_text(encoding="utf-8"))
    rows = document["instance_types"]["p5.48xlarge"]["pricing"]
    rows.append({**rows[0], "hourly_rate_usd": rows[0]["hourly_rate_usd"] + 1})
    with pytest.raises(PriceSourceError, match=f"p5.48xlarge in {rows[0]['region_code']} is priced twice"):
        block_rows({"p5.48xlarge"}, json.dumps(document))
