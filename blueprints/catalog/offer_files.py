"""AWS Price List offer files: EC2 On-Demand rates read from the file AWS publishes, with its version and date.

The Price List Bulk API publishes one JSON "service price list file" (an offer file) per service and
region, in the format AWS documents in "Reading the service price list file for an AWS service"
(docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/reading-service-price-list-file-for-services.html):
top-level `formatVersion`, `disclaimer`, `offerCode`, `version` and `publicationDate`; `products`, each SKU
with its `productFamily` and `attributes`; and `terms.OnDemand[sku][offerTermCode].priceDimensions[rateCode]`
with `unit` and `pricePerUnit.USD`. How to find and download the files: "Getting price list files using
the AWS Price List Bulk API" (docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/using-the-aws-price-list-bulk-api.html).

A rate is read for a product AWS sells as Karpenter reads the same list (its `pkg/providers/pricing/pricing.go`
filters): productFamily `Compute Instance`, tenancy `Shared`, operatingSystem `Linux`, preInstalledSw `NA`,
capacitystatus `Used`, and marketoption `OnDemand` where the file states it; the term's dimension in `Hrs`.

An EC2 region's file is hundreds of megabytes, so what railyard keeps is a copy trimmed to the products it can
plan, in the same format, with the metadata untouched (`trim`); the generator reads the copy as it would the
whole file. Whoever has network access refreshes it (docs/cost.md, "Refreshing the tables"):

    python -m blueprints.catalog.offer_files trim DOWNLOADED.json blueprints/catalog/sources/aws_offers/<region>.json

The standard library's json reads the files; a price-list client (boto3's `pricing`) was weighed and lost: it
needs credentials and the network, and the offer file is the form AWS publishes with a version and a date.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from blueprints.records import record

FORMAT_DOC = "docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/reading-service-price-list-file-for-services.html"
METADATA = ("formatVersion", "disclaimer", "offerCode", "version", "publicationDate")
WANTED_ATTRIBUTES = {"tenancy": "Shared", "operatingSystem": "Linux", "preInstalledSw": "NA", "capacitystatus": "Used"}


class OfferFileError(ValueError):
    """An offer file that isn't in the format AWS documents, or that prices one type twice."""


@record
class OfferPrices:
    """One offer file's Linux On-Demand rates per region, with the file's name, version, publication date and digest."""

    file: str
    offer_code: str
    version: str
    publication_date: str
    sha256: str
    prices: dict[str, dict[str, float]]

    def provenance(self) -> dict[str, str]:
        """Where the rows came from, for prices.json."""
        return {
            "kind": "AWS Price List offer file",
            "file": self.file,
            "offer_code": self.offer_code,
            "version": self.version,
            "publication_date": self.publication_date,
            "sha256": self.sha256,
            "format": FORMAT_DOC,
        }


def _require(document: Any, name: str) -> None:
    if not isinstance(document, dict):
        raise OfferFileError(f"{name}: expected a JSON object (an AWS Price List offer file, {FORMAT_DOC})")
    missing = [key for key in (*METADATA, "products", "terms") if key not in document]
    if missing:
        raise OfferFileError(f"{name}: not an AWS Price List offer file: it lacks {', '.join(missing)} ({FORMAT_DOC})")
    if document["offerCode"] != "AmazonEC2":
        raise OfferFileError(f"{name}: offerCode is {document['offerCode']!r}; railyard reads EC2's (AmazonEC2)")


def _is_linux_on_demand(product: dict[str, Any]) -> bool:
    attributes = product.get("attributes", {})
    if product.get("productFamily") != "Compute Instance" or attributes.get("marketoption", "OnDemand") != "OnDemand":
        return False
    return all(attributes.get(key) == value for key, value in WANTED_ATTRIBUTES.items())


def _hourly(terms: dict[str, Any], sku: str, name: str) -> float | None:
    """The SKU's On-Demand USD per hour: its one dimension in `Hrs` (None when it has no On-Demand term)."""
    rates = [
        dimension["pricePerUnit"]["USD"]
        for term in terms.get(sku, {}).values()
        for dimension in term.get("priceDimensions", {}).values()
        if dimension.get("unit") == "Hrs" and "USD" in dimension.get("pricePerUnit", {})
    ]
    if len(set(rates)) > 1:
        raise OfferFileError(f"{name}: SKU {sku} has {len(set(rates))} different hourly On-Demand rates: {sorted(set(rates))}")
    return float(rates[0]) if rates else None


def _linux_skus(document: dict[str, Any]) -> Iterable[tuple[str, str, str]]:
    """(SKU, region code, instance type) of each Linux On-Demand product."""
    for sku, product in sorted(document["products"].items()):
        if _is_linux_on_demand(product):
            attributes = product["attributes"]
            if "regionCode" not in attributes or "instanceType" not in attributes:
                raise OfferFileError(f"product {sku} states no regionCode or instanceType: not an EC2 offer file as AWS documents it ({FORMAT_DOC})")
            yield sku, attributes["regionCode"], attributes["instanceType"]


def read_offer_file(path: Path, wanted: set[str] | None = None, label: str | None = None) -> OfferPrices:
    """The Linux On-Demand rates of an EC2 offer file (only `wanted` types, when given), per region; refuses another
    format, and a type priced twice at different rates in one region (which the filters above should never let by)."""
    text = path.read_text(encoding="utf-8")
    name = label or path.name
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OfferFileError(f"{name}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    _require(document, name)
    on_demand = document["terms"].get("OnDemand", {})
    prices: dict[str, dict[str, float]] = {}
    for sku, region, instance_type in _linux_skus(document):
        usd = _hourly(on_demand, sku, name)
        if usd is None or (wanted is not None and instance_type not in wanted):
            continue
        seen = prices.setdefault(region, {}).get(instance_type)
        if seen is not None and seen != usd:
            raise OfferFileError(f"{name}: {instance_type} in {region} is priced both {seen} and {usd} USD per hour")
        prices[region][instance_type] = usd
    ordered = {region: dict(sorted(rates.items())) for region, rates in sorted(prices.items())}
    digest = hashlib.sha256(text.encode()).hexdigest()
    return OfferPrices(name, document["offerCode"], document["version"], document["publicationDate"], digest, ordered)


def trim(document: dict[str, Any], wanted: set[str]) -> dict[str, Any]:
    """The offer file cut to the Linux On-Demand products of `wanted` types and their On-Demand terms, metadata kept."""
    _require(document, "the offer file")
    keep = {sku for sku, _, instance_type in _linux_skus(document) if instance_type in wanted}
    on_demand = document["terms"].get("OnDemand", {})
    return {
        **{key: document[key] for key in METADATA},
        "products": {sku: document["products"][sku] for sku in sorted(keep)},
        "terms": {"OnDemand": {sku: on_demand[sku] for sku in sorted(keep) if sku in on_demand}},
    }


def main(argv: list[str] | None = None) -> int:
    """`trim IN OUT`: write IN (a downloaded EC2 offer file) cut to the types railyard plans, for sources/aws_offers/."""
    from blueprints.catalog.planned_types import wanted_types

    parser = argparse.ArgumentParser(prog="python -m blueprints.catalog.offer_files", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    cut = commands.add_parser("trim", help="cut a downloaded EC2 offer file to the instance types railyard plans")
    cut.add_argument("source", type=Path, help="the offer file as downloaded (AmazonEC2, one region)")
    cut.add_argument("output", type=Path, help="where to write the trimmed copy (blueprints/catalog/sources/aws_offers/<region>.json)")
    args = parser.parse_args(argv)
    try:
        trimmed = trim(json.loads(args.source.read_text(encoding="utf-8")), wanted_types())
    except (OfferFileError, json.JSONDecodeError, OSError) as exc:
        print(f"offer_files: {exc}", file=sys.stderr)
        return 2
    args.output.write_text(json.dumps(trimmed, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.output}: {len(trimmed['products'])} products")
    return 0


if __name__ == "__main__":
    sys.exit(main())
