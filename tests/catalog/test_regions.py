"""Regions and zones come from botocore's endpoint data and moto's zone records; the blueprint's are checked against them."""

from __future__ import annotations

from pathlib import Path

from blueprints.catalog import regions
from blueprints.loader import load_text

ROOT = Path(__file__).resolve().parents[2]
DEV = (ROOT / "blueprints" / "examples" / "dev-g6e.yaml").read_text()


def codes(text: str) -> list[tuple[str, tuple]]:
    return [(finding.code, finding.path) for finding in load_text(text, "dev.yaml").findings if finding.is_error]


def test_the_committed_file_is_what_botocore_and_moto_say():
    assert regions.main(["--check"]) == 0


def test_the_regions_railyard_knows_include_every_partition():
    known = regions.load_regions()
    assert {"us-east-1", "cn-north-1", "us-gov-west-1", "eu-central-1"} <= set(known.names())
    assert known.zones["us-east-2"] == ("us-east-2a", "us-east-2b", "us-east-2c")


def test_a_region_aws_does_not_have_is_a_finding_with_a_suggestion():
    text = DEV.replace("us-west-2", "us-west-5")
    assert codes(text) == [("cloud.unknown-region", ("cloud", "region"))]
    (finding,) = [finding for finding in load_text(text, "dev.yaml").findings if finding.is_error]
    assert "did you mean" in finding.message and "us-west-1" in finding.message


def test_a_zone_letter_the_region_does_not_have_is_a_finding_where_it_is_written():
    text = DEV.replace("availability_zones: [us-west-2a, us-west-2b]", "availability_zones: [us-west-2a, us-west-2e]")
    assert codes(text) == [("cloud.unknown-zone", ("cloud", "availability_zones", 1))]
    text = DEV.replace("      availability_zone: us-west-2a\n", "      availability_zone: us-west-2e\n")
    assert ("cloud.unknown-zone", ("failure_domains", "zones", 0, "availability_zone")) in codes(text)


def test_the_examples_use_real_regions_and_zones():
    for path in sorted((ROOT / "blueprints" / "examples").glob("*.yaml")):
        found = [code for code, _ in codes(path.read_text()) if code.startswith("cloud.unknown")]
        assert found == [], path.name
