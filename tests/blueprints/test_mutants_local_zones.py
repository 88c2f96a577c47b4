"""A pool in a Local Zone uses only what the zone offers (`blueprints/rules/local_zones.py`).

`storage.local-zone-fsx` (each FSx for Lustre mount of a pool placed in a Local Zone, at the mount's index),
`pool.local-zone-volume-unknown` (a zone whose volume types the table hasn't read: every shipped zone today) and
`pool.local-zone-volume-type` (a zone whose recorded types leave out gp3; the shipped table records none, so those
cases give the rule a copy of the table with types recorded). Each case builds its blueprint in memory.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from blueprints.catalog.local_zones import load_local_zones
from blueprints.rules import local_zones
from blueprints.rules.context import Context
from tests.topology.factory import CATALOG, blueprint, pool

ZONES = [
    {"name": "za", "availability_zone": "us-east-1a"},
    {"name": "bos", "availability_zone": "us-east-1-bos-1a"},
    {"name": "atl", "availability_zone": "us-east-1-atl-1a"},
    {"name": "nowhere", "availability_zone": "us-east-1-xyz-1a"},
]
STORAGE = [
    {"kind": "s3", "name": "data"},
    {"kind": "fsx_lustre", "name": "lustre", "deployment_type": "PERSISTENT_2", "capacity_gib": 2400, "throughput_mbps_per_tib": 250},
    {"kind": "fsx_lustre_class", "name": "claims", "deployment_type": "PERSISTENT_2", "throughput_mbps_per_tib": 250},
]
FEATURES = "https://aws.amazon.com/about-aws/global-infrastructure/localzones/features/"


def _found(*pools: dict) -> list[tuple[object, ...]]:
    model = blueprint(ZONES, [pool("web", "p5.48xlarge", 2, ["za"], storage=[{"tier": "lustre"}]), *pools], storage=STORAGE)
    return [(f.code, f.severity, f.path, f.message, f.hint, f.certificate) for f in local_zones.check(Context(blueprint=model, catalog=CATALOG))]


def test_every_shipped_zone_leaves_its_volume_types_unread() -> None:
    assert {zone.ebs_volume_types for zone in load_local_zones().zones} == {None}


def test_a_pool_in_availability_zones_only_says_nothing() -> None:
    assert _found(pool("az", "p5.48xlarge", 2, ["za"], storage=[{"tier": "lustre"}, {"tier": "claims"}])) == []


def test_a_pool_in_a_local_zone_mounting_fsx_is_refused_at_each_mount_and_its_unread_zone_noted() -> None:
    storage = [{"tier": "data"}, {"tier": "lustre"}, {"tier": "claims"}]
    assert _found(pool("edge", "p5.48xlarge", 2, ["za", "bos"], storage=storage)) == [
        (
            "storage.local-zone-fsx",
            "error",
            ("pools", 1, "storage", 1, "tier"),
            "pool 'edge' is placed in Local Zone us-east-1-bos-1a and mounts FSx for Lustre tier 'lustre', which railyard would place "
            "beside it; EKS supports managed node groups, self managed nodes, ebs volumes, application load balancers in a Local Zone, "
            "and no source railyard has places FSx for Lustre in one",
            "drop the mount from pool 'edge' (stage data on its instance store, a local_nvme tier, or read it from an s3 tier), "
            "or place the pool in an Availability Zone",
            {"local_zones": ["us-east-1-bos-1a"]},
        ),
        (
            "storage.local-zone-fsx",
            "error",
            ("pools", 1, "storage", 2, "tier"),
            "pool 'edge' is placed in Local Zone us-east-1-bos-1a and mounts FSx for Lustre tier 'claims', which railyard would place "
            "beside it; EKS supports managed node groups, self managed nodes, ebs volumes, application load balancers in a Local Zone, "
            "and no source railyard has places FSx for Lustre in one",
            "drop the mount from pool 'edge' (stage data on its instance store, a local_nvme tier, or read it from an s3 tier), "
            "or place the pool in an Availability Zone",
            {"local_zones": ["us-east-1-bos-1a"]},
        ),
        (
            "pool.local-zone-volume-unknown",
            "info",
            ("pools", 1),
            "pool 'edge' is placed in Local Zone us-east-1-bos-1a, and every node gets a gp3 root volume; gp3 is offered only in some "
            "Local Zones (awslabs/amazon-eks-ami#1295), and railyard's zone table hasn't read which volume types us-east-1-bos-1a offers",
            f"check us-east-1-bos-1a on {FEATURES} before `pulumi up`; record its volume types in blueprints/catalog/local_zones.yaml "
            "(`ebs_volume_types`) so validate checks it",
            {"local_zone": "us-east-1-bos-1a"},
        ),
    ]


def test_two_local_zones_are_named_together_and_each_noted_and_an_unknown_one_gets_no_volume_note() -> None:
    found = _found(pool("edge", "p5.48xlarge", 2, ["bos", "atl", "nowhere"], storage=[{"tier": "lustre"}]))
    assert [(code, certificate) for code, _, _, _, _, certificate in found] == [
        ("storage.local-zone-fsx", {"local_zones": ["us-east-1-bos-1a", "us-east-1-atl-1a", "us-east-1-xyz-1a"]}),
        ("pool.local-zone-volume-unknown", {"local_zone": "us-east-1-bos-1a"}),
        ("pool.local-zone-volume-unknown", {"local_zone": "us-east-1-atl-1a"}),
    ]
    assert found[0][3].startswith("pool 'edge' is placed in Local Zone us-east-1-bos-1a, us-east-1-atl-1a, us-east-1-xyz-1a and mounts")


def test_a_pool_in_a_local_zone_mounting_no_fsx_is_only_noted() -> None:
    found = _found(pool("edge", "p5.48xlarge", 2, ["bos"], storage=[{"tier": "data"}]))
    assert [(code, path) for code, _, path, *_ in found] == [("pool.local-zone-volume-unknown", ("pools", 1))]


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped table with Boston's volume types recorded without gp3 and Atlanta's with it."""
    table = load_local_zones()
    types = {"us-east-1-bos-1a": ("gp2", "io1"), "us-east-1-atl-1a": ("gp2", "gp3")}
    zones = tuple(replace(zone, ebs_volume_types=types[zone.name]) if zone.name in types else zone for zone in table.zones)
    monkeypatch.setattr(local_zones, "load_local_zones", lambda: replace(table, zones=zones))


@pytest.mark.usefixtures("recorded")
def test_a_zone_recorded_without_gp3_is_refused_and_one_with_it_passes() -> None:
    found = _found(pool("edge", "p5.48xlarge", 2, ["bos", "atl"]))
    assert found == [
        (
            "pool.local-zone-volume-type",
            "error",
            ("pools", 1),
            "pool 'edge' is placed in Local Zone us-east-1-bos-1a, which offers EBS volume types gp2, io1 and not gp3, the type of "
            "every node's root volume: its node group can't launch there",
            "place pool 'edge' in an Availability Zone, or in a Local Zone that offers gp3",
            {"local_zone": "us-east-1-bos-1a", "volume_types": ["gp2", "io1"]},
        )
    ]
    assert _found(pool("edge", "p5.48xlarge", 2, ["atl"])) == []
