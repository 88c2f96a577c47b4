"""EC2 On-Demand rates per region, each region's rows with the file, version or commit and date they came from.

Two kinds of source, both generated from AWS's Price List by someone who fetched it, never typed:

* **AWS's offer files** (Price List Bulk API, `AmazonEC2`, one region each), trimmed to railyard's types and kept
  under `sources/aws_offers/` (`blueprints.catalog.offer_files`). None is kept yet: this machine can't reach
  AWS's price list; whoever can adds one per region (docs/cost.md, "Refreshing the tables").
* **Karpenter's generated tables** (aws/karpenter-provider-aws, Apache-2.0), vendored unchanged:
  `zz_generated.pricing_aws.go` (us-east-1) and `zz_generated.pricing_aws_us_gov.go` (us-gov-east-1,
  us-gov-west-1). Karpenter generates these for those regions only, by design (its `hack/code/prices_gen`); its
  China table is left out, its prices being yuan, not dollars.

Where both cover a region, the offer file's rows are kept (AWS's own, with its version and publication date), but
only when every type both price reads the same: a disagreement with Karpenter's rows fails the generator, naming
the type, the region and both rates. Every region's rows are then held to the second readings of the rates that decide
most of an accelerator cluster's bill (`blueprints.catalog.on_demand_readings`): a row that disagrees fails the generator.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from blueprints.catalog.offer_files import read_offer_file
from blueprints.catalog.on_demand_readings import Reading, check_readings, load_readings

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "sources"
OFFERS = SOURCES / "aws_offers"
KARPENTER_REPOSITORY = "https://github.com/aws/karpenter-provider-aws"
KARPENTER_COMMIT = "1d927085dd81a9df9301e613f371dac5b4d16bfe"
KARPENTER_RELEASE = "v1.14.1 (the commit is its docs update, 2026-08-21)"
KARPENTER_FILES = {  # vendored file -> its path in Karpenter's repository at KARPENTER_COMMIT
    "karpenter_pricing_aws.go": "pkg/providers/pricing/zz_generated.pricing_aws.go",
    "karpenter_pricing_aws_us_gov.go": "pkg/providers/pricing/zz_generated.pricing_aws_us_gov.go",
}
UNIT = "USD per instance-hour, Linux, shared tenancy"

_GENERATED = re.compile(r"^// generated at (\S+) for (.+)$", re.MULTILINE)
_REGION = re.compile(r'^\t"([a-z]{2}(?:-[a-z]+)+-\d)": \{$')
_PRICE = re.compile(r'"([a-z0-9-]+\.[a-z0-9-]+)": ([0-9]+\.[0-9]+)')


class PriceSourceError(ValueError):
    """A vendored table or the service prices file can't be read as the generator expects."""


def parse_karpenter_table(text: str) -> tuple[str, dict[str, dict[str, float]]]:
    """(generated-at timestamp, {region: {instance type: USD per hour}}) from Karpenter's generated Go table."""
    stamp = _GENERATED.search(text)
    if stamp is None:
        raise PriceSourceError("no '// generated at <time> for <region>' line: not Karpenter's generated pricing table")
    prices: dict[str, dict[str, float]] = {}
    region = None
    for number, line in enumerate(text.splitlines(), 1):
        opened = _REGION.match(line)
        if opened:
            region = opened.group(1)
            prices[region] = {}
            continue
        for name, usd in _PRICE.findall(line):
            if region is None:
                raise PriceSourceError(f"line {number}: a price before any region")
            prices[region][name] = float(usd)
    if not prices or not any(prices.values()):
        raise PriceSourceError("no prices found")
    return stamp.group(1), prices


def _karpenter(file: str, wanted: set[str]) -> tuple[dict[str, Any], dict[str, dict[str, float]]]:
    text = (SOURCES / file).read_text(encoding="utf-8")
    generated_at, table = parse_karpenter_table(text)
    provenance = {
        "kind": "Karpenter generated table",
        "file": f"sources/{file}",
        "repository": KARPENTER_REPOSITORY,
        "commit": KARPENTER_COMMIT,
        "release": KARPENTER_RELEASE,
        "path": KARPENTER_FILES[file],
        "generated_at": generated_at,
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
    return provenance, {region: {name: usd for name, usd in rates.items() if name in wanted} for region, rates in table.items()}


def _agree(held: dict[str, float], rates: dict[str, float], region: str, holder: str, newcomer: str) -> None:
    """Refuse a second source whose rate for a type differs from the first's in the same region: Karpenter's tables are the
    rows every other source is held to (a later offer file or table for us-east-1 must read the same rates)."""
    differing = [f"{name} {held[name]} vs {rates[name]}" for name in sorted(held.keys() & rates.keys()) if abs(held[name] - rates[name]) > 1e-9]
    if differing:
        raise PriceSourceError(f"{newcomer} disagrees with {holder} in {region}: {'; '.join(differing)}")


def on_demand_table(wanted: set[str], offers: Path = OFFERS, readings: tuple[Reading, ...] | None = None) -> dict[str, Any]:
    """prices.json's `ec2_on_demand`: every source's provenance, which source each region's rows come from, and
    the rates of `wanted` types per region (an offer file's rows replace Karpenter's for the regions it covers), each
    row held to its second readings (`readings`, else the committed ones)."""
    sources: dict[str, dict[str, Any]] = {}
    region_source: dict[str, str] = {}
    prices: dict[str, dict[str, float]] = {}
    read = [(f"karpenter:{file}", *_karpenter(file, wanted)) for file in KARPENTER_FILES]
    for path in sorted(offers.glob("*.json")) if offers.is_dir() else []:
        offer = read_offer_file(path, wanted, f"sources/aws_offers/{path.name}")
        read.append((f"aws-offer:{path.name}", offer.provenance(), offer.prices))
    for name, provenance, table in read:  # Karpenter first, so an offer file for the same region replaces its rows
        sources[name] = provenance
        for region, rates in table.items():
            if region in prices:
                _agree(prices[region], rates, region, region_source[region], name)
            region_source[region] = name
            prices[region] = dict(sorted(rates.items()))
    check_readings(prices, region_source, load_readings() if readings is None else readings)
    return {
        "unit": UNIT,
        "sources": sources,
        "region_source": dict(sorted(region_source.items())),
        "prices": dict(sorted(prices.items())),
    }
