"""The regions rule (`blueprints/rules/regions.py`): the region and every zone the blueprint writes against botocore's
partitions and zones, one form of zone throughout, and node policies in the region's partition. Exact code, path,
message and hint; each half of each condition (names and ids, a zone of this region and of another)."""

from __future__ import annotations

from tests.blueprints.base import BASE, load, mutate

ZONES = "us-east-1a, us-east-1b, us-east-1c, us-east-1d, us-east-1e, us-east-1f"
IDS = "use1-az1, use1-az2, use1-az3, use1-az4, use1-az5, use1-az6"


def _found(text: str, code: str) -> list[tuple[tuple[object, ...], str, str]]:
    return [(finding.path, finding.message, finding.hint) for finding in load(text).findings if finding.code == code]


def _codes(text: str) -> list[str]:
    return [finding.code for finding in load(text).findings if finding.code.startswith("cloud.")]


def test_the_base_blueprint_has_no_region_findings() -> None:
    assert _codes(BASE) == []


def test_an_unknown_region_names_the_closest_and_stops() -> None:
    assert _found(BASE.replace("us-east-1", "us-east-9"), "cloud.unknown-region") == [
        (
            ("cloud", "region"),
            "region 'us-east-9' is not one AWS has (botocore's endpoint data); did you mean us-east-2, us-east-1, us-west-2?",
            "use a region from `aws ec2 describe-regions`, such as us-east-1",
        )
    ]


def test_an_unknown_region_like_none_names_none() -> None:
    [(_, message, _)] = _found(BASE.replace("us-east-1", "qq-nowhere-7"), "cloud.unknown-region")
    assert message == "region 'qq-nowhere-7' is not one AWS has (botocore's endpoint data)"


def test_a_zone_name_the_region_lacks_is_refused_wherever_written() -> None:
    text = BASE.replace("us-east-1b", "us-east-1z")
    assert _found(text, "cloud.unknown-zone") == [
        (
            ("cloud", "availability_zones", 1),
            f"availability zone 'us-east-1z' does not exist in us-east-1, whose zones are {ZONES}",
            f"use one of {ZONES}",
        ),
        (
            ("failure_domains", "zones", 1, "availability_zone"),
            f"availability zone 'us-east-1z' does not exist in us-east-1, whose zones are {ZONES}",
            f"use one of {ZONES}",
        ),
    ]


def test_a_reservations_zone_is_checked_too() -> None:
    text = mutate("      zone: us-east-1a\n", "      zone: us-east-1z\n")
    assert [path for path, _, _ in _found(text, "cloud.unknown-zone")] == [("pools", 0, "capacity", "zone")]


def test_a_zone_of_another_region_is_left_to_the_domain_rules() -> None:
    text = mutate("      availability_zone: us-east-1b\n", "      availability_zone: us-west-2b\n")
    assert _found(text, "cloud.unknown-zone") == []


def _by_id(text: str) -> str:
    text = text.replace("[us-east-1a, us-east-1b]", "[use1-az1, use1-az2]")
    text = text.replace("availability_zone: us-east-1a", "availability_zone: use1-az1").replace(
        "availability_zone: us-east-1b", "availability_zone: use1-az2"
    )
    return text.replace("      zone: us-east-1a\n", "      zone: use1-az1\n")


def test_zone_ids_throughout_pass() -> None:
    assert _codes(_by_id(BASE)) == []


def test_a_zone_id_the_region_lacks_is_refused() -> None:
    text = _by_id(BASE).replace("use1-az2", "use1-az9")
    [first, _] = _found(text, "cloud.unknown-zone")
    assert first == (
        ("cloud", "availability_zones", 1),
        f"availability zone id 'use1-az9' does not exist in us-east-1, whose zone ids are {IDS}",
        f"use one of {IDS}",
    )


def test_a_name_among_ids_is_refused_once_and_named() -> None:
    text = _by_id(BASE).replace("      zone: use1-az1\n", "      zone: us-east-1a\n")
    assert _found(text, "cloud.zone-forms-mixed") == [
        (
            ("pools", 0, "capacity", "zone"),
            "'us-east-1a' is a zone name, but cloud.availability_zones uses zone ids; which id a name stands for differs in each "
            "account, so railyard can't compare them",
            "write every zone as an id (use1-az4): `aws ec2 describe-availability-zones` lists both for your account",
        )
    ]
    assert _found(text, "cloud.unknown-zone") == []


def test_an_id_among_names_is_refused() -> None:
    text = mutate("      zone: us-east-1a\n", "      zone: use1-az1\n")
    [(path, message, hint)] = _found(text, "cloud.zone-forms-mixed")
    assert path == ("pools", 0, "capacity", "zone")
    assert message.startswith("'use1-az1' is a zone id, but cloud.availability_zones uses zone names;")
    assert hint.startswith("write every zone as a name (us-east-1a):")


def test_a_node_policy_of_another_partition_is_refused() -> None:
    policies = "  node_iam_policies:\n    - arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore\n    - arn:aws-cn:iam::aws:policy/X\n"
    text = mutate("  layer_stack: separate\n", "  layer_stack: separate\n" + policies)
    assert _found(text, "cloud.policy-partition") == [
        (
            ("kubernetes", "node_iam_policies", 1),
            "policy arn:aws-cn:iam::aws:policy/X is in partition 'aws-cn', but region us-east-1 is in 'aws'",
            "use arn:aws:iam::... for the same policy",
        )
    ]
