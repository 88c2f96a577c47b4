"""What an hour of each thing railyard plans costs: `prices.json`, generated, every figure with its source and date.

Two inputs, never a price typed where a maintained table exists:

* **EC2 On-Demand, per instance type and region**: Karpenter's table, which its maintainers
  regenerate from the AWS Price List API for each release (`pkg/providers/pricing/
  zz_generated.pricing_aws.go` in aws/karpenter-provider-aws), vendored unchanged as
  `sources/karpenter_pricing_aws.go`. It holds us-east-1 only (Karpenter asks the Price List
  API for other regions at run time); a design in another region gets its instance prices
  named as unknown, never guessed.
* **Service prices** from AWS's pricing pages and announcements (`service_prices.yaml`): the EKS
  control plane, Capacity Blocks for ML, FSx for Lustre, EBS gp3 and the NAT gateway, each with
  its source and the date it states.

The file keeps the accelerator catalog's and the system node group's instance types only.

    python -m blueprints.catalog.prices           # regenerate prices.json
    python -m blueprints.catalog.prices --check   # CI: exit 1 when it is stale

To refresh the EC2 table, copy the file of a newer Karpenter release over the vendored one, set
`EC2_SOURCE` below to its commit, and regenerate; `docs/cost.md` says how to refresh the rest.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any

from blueprints.catalog.generated import write_or_check
from blueprints.records import record
from blueprints.source import load_data

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "prices.json"
EC2_FILE = HERE / "sources" / "karpenter_pricing_aws.go"
SERVICES_FILE = HERE / "service_prices.yaml"
EC2_SOURCE = {
    "repository": "https://github.com/aws/karpenter-provider-aws",
    "commit": "1d927085dd81a9df9301e613f371dac5b4d16bfe",
    "path": "pkg/providers/pricing/zz_generated.pricing_aws.go",
    "release": "v1.14.1 (the commit is its docs update, 2026-08-21)",
}
HOURS_PER_MONTH = 730  # AWS's pricing pages convert monthly prices at 730 hours a month

_GENERATED = re.compile(r"^// generated at (\S+) for (.+)$", re.MULTILINE)
_REGION = re.compile(r'^\t"([a-z]{2}(?:-[a-z]+)+-\d)": \{$')
_PRICE = re.compile(r'"([a-z0-9-]+\.[a-z0-9-]+)": ([0-9]+\.[0-9]+)')


class PriceSourceError(ValueError):
    """The vendored table or the service prices file can't be read as the generator expects."""


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


def _wanted_types() -> set[str]:
    """The instance types railyard can plan: the accelerator catalog's and the system node group's."""
    from blueprints.catalog import load_catalog
    from blueprints.catalog.system_types import load_system_types

    return set(load_catalog().names()) | set(load_system_types())


def _check_services(document: Any) -> dict[str, Any]:
    """The service prices file, refused when an entry lacks its price, unit, source or date."""
    if not isinstance(document, dict) or not isinstance(document.get("services"), dict):
        raise PriceSourceError(f"{SERVICES_FILE.name}: expected a mapping with 'services'")
    for key, entry in document["services"].items():
        for prices in entry.get("prices", [entry]):
            missing = [field for field in ("usd", "unit", "source", "date") if field not in {**entry, **prices}]
            if missing:
                raise PriceSourceError(f"{SERVICES_FILE.name}: services.{key} lacks {', '.join(missing)}")
    services: dict[str, Any] = document["services"]
    return services


def generate() -> str:
    """The exact text of prices.json."""
    source = EC2_FILE.read_text(encoding="utf-8")
    generated_at, table = parse_karpenter_table(source)
    wanted = _wanted_types()
    on_demand = {region: {name: usd for name, usd in sorted(prices.items()) if name in wanted} for region, prices in sorted(table.items())}
    document = {
        "ec2_on_demand": {
            "source": {**EC2_SOURCE, "generated_at": generated_at, "sha256": hashlib.sha256(source.encode()).hexdigest()},
            "unit": "USD per instance-hour, Linux, shared tenancy",
            "prices": on_demand,
        },
        "hours_per_month": HOURS_PER_MONTH,
        "services": _check_services(load_data(SERVICES_FILE.read_text(encoding="utf-8"))),
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


class PriceTable:
    """The prices railyard knows; every lookup answers a `Price` or None (unknown: named by the caller, never zero)."""

    def __init__(self, document: dict[str, Any]) -> None:
        ec2 = document["ec2_on_demand"]
        origin = ec2["source"]
        self.ec2_source = f"{origin['repository']} @ {origin['commit'][:12]}: {origin['path']} (generated {origin['generated_at']})"
        self.ec2_date = origin["generated_at"][:10]
        self._on_demand = MappingProxyType({region: MappingProxyType(prices) for region, prices in ec2["prices"].items()})
        self._services = document["services"]
        self.hours_per_month: int = document["hours_per_month"]

    @property
    def on_demand_regions(self) -> tuple[str, ...]:
        """The regions the EC2 table covers."""
        return tuple(self._on_demand)

    def on_demand(self, region: str, instance_type: str) -> Price | None:
        """An instance type's On-Demand hourly price in `region`."""
        table = self._on_demand.get(region)
        usd = None if table is None else table.get(instance_type)
        return None if usd is None else Price(usd, "instance-hour", self.ec2_source, self.ec2_date, "generated")

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
