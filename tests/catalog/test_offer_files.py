"""AWS Price List offer files: the Linux On-Demand rate of each type per region, with the file's version and date.

`fixtures/ec2_offer_file.json` is in the offer file's documented format (products, terms.OnDemand, priceDimensions)
with made-up SKUs and rates. In us-west-2 it prices, besides the two products railyard reads:

    p5.48xlarge  Linux Shared NA Used OnDemand   12.34   <- read
    p5.48xlarge  RHEL                            12.91   (another operating system)
    p5.48xlarge  Linux Dedicated                 13.57   (another tenancy)
    p5.48xlarge  marketoption CapacityBlock       9.99   (not On-Demand)
    m7i.xlarge   Linux Shared NA Used             0.1234 <- read
    m7i.xlarge   UnusedCapacityReservation        0.1234 (a reservation's unused hours)
    g6e.xlarge   preInstalledSw SQL Std           2.50   (software on top)
    t3.micro     Linux Shared NA Used             0.01   (read only when every type is wanted)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from blueprints.catalog.ec2_sources import PriceSourceError, on_demand_table
from blueprints.catalog.offer_files import OfferFileError, main, read_offer_file, trim
from blueprints.catalog.prices import PriceTable

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "ec2_offer_file.json"
WANTED = {"p5.48xlarge", "m7i.xlarge", "g6e.xlarge"}


def test_an_offer_file_gives_each_types_linux_shared_on_demand_rate_per_region_with_its_version_and_date():
    offer = read_offer_file(FIXTURE)
    assert offer.prices == {"us-west-2": {"m7i.xlarge": 0.1234, "p5.48xlarge": 12.34, "t3.micro": 0.01}}
    assert (offer.offer_code, offer.version, offer.publication_date) == ("AmazonEC2", "20261101000000", "2026-11-01T00:00:00Z")
    assert read_offer_file(FIXTURE, WANTED).prices == {"us-west-2": {"m7i.xlarge": 0.1234, "p5.48xlarge": 12.34}}


def test_a_trimmed_copy_keeps_the_metadata_and_reads_the_same_rates(tmp_path):
    trimmed = trim(json.loads(FIXTURE.read_text()), WANTED)
    assert sorted(trimmed["products"]) == ["AAAAP5LINUXSHARED", "DDDDM7ILINUXUSED0"]
    assert list(trimmed["terms"]) == ["OnDemand"] and sorted(trimmed["terms"]["OnDemand"]) == sorted(trimmed["products"])
    assert {key: trimmed[key] for key in ("offerCode", "version", "publicationDate")} == {
        "offerCode": "AmazonEC2",
        "version": "20261101000000",
        "publicationDate": "2026-11-01T00:00:00Z",
    }
    copy = tmp_path / "us-west-2.json"
    copy.write_text(json.dumps(trimmed))
    assert read_offer_file(copy).prices == read_offer_file(FIXTURE, WANTED).prices


def test_a_file_of_another_shape_or_service_is_refused_with_what_it_lacks(tmp_path):
    document = json.loads(FIXTURE.read_text())
    del document["terms"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(document))
    with pytest.raises(OfferFileError) as lacking:
        read_offer_file(broken)
    assert str(lacking.value).startswith("broken.json: not an AWS Price List offer file: it lacks terms (docs.aws.amazon.com/")
    document = json.loads(FIXTURE.read_text()) | {"offerCode": "AmazonS3"}
    broken.write_text(json.dumps(document))
    with pytest.raises(OfferFileError, match=r"offerCode is 'AmazonS3'; railyard reads EC2's \(AmazonEC2\)"):
        read_offer_file(broken)


def test_one_type_priced_twice_at_different_rates_in_a_region_is_refused(tmp_path):
    document = json.loads(FIXTURE.read_text())
    twin = json.loads(json.dumps(document["products"]["AAAAP5LINUXSHARED"])) | {"sku": "ZZZZP5TWIN0000000"}
    document["products"]["ZZZZP5TWIN0000000"] = twin
    document["terms"]["OnDemand"]["ZZZZP5TWIN0000000"] = json.loads(
        json.dumps(document["terms"]["OnDemand"]["AAAAP5LINUXSHARED"]).replace("12.3400000000", "12.3500000000")
    )
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps(document))
    with pytest.raises(OfferFileError, match=r"twice.json: p5.48xlarge in us-west-2 is priced both 12.34 and 12.35 USD per hour"):
        read_offer_file(twice)


def test_an_offer_file_kept_for_a_region_gives_its_rows_their_provenance_and_replaces_karpenters(tmp_path):
    trimmed = trim(json.loads(FIXTURE.read_text()), WANTED)
    (tmp_path / "us-west-2.json").write_text(json.dumps(trimmed))
    # A us-east-1 copy held to Karpenter's rates (p5.48xlarge 55.04, m7i.xlarge 0.2016), so the generator accepts it.
    east = json.loads(json.dumps(trimmed).replace('"us-west-2"', '"us-east-1"').replace('"12.3400000000"', '"55.0400000000"'))
    east = json.loads(json.dumps(east).replace('"0.1234000000"', '"0.2016000000"'))
    (tmp_path / "us-east-1.json").write_text(json.dumps(east))
    # The fixture's made-up us-west-2 rate (12.34) is no reading of AWS's: this test holds it to none (readings=()).
    table = on_demand_table(WANTED | {"g6.48xlarge"}, tmp_path, readings=())
    assert table["region_source"] == {
        "us-east-1": "aws-offer:us-east-1.json",
        "us-gov-east-1": "karpenter:karpenter_pricing_aws_us_gov.go",
        "us-gov-west-1": "karpenter:karpenter_pricing_aws_us_gov.go",
        "us-west-2": "aws-offer:us-west-2.json",
    }
    # us-east-1's rows are the offer file's alone (Karpenter's g6.48xlarge row is not merged in), and agree with Karpenter's.
    assert table["prices"]["us-east-1"] == {"m7i.xlarge": 0.2016, "p5.48xlarge": 55.04}
    assert table["prices"]["us-west-2"] == {"m7i.xlarge": 0.1234, "p5.48xlarge": 12.34}
    provenance = table["sources"]["aws-offer:us-west-2.json"]
    assert {key: provenance[key] for key in ("file", "version", "publication_date")} == {
        "file": "sources/aws_offers/us-west-2.json",
        "version": "20261101000000",
        "publication_date": "2026-11-01T00:00:00Z",
    }
    prices = PriceTable({"ec2_on_demand": table, "services": {}, "hours_per_month": 730})
    price = prices.on_demand("us-west-2", "p5.48xlarge")
    assert price is not None and (price.usd, price.date) == (12.34, "2026-11-01")
    assert price.source == (
        "AWS Price List offer file AmazonEC2 version 20261101000000 (sources/aws_offers/us-west-2.json, published 2026-11-01T00:00:00Z)"
    )
    gov = prices.on_demand("us-gov-west-1", "g6.48xlarge")
    assert gov is not None and gov.usd == 16.82734 and "zz_generated.pricing_aws_us_gov.go" in gov.source


def test_the_trim_command_writes_the_copy_and_refuses_a_file_that_is_not_one(tmp_path, capsys):
    out = tmp_path / "us-west-2.json"
    assert main(["trim", str(FIXTURE), str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}: 2 products\n"
    assert read_offer_file(out).prices == {"us-west-2": {"m7i.xlarge": 0.1234, "p5.48xlarge": 12.34}}
    not_one = tmp_path / "prices.json"
    not_one.write_text('{"hello": 1}')
    assert main(["trim", str(not_one), str(out)]) == 2
    assert "the offer file: not an AWS Price List offer file: it lacks formatVersion, disclaimer" in capsys.readouterr().err


def test_a_us_east_1_source_that_disagrees_with_karpenters_rows_fails_the_generator_naming_each_rate(tmp_path):
    trimmed = trim(json.loads(FIXTURE.read_text()), WANTED)
    (tmp_path / "us-east-1.json").write_text(json.dumps(trimmed).replace('"us-west-2"', '"us-east-1"'))
    message = (
        "aws-offer:us-east-1.json disagrees with karpenter:karpenter_pricing_aws.go in us-east-1: "
        "m7i.xlarge 0.2016 vs 0.1234; p5.48xlarge 55.04 vs 12.34"
    )
    with pytest.raises(PriceSourceError, match=re.escape(message)):
        on_demand_table(WANTED, tmp_path)
