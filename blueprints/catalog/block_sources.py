"""Capacity Block rates per instance type and region, from a scheduled scrape of AWS's Capacity Block pricing page, vendored.

AWS publishes Capacity Block rates on a web page (aws.amazon.com/ec2/capacityblocks/pricing/), not in the Price List
API. koyakimu/ec2-capacity-blocks-for-ml-pricing-json scrapes that page on a schedule into `data/pricing.json` (its
README: "MIT License"; the repository has no LICENSE file, and the README disclaims that the data is unofficial);
its file at the commit below is kept unchanged as `sources/capacity_blocks_pricing.json`. This module turns it into
the rows of prices.json's `services.capacity_blocks`: one per instance type railyard plans and per region, with the
scrape's date. The rates are indicative: AWS moves them with supply and demand, and a block is billed at the rate
of the moment it is bought (docs/cost.md).

Kept out: the scrape's Local Zone rows (`us-east-1-dfw-2a`: a blueprint names its region, and a Local Zone block is
priced by the zone, which railyard's table has no key for) and its UltraServer rows (`u-p6e-gb200x72`, priced per
UltraServer, not per instance).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from blueprints.catalog.ec2_sources import PriceSourceError

SOURCE = Path(__file__).resolve().parent / "sources" / "capacity_blocks_pricing.json"
REPOSITORY = "koyakimu/ec2-capacity-blocks-for-ml-pricing-json"
COMMIT = "b3a54aee92b6ef6b3c50ea6cacbcc03536675c7e"
REGION = re.compile(r"^[a-z]{2}(-gov)?-[a-z]+-\d$")  # a region code; a Local Zone's (us-east-1-dfw-2a) is longer


def block_rows(wanted: set[str], text: str | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(provenance, rows): each row `{region, instance_type, usd}` for a wanted type in a region the scrape prices, sorted by
    type then region; refuses a file of another shape, and a type priced twice in a region at different rates."""
    text = SOURCE.read_text(encoding="utf-8") if text is None else text
    document = json.loads(text)
    if not isinstance(document, dict) or "instance_types" not in document or "last_updated" not in document.get("metadata", {}):
        raise PriceSourceError(f"{SOURCE.name}: expected the scrape's {{metadata: {{last_updated}}, instance_types}}")
    rates: dict[tuple[str, str], float] = {}
    for name, entry in document["instance_types"].items():
        if name not in wanted:
            continue
        for row in entry["pricing"]:
            region, usd = row["region_code"], float(row["hourly_rate_usd"])
            if not REGION.match(region):
                continue
            if rates.setdefault((name, region), usd) != usd:
                raise PriceSourceError(f"{SOURCE.name}: {name} in {region} is priced twice ({rates[(name, region)]} and {usd})")
    provenance = {
        "repository": REPOSITORY,
        "commit": COMMIT,
        "path": "data/pricing.json",
        "file": f"sources/{SOURCE.name}",
        "scraped": document["metadata"]["last_updated"],
        "page": document["metadata"].get("source_url", ""),
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
    rows = [{"region": region, "instance_type": name, "usd": usd} for (name, region), usd in sorted(rates.items())]
    return provenance, rows
