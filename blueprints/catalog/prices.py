"""What an hour of each thing railyard plans costs: `prices.json`, generated, every figure with its source and date.

Two inputs, never a price typed where a maintained table exists:

* **EC2 On-Demand, per instance type and region** (`blueprints.catalog.ec2_sources`): AWS's own Price List
  offer files where one is kept for a region, else Karpenter's tables, which its maintainers regenerate from
  the AWS Price List API for each release (us-east-1, and GovCloud's us-gov-east-1 and us-gov-west-1),
  vendored unchanged. Each region's rows name the file, version or commit and date they came from; a
  region no source covers gets its instance prices named as unknown, never guessed.
* **Service prices** from AWS's pricing pages and announcements (`service_prices.yaml`): the EKS
  control plane, FSx for Lustre, EBS gp3, the NAT gateway and public IPv4 addresses, each with its
  source and the date it states; Capacity Blocks' rates per type and region from a vendored scrape of
  AWS's Capacity Block pricing page (`blueprints.catalog.block_sources`), indicative.

The file keeps the accelerator catalog's and the system node group's instance types only.

    python -m blueprints.catalog.prices           # regenerate prices.json
    python -m blueprints.catalog.prices --check   # CI: exit 1 when it is stale

`docs/cost.md` ("Refreshing the tables") says how to refresh each input.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any

from blueprints.catalog.block_sources import SOURCE as BLOCK_SOURCE
from blueprints.catalog.block_sources import block_rows
from blueprints.catalog.ec2_sources import PriceSourceError, on_demand_table
from blueprints.catalog.generated import write_or_check
from blueprints.catalog.planned_types import wanted_types
from blueprints.records import record
from blueprints.source import load_data

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "prices.json"
SERVICES_FILE = HERE / "service_prices.yaml"
HOURS_PER_MONTH = 730  # AWS's pricing pages convert monthly prices at 730 hours a month


def _check_services(document: Any) -> dict[str, Any]:
    """The service prices file, refused when an entry lacks its price, unit, source or date."""
    if not isinstance(document, dict) or not isinstance(document.get("services"), dict):
        raise PriceSourceError(f"{SERVICES_FILE.name}: expected a mapping with 'services'")
    for key, entry in document["services"].items():
        if key == "capacity_blocks":  # its rates, source and date are generated (_with_block_rates)
            continue
        for prices in entry.get("prices", [entry]):
            missing = [field for field in ("usd", "unit", "source", "date") if field not in {**entry, **prices}]
            if missing:
                raise PriceSourceError(f"{SERVICES_FILE.name}: services.{key} lacks {', '.join(missing)}")
    services: dict[str, Any] = document["services"]
    return services


def _with_block_rates(services: dict[str, Any], wanted: set[str]) -> dict[str, Any]:
    """The services with `capacity_blocks.prices` generated from the vendored scrape (`blueprints.catalog.block_sources`), its
    source and date the scrape's; the YAML entry gives only the unit, confidence and note, never a rate."""
    entry = services["capacity_blocks"]
    if "prices" in entry:
        raise PriceSourceError(f"{SERVICES_FILE.name}: services.capacity_blocks lists rates; they are generated from {BLOCK_SOURCE.name}")
    provenance, rows = block_rows(wanted)
    page = provenance["page"].removeprefix("https://") or "aws.amazon.com/ec2/capacityblocks/pricing/"
    source = f"{provenance['repository']} @ {provenance['commit'][:12]}: {provenance['path']}, a scheduled scrape of {page} (hourly_rate_usd)"
    generated = {**entry, "source": source, "date": provenance["scraped"][:10], "provenance": provenance, "prices": rows}
    return {**services, "capacity_blocks": generated}


def generate() -> str:
    """The exact text of prices.json."""
    wanted = wanted_types()
    services = _check_services(load_data(SERVICES_FILE.read_text(encoding="utf-8")))
    document = {
        "ec2_on_demand": on_demand_table(wanted),
        "hours_per_month": HOURS_PER_MONTH,
        "services": _with_block_rates(services, wanted),
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


@record
class Price:
    """One price: US dollars per `unit`, where it was read, the date that source gives, and how sure it is."""

    usd: float
    unit: str
    source: str
    date: str
    confidence: str = "published"


def _described(origin: dict[str, Any]) -> tuple[str, str]:
    """(source, date) of an EC2 source's provenance, as a line's source cell reads it."""
    if origin["kind"] == "AWS Price List offer file":
        published = origin["publication_date"]
        words = f"AWS Price List offer file {origin['offer_code']} version {origin['version']} ({origin['file']}, published {published})"
        return words, published[:10]
    words = f"{origin['repository']} @ {origin['commit'][:12]}: {origin['path']} (generated {origin['generated_at']})"
    return words, origin["generated_at"][:10]


class PriceTable:
    """The prices railyard knows; every lookup answers a `Price` or None (unknown: named by the caller, never zero)."""

    def __init__(self, document: dict[str, Any]) -> None:
        ec2 = document["ec2_on_demand"]
        described = {name: _described(origin) for name, origin in ec2["sources"].items()}
        # Each region's rows with their source's words and date, as a Price carries them.
        self._ec2_origin = MappingProxyType({region: described[name] for region, name in ec2["region_source"].items()})
        self._on_demand = MappingProxyType({region: MappingProxyType(prices) for region, prices in ec2["prices"].items()})
        self._services = document["services"]
        self.hours_per_month: int = document["hours_per_month"]

    @property
    def on_demand_regions(self) -> tuple[str, ...]:
        """The regions the EC2 table covers."""
        return tuple(self._on_demand)

    def on_demand_source(self, region: str) -> str | None:
        """The source of `region`'s On-Demand rows, in a line's words (None: no source covers the region)."""
        origin = self._ec2_origin.get(region)
        return None if origin is None else origin[0]

    def on_demand(self, region: str, instance_type: str) -> Price | None:
        """An instance type's On-Demand hourly price in `region`."""
        table = self._on_demand.get(region)
        usd = None if table is None else table.get(instance_type)
        if usd is None:
            return None
        source, day = self._ec2_origin[region]
        return Price(usd, "instance-hour", source, day, "generated")

    def _entry(self, service: str, region: str, **match: str) -> Price | None:
        entry = self._services[service]
        for row in entry.get("prices", [entry]):
            if row.get("region", entry.get("region")) not in (region, "*"):
                continue
            if all(str(row.get(key)) == value for key, value in match.items()):
                merged = {**entry, **row}
                return Price(float(merged["usd"]), merged["unit"], merged["source"], str(merged["date"]), merged.get("confidence", "published"))
        return None

    def capacity_block(self, region: str, instance_type: str) -> Price | None:
        """A Capacity Block's price per instance-hour for `instance_type` in `region`."""
        return self._entry("capacity_blocks", region, instance_type=instance_type)

    def capacity_block_page(self) -> str:
        """The Capacity Block table's source in a few words: AWS's page and the day it was scraped."""
        return f"AWS's Capacity Block pricing page (as scraped {self._services['capacity_blocks']['date']})"

    def control_plane(self, region: str, support: str) -> Price | None:
        """The EKS control plane per cluster-hour: `standard` or `extended` support."""
        return self._entry("eks_control_plane", region, support=support)

    def provisioned_control_plane(self, region: str, tier: str) -> Price | None:
        """An EKS Provisioned Control Plane tier per cluster-hour, on top of the control plane's price."""
        return self._entry("eks_provisioned_control_plane", region, tier=tier)

    def lustre(self, region: str, deployment_type: str, throughput: int | None, storage_type: str = "SSD") -> Price | None:
        """FSx for Lustre storage per GB-month for a deployment type (and throughput tier, MB/s/TiB, where it has one)."""
        match = {"deployment_type": deployment_type, "storage_type": storage_type}
        if throughput is not None:
            match["throughput"] = str(throughput)
        return self._entry("fsx_lustre", region, **match)

    def service(self, service: str, region: str) -> Price | None:
        """A one-price service (`ebs_gp3_storage`, `nat_gateway_hour`, `s3_standard_storage`) in `region`."""
        return self._entry(service, region)


@functools.cache
def load_prices() -> PriceTable:
    """The committed price table, read once per process."""
    return PriceTable(json.loads(OUTPUT.read_text(encoding="utf-8")))


def main(argv: list[str] | None = None) -> int:
    """Regenerate prices.json, or with --check exit 1 when it is stale."""
    return write_or_check("blueprints.catalog.prices", __doc__.splitlines()[0], OUTPUT, generate, argv)


if __name__ == "__main__":
    sys.exit(main())
