"""The regions rule (`blueprints/rules/regions.py`): the region and every zone the blueprint writes against botocore's
partitions and zones, one form of zone throughout, and node policies in the region's partition. Exact code, path,
message and hint; each half of each condition (names and ids, a zone of this region and of another)."""

from __future__ import annotations

from blueprints.catalog.local_zones import load_local_zones
from blueprints.models import Blueprint
from blueprints.rules import regions
from blueprints.rules.context import Context
from tests.blueprints.base import BASE, load, mutate
from tests.topology.factory import CATALOG, document, pool

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


# The rule called directly on blueprints built in memory (tests/topology/factory.py).
# In the zone table's order (blueprints/catalog/local_zones.yaml), as the message lists them.
KNOWN_LOCAL = "us-east-1-qro-1a, us-east-1-atl-2a, us-east-1-atl-1a, us-east-1-bos-1a, us-east-1-chi-2a, us-east-1-dfw-2a"
LOCAL_HINT = (
    "use one of them, or add the zone's row (name, id, group, parent region and zone) from AWS's Available Local Zones page "
    "to blueprints/catalog/local_zones.yaml"
)


def _rule(region: str, zones: list[str], domains: list[str], **cloud: object) -> list[tuple[str, tuple[object, ...], str, str]]:
    data = document([{"name": f"d{n}", "availability_zone": zone} for n, zone in enumerate(domains)], [pool("p", "p5.48xlarge", 2, ["d0"])])
    data["cloud"] |= {"region": region, "availability_zones": zones, **cloud}
    model = Blueprint.model_validate(data)
    return [(f.code, f.path, f.message, f.hint) for f in regions.check(Context(blueprint=model, catalog=CATALOG))]


def test_the_local_zones_railyard_knows_are_all_of_us_east_1() -> None:
    assert [zone.name for zone in load_local_zones().zones] == KNOWN_LOCAL.split(", ")
    assert {zone.parent_region for zone in load_local_zones().zones} == {"us-east-1"}


def test_a_local_zone_of_the_region_by_name_or_by_id_passes_and_one_railyard_does_not_know_is_refused() -> None:
    found = _rule("us-east-1", ["us-east-1a", "us-east-1b"], ["us-east-1a", "us-east-1-bos-1a", "use1-dfw2-az1", "us-east-1-xyz-1a"])
    assert found == [
        (
            "cloud.unknown-local-zone",
            ("failure_domains", "zones", 3, "availability_zone"),
            f"'us-east-1-xyz-1a' is not a Local Zone railyard knows; the Local Zones of us-east-1 railyard knows are {KNOWN_LOCAL}",
            LOCAL_HINT,
        )
    ]


def test_a_local_zone_of_another_region_is_named_with_its_parent_and_a_region_with_none_known_says_none() -> None:
    assert _rule("us-east-2", ["us-east-2a", "us-east-2b"], ["us-east-2a", "us-east-1-bos-1a"]) == [
        (
            "cloud.unknown-local-zone",
            ("failure_domains", "zones", 1, "availability_zone"),
            "'us-east-1-bos-1a' is a Local Zone of us-east-1, not of us-east-2; the Local Zones of us-east-2 railyard knows are none",
            LOCAL_HINT,
        )
    ]


def test_the_first_zone_of_the_clouds_list_sets_the_form_the_others_must_follow() -> None:
    [(code, path, message, _)] = _rule("us-east-1", ["us-east-1a", "use1-az1"], ["us-east-1a"])
    assert (code, path) == ("cloud.zone-forms-mixed", ("cloud", "availability_zones", 1))
    assert message.startswith("'use1-az1' is a zone id, but cloud.availability_zones uses zone names;")


def test_an_existing_subnets_zone_and_an_existing_file_systems_zone_are_checked_at_their_paths() -> None:
    subnets = [
        {"id": "subnet-0a1b2c3d4e5f60001", "availability_zone": "us-east-1a", "cidr": "10.0.0.0/19"},
        {"id": "subnet-0a1b2c3d4e5f60002", "availability_zone": "us-east-1g", "cidr": "10.0.32.0/19"},
    ]
    found = _rule("us-east-1", ["us-east-1a", "us-east-1b"], ["us-east-1a"], existing_vpc={"id": "vpc-0a1b2c3d4e5f67890", "subnets": subnets})
    assert [(code, path) for code, path, _, _ in found] == [("cloud.unknown-zone", ("cloud", "existing_vpc", "subnets", 1, "availability_zone"))]
    assert found[0][2] == f"availability zone 'us-east-1g' does not exist in us-east-1, whose zones are {ZONES}"


def test_an_existing_file_systems_zone_is_checked_at_its_path() -> None:
    existing = {
        "id": "fs-0a1b2c3d4e5f60718",
        "dns_name": "fs-0a1b2c3d4e5f60718.fsx.us-east-1.amazonaws.com",
        "mount_name": "abcdefgh",
        "security_group_id": "sg-0a1b2c3d4e5f60719",
        "availability_zone": "us-east-1g",
    }
    tier = {"kind": "fsx_lustre", "name": "team", "deployment_type": "PERSISTENT_2", "capacity_gib": 1200, "throughput_mbps_per_tib": 125}
    data = document(
        [{"name": "d0", "availability_zone": "us-east-1a"}],
        [pool("p", "p5.48xlarge", 2, ["d0"])],
        storage=[{"kind": "s3", "name": "data"}, tier | {"existing": existing}],
    )
    found = list(regions.check(Context(blueprint=Blueprint.model_validate(data), catalog=CATALOG)))
    assert [(f.code, f.path) for f in found] == [("cloud.unknown-zone", ("storage", 1, "existing", "availability_zone"))]
