"""The VPC's CIDR blocks (`blueprints/rules/vpc_blocks.py`): `network.cidr-overlap`, `network.cidr-restricted`.

The ranges a secondary block may not come from, for a primary block in each row of the Amazon VPC User Guide's
table ("IPv4 CIDR block association restrictions"), and the rule over the VPC's own block, the node blocks and the pod
blocks: each overlap and each restricted range at its path, the primary never judged against itself, an existing VPC
not judged at all. Each case builds its blueprint in memory.
"""

from __future__ import annotations

from ipaddress import IPv4Network

import pytest

from blueprints.models import Blueprint
from blueprints.rules import vpc_blocks
from blueprints.rules.context import Context
from tests.topology.factory import CATALOG, document, pool

TEN, ONE_SEVEN_TWO, ONE_NINE_TWO = "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"
BENCHMARK = "198.19.0.0/16"
RESTRICTED_HINT = "use a block from 100.64.0.0/10, or from the primary block's own private range"
OVERLAP_HINT = "choose a block outside every other (100.64.0.0/16, 100.65.0.0/16, ... for pods)"


@pytest.mark.parametrize(
    ("primary", "refused"),
    [
        ("10.0.0.0/16", (ONE_SEVEN_TWO, ONE_NINE_TWO, BENCHMARK, "10.0.0.0/16")),
        ("10.1.0.0/16", (ONE_SEVEN_TWO, ONE_NINE_TWO, BENCHMARK, "10.0.0.0/16")),
        ("10.2.0.0/16", (ONE_SEVEN_TWO, ONE_NINE_TWO, BENCHMARK)),
        ("172.31.0.0/16", (TEN, ONE_NINE_TWO, BENCHMARK, "172.31.0.0/16")),
        ("192.168.0.0/16", (TEN, ONE_SEVEN_TWO, BENCHMARK)),
        ("198.19.0.0/16", (TEN, ONE_SEVEN_TWO, ONE_NINE_TWO)),
        ("100.64.0.0/16", (TEN, ONE_SEVEN_TWO, ONE_NINE_TWO, BENCHMARK)),
        ("11.0.0.0/16", (TEN, ONE_SEVEN_TWO, ONE_NINE_TWO, BENCHMARK)),
    ],
)
def test_the_ranges_each_primary_block_excludes_are_the_vpc_guides(primary: str, refused: tuple[str, ...]) -> None:
    assert vpc_blocks.refused_ranges(IPv4Network(primary)) == tuple(IPv4Network(block) for block in refused)


def _found(vpc: str, secondary: list[str] = (), pods: list[str] = (), existing: bool = False) -> list[tuple[object, ...]]:
    data = document([{"name": "za", "availability_zone": "us-east-1a"}], [pool("web", "p5.48xlarge", 2, ["za"])])
    data["cloud"] |= {"vpc_cidr": vpc, "secondary_cidrs": list(secondary)}
    if pods:
        data["kubernetes"]["pod_networking"] = {"mode": "custom_networking", "pod_cidrs": list(pods)}
    if existing:
        subnets = [
            {"id": "subnet-0123456789abcdef0", "availability_zone": "us-east-1a", "cidr": "10.0.0.0/24"},
            {"id": "subnet-0123456789abcdef1", "availability_zone": "us-east-1b", "cidr": "10.0.1.0/24"},
        ]
        data["cloud"]["existing_vpc"] = {"id": "vpc-0123456789abcdef0", "subnets": subnets}
    model = Blueprint.model_validate(data)
    return [(f.code, f.severity, f.path, f.message, f.hint) for f in vpc_blocks.check(Context(blueprint=model, catalog=CATALOG))]


def test_blocks_from_allowed_ranges_that_overlap_nothing_pass() -> None:
    assert _found("10.2.0.0/16", ["10.3.0.0/16", "100.64.0.0/16"], ["100.65.0.0/16", "100.66.0.0/16"]) == []


def test_a_node_block_overlapping_the_primary_is_refused_at_its_index() -> None:
    assert _found("10.2.0.0/16", ["100.64.0.0/16", "10.2.128.0/17"]) == [
        (
            "network.cidr-overlap",
            "error",
            ("cloud", "secondary_cidrs", 1),
            "10.2.128.0/17 overlaps 10.2.0.0/16, already a block of this VPC; AWS refuses overlapping VPC CIDR blocks",
            OVERLAP_HINT,
        )
    ]


def test_a_pod_block_overlapping_a_node_block_names_that_block_and_is_not_also_called_restricted() -> None:
    """172.16.0.0/16 would be restricted for a 10.x primary too: an overlap is said alone."""
    found = _found("10.2.0.0/16", ["100.64.0.0/16", "172.16.0.0/16"], ["100.65.0.0/16", "172.16.0.0/20"])
    assert [(code, path, message) for code, _, path, message, _ in found] == [
        (
            "network.cidr-restricted",
            ("cloud", "secondary_cidrs", 1),
            "172.16.0.0/16 is in 172.16.0.0/12, a range AWS does not let a VPC whose primary block is 10.2.0.0/16 take "
            "(Amazon VPC User Guide, IPv4 CIDR block association restrictions)",
        ),
        (
            "network.cidr-overlap",
            ("kubernetes", "pod_networking", "pod_cidrs", 1),
            "172.16.0.0/20 overlaps 172.16.0.0/16, already a block of this VPC; AWS refuses overlapping VPC CIDR blocks",
        ),
    ]
    assert found[0][4] == RESTRICTED_HINT


def test_a_pod_block_from_a_restricted_range_is_refused_at_its_index() -> None:
    assert _found("10.2.0.0/16", [], ["100.64.0.0/16", "192.168.0.0/16"]) == [
        (
            "network.cidr-restricted",
            "error",
            ("kubernetes", "pod_networking", "pod_cidrs", 1),
            "192.168.0.0/16 is in 192.168.0.0/16, a range AWS does not let a VPC whose primary block is 10.2.0.0/16 take "
            "(Amazon VPC User Guide, IPv4 CIDR block association restrictions)",
            RESTRICTED_HINT,
        )
    ]


def test_the_primary_block_is_never_judged_against_the_ranges_it_excludes() -> None:
    """A 198.19.0.0/16 primary excludes every RFC 1918 range, 198.19.0.0/16 not among them; a 10.0.0.0/16 primary
    excludes its own range's 10.0.0.0/16, which it is."""
    assert _found("198.19.0.0/16") == [] and _found("10.0.0.0/16") == []


def test_every_block_after_an_overlap_is_still_judged() -> None:
    found = _found("10.2.0.0/16", ["10.2.0.0/17", "192.168.0.0/16"])
    assert [(code, path) for code, _, path, _, _ in found] == [
        ("network.cidr-overlap", ("cloud", "secondary_cidrs", 0)),
        ("network.cidr-restricted", ("cloud", "secondary_cidrs", 1)),
    ]


def test_an_existing_vpcs_blocks_are_the_teams_and_not_judged() -> None:
    assert _found("10.0.0.0/16", ["10.0.0.0/17"], existing=True) == []
