"""`validate` refuses a pool of a type its region or zone doesn't sell, from EC2 DescribeInstanceTypeOfferings as moto records it.

inference-fleet runs 720 g6e.12xlarge in us-west-2a and us-west-2b. moto 5.2.5 records g6e.12xlarge in twelve regions
(not eu-west-1), in us-east-1's zones use1-az1, az2, az4 and az6 (not az3), and by name in us-east-1a to 1d (not 1e).
"""

from __future__ import annotations

from pathlib import Path

from blueprints.catalog.offerings import load_offerings
from railyard.pipeline import validate
from tests.yaml_text import edited_copy

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
FLEET = EXAMPLES / "inference-fleet.yaml"
SOLD = (
    "ap-northeast-1, ap-northeast-2, ap-northeast-3, ap-south-1, ap-south-2, eu-central-1, eu-north-1, eu-south-2, me-central-1, "
    "us-east-1, us-east-2, us-west-2"
)
MOTO = "EC2 DescribeInstanceTypeOfferings as moto 5.2.5 records it"


def _moved(tmp_path: Path, region: str, first: str, second: str):
    edits = [
        ("  region: us-west-2\n", f"  region: {region}\n"),
        ("[us-west-2a, us-west-2b]", f"[{first}, {second}]"),
        ("      availability_zone: us-west-2a\n", f"      availability_zone: {first}\n"),
        ("      availability_zone: us-west-2b\n", f"      availability_zone: {second}\n"),
    ]
    tmp_path.mkdir(parents=True, exist_ok=True)
    return validate(str(edited_copy(FLEET, tmp_path, *edits)))


def _coded(result, code: str) -> list:
    return [finding for finding in result.findings if finding.code == code]


def test_a_type_the_region_does_not_sell_is_an_error_naming_every_region_that_does(tmp_path):
    result = _moved(tmp_path, "eu-west-1", "eu-west-1a", "eu-west-1b")
    (found,) = _coded(result, "pool.type-not-in-region")
    assert (found.severity, found.path, found.certificate) == ("error", ("pools", 0, "instance_type"), {"regions": SOLD})
    assert found.message == f"AWS doesn't offer g6e.12xlarge in eu-west-1 ({MOTO}); it sells it in {SOLD}"
    assert found.hint == f"move the design to one of {SOLD}, or choose an instance type eu-west-1 sells"
    assert load_offerings().offered("g6e.12xlarge", "eu-west-1") is False
    assert not result.ok


def test_a_zone_id_that_does_not_offer_the_type_is_an_error_and_one_that_does_passes(tmp_path):
    result = _moved(tmp_path / "az3", "us-east-1", "use1-az3", "use1-az1")
    (found,) = _coded(result, "pool.type-not-in-zone")
    assert (found.severity, found.path, found.certificate) == ("error", ("pools", 0, "placement"), {"zone": "use1-az3"})
    assert (
        found.message
        == f"AWS doesn't offer g6e.12xlarge in zone use1-az3 ({MOTO}); in us-east-1 it sells it in use1-az1, use1-az2, use1-az4, use1-az6"
    )
    assert _coded(_moved(tmp_path / "az4", "us-east-1", "use1-az4", "use1-az1"), "pool.type-not-in-zone") == []


def test_a_zone_name_that_does_not_offer_the_type_is_a_warning_since_names_differ_per_account(tmp_path):
    result = _moved(tmp_path, "us-east-1", "us-east-1e", "us-east-1a")
    (found,) = _coded(result, "pool.type-not-in-zone")
    assert (found.severity, found.certificate) == ("warning", {"zone": "us-east-1e"})
    assert found.message == (
        f"g6e.12xlarge is not offered in us-east-1e as the account moto recorded names its zones ({MOTO}: us-east-1a, us-east-1b, "
        "us-east-1c, us-east-1d); each account maps zone names its own way, so in yours it may be"
    )
    assert _coded(validate(str(FLEET)), "pool.type-not-in-zone") == []


def test_a_block_of_a_type_neither_the_offerings_nor_the_block_table_place_in_the_region_is_warned_not_refused():
    result = validate(str(EXAMPLES / "trn2-ultraserver.yaml"))
    (found,) = _coded(result, "pool.type-not-in-region")
    assert (found.severity, found.path) == ("warning", ("pools", 0, "instance_type"))
    assert found.message.startswith(f"trn2u.48xlarge is not offered in us-east-2 by {MOTO} (it lists ap-south-2), and railyard's Capacity Block")
    assert found.hint.startswith("check it: `aws ec2 describe-capacity-block-offerings --region us-east-2 --instance-type trn2u.48xlarge")
    assert result.ok


def test_a_type_the_data_does_not_cover_says_so_rather_than_passing_silently():
    result = validate(str(EXAMPLES / "p6e-gb200-nvl72.yaml"))
    (found,) = _coded(result, "pool.offerings-unknown")
    assert (found.severity, found.path) == ("info", ("pools", 0, "instance_type"))
    assert found.message == (
        f"whether AWS sells p6e-gb200.36xlarge in us-east-1 is unchecked: railyard's offerings data ({MOTO}) doesn't cover p6e-gb200.36xlarge"
    )


def test_a_system_node_type_the_region_does_not_sell_is_an_error_naming_where_it_is_sold(tmp_path):
    result = _moved(tmp_path, "me-south-1", "me-south-1a", "me-south-1b")
    (found,) = _coded(result, "k8s.system-type-not-in-region")
    sold = ", ".join(load_offerings().regions_of("m7i.xlarge"))
    assert (found.severity, found.path) == ("error", ("kubernetes", "system_nodes", "instance_type"))
    assert found.message == f"AWS doesn't offer m7i.xlarge in me-south-1 ({MOTO}); it sells it in {sold}"
    assert "me-south-1" not in sold.split(", ") and load_offerings().offered("m7i.xlarge", "us-west-2") is True
