"""A reservation or Capacity Block against its pool (`blueprints/rules/capacity.py`).

Zone, size and type of each reserved kind (a capacity reservation, a Capacity Block, a reservation group), each named
as users know it; the Capacity Block facts left to `validate --online`; a type not sold as spot or as Capacity Blocks
(the catalog's usage classes: p6e-gb200.36xlarge is sold without spot, g5 without Capacity Blocks). The size at the
pool's most nodes and one past it; a Local Zone named by id on one side and by name on the other. Each case builds its
blueprint in memory and calls the rule.
"""

from __future__ import annotations

from blueprints.rules import capacity
from blueprints.rules.context import Context
from tests.topology.factory import CATALOG, blueprint, pool

ZONES = [{"name": "za", "availability_zone": "us-east-1a"}, {"name": "zb", "availability_zone": "us-east-1b"}]
WINDOW = {"start": "2026-12-01T00:00:00Z", "end": "2026-12-08T00:00:00Z"}
ODCR = {
    "kind": "capacity_reservation",
    "reservation_id": "cr-0123456789abcdef0",
    "zone": "us-east-1a",
    "instance_type": "p5.48xlarge",
    "instance_count": 4,
}
BLOCK = {
    "kind": "capacity_block",
    "reservation_id": "cr-0123456789abcdef0",
    "zone": "us-east-1a",
    "instance_type": "p5.48xlarge",
    "instance_count": 4,
    **WINDOW,
}
GROUP = {
    "kind": "reservation_group",
    "reservation_ids": ["cr-0123456789abcdef0"],
    "zone": "us-east-1a",
    "instance_type": "p5.48xlarge",
    "instance_count": 4,
}


def _found(*pools: dict, zones: list[dict] = ZONES) -> list[tuple[object, ...]]:
    model = blueprint(zones, [pool("web", "p5.48xlarge", 2, ["za"]), *pools])
    return [(f.code, f.severity, f.path, f.message, f.hint, f.certificate) for f in capacity.check(Context(blueprint=model, catalog=CATALOG))]


def _codes(*pools: dict, zones: list[dict] = ZONES) -> list[tuple[str, tuple[object, ...]]]:
    return [(code, path) for code, _, path, *_ in _found(*pools, zones=zones)]


def test_a_reservation_matching_its_pool_in_zone_type_and_size_says_nothing() -> None:
    for source in (ODCR, BLOCK, GROUP):
        assert _found(pool("train", "p5.48xlarge", 4, ["za"], capacity=source)) == []


def test_a_pool_one_node_larger_than_its_reservation_is_refused_by_each_kinds_name() -> None:
    expected = {ODCR["kind"]: "capacity reservation", BLOCK["kind"]: "Capacity Block", GROUP["kind"]: "reservation group"}
    for source in (ODCR, BLOCK, GROUP):
        assert _found(pool("train", "p5.48xlarge", {"min": 1, "max": 5}, ["za"], capacity=source)) == [
            (
                "capacity.too-small",
                "error",
                ("pools", 1, "capacity", "instance_count"),
                f"the {expected[source['kind']]} holds 4 instances, but pool 'train' may grow to 5 nodes",
                "lower the pool to 4 nodes or reserve more",
                {},
            )
        ]


def test_a_reservation_in_another_zone_is_refused_naming_the_pools_zones() -> None:
    assert _found(pool("train", "p5.48xlarge", 4, ["za", "zb"], capacity=ODCR)) == [
        (
            "capacity.zone-mismatch",
            "error",
            ("pools", 1, "capacity", "zone"),
            "the capacity reservation cr-0123456789abcdef0 is in us-east-1a, but pool 'train' is placed in ['us-east-1a', 'us-east-1b']",
            "place the pool only in failure domains of us-east-1a, or fix the capacity reservation's zone",
            {},
        )
    ]
    assert _codes(pool("train", "p5.48xlarge", 4, ["zb"], capacity=BLOCK)) == [("capacity.zone-mismatch", ("pools", 1, "capacity", "zone"))]


def test_a_group_is_named_by_its_reservations_and_an_unstated_zone_is_not_judged() -> None:
    [(_, _, _, message, hint, _)] = _found(pool("train", "p5.48xlarge", 4, ["zb"], capacity=GROUP))
    assert message == "the reservation group cr-0123456789abcdef0 is in us-east-1a, but pool 'train' is placed in ['us-east-1b']"
    assert hint == "place the pool only in failure domains of us-east-1a, or fix the reservation group's zone"
    unstated = {key: value for key, value in GROUP.items() if key != "zone"}
    assert _found(pool("train", "p5.48xlarge", 4, ["zb"], capacity=unstated)) == []


def test_a_local_zone_named_by_id_on_the_reservation_and_by_name_on_the_domain_is_one_zone() -> None:
    zones = [*ZONES, {"name": "bos", "availability_zone": "us-east-1-bos-1a"}]
    by_id = ODCR | {"zone": "use1-bos1-az1"}
    assert _found(pool("train", "p5.48xlarge", 4, ["bos"], capacity=by_id), zones=zones) == []
    assert _codes(pool("train", "p5.48xlarge", 4, ["za"], capacity=by_id), zones=zones) == [
        ("capacity.zone-mismatch", ("pools", 1, "capacity", "zone"))
    ]


def test_a_reservation_for_another_type_is_refused() -> None:
    source = ODCR | {"instance_type": "p5en.48xlarge"}
    assert _found(pool("train", "p5.48xlarge", 4, ["za"], capacity=source)) == [
        (
            "capacity.type-mismatch",
            "error",
            ("pools", 1, "capacity", "instance_type"),
            "the capacity reservation is for p5en.48xlarge, but pool 'train' runs p5.48xlarge",
            "make the pool's instance_type match the reservation",
            {},
        )
    ]


def test_a_capacity_block_leaving_facts_to_the_account_is_noted_and_without_a_window_says_how_its_group_is_made() -> None:
    source = {"kind": "capacity_block", "reservation_id": "cr-0123456789abcdef0"}
    assert _found(pool("train", "p5.48xlarge", 4, ["za"], capacity=source)) == [
        (
            "capacity.block-unstated",
            "info",
            ("pools", 1, "capacity", "reservation_id"),
            "Capacity Block cr-0123456789abcdef0 leaves zone, instance_type, instance_count, start, end to the account, so the checks "
            "that need them run only with `railyard validate --online`; without a window its node group is created at full size, "
            "which EKS accepts once the block is active",
            "run `railyard validate --online`, or copy zone, instance_type, instance_count, start, end from the block in the EC2 console",
            {"unstated": ["zone", "instance_type", "instance_count", "start", "end"]},
        )
    ]


def test_a_capacity_block_with_its_window_but_no_count_is_noted_without_the_window_clause() -> None:
    source = {key: value for key, value in BLOCK.items() if key != "instance_count"}
    [(_, _, _, message, hint, certificate)] = _found(pool("train", "p5.48xlarge", 4, ["za"], capacity=source))
    assert message == (
        "Capacity Block cr-0123456789abcdef0 leaves instance_count to the account, "
        "so the checks that need them run only with `railyard validate --online`"
    )
    assert hint == "run `railyard validate --online`, or copy instance_count from the block in the EC2 console" and certificate == {
        "unstated": ["instance_count"]
    }


def test_a_type_not_sold_as_capacity_blocks_is_refused_for_a_block_and_a_group_of_blocks_not_for_a_reservation() -> None:
    block = BLOCK | {"instance_type": "g5.48xlarge"}
    [(code, severity, path, message, hint, _)] = _found(pool("g5", "g5.48xlarge", 4, ["za"], capacity=block))
    assert (code, severity, path) == ("capacity.block-unsupported-type", "error", ("pools", 1, "capacity", "kind"))
    assert message == f"g5.48xlarge is not sold as Capacity Blocks (its usage classes: {list(CATALOG.get('g5.48xlarge').usage_classes)})"
    assert hint == "use an on-demand capacity reservation or on-demand capacity"
    blocks = GROUP | {"instance_type": "g5.48xlarge", "capacity_blocks": True}
    assert _codes(pool("g5", "g5.48xlarge", 4, ["za"], capacity=blocks)) == [("capacity.block-unsupported-type", ("pools", 1, "capacity", "kind"))]
    reservations = GROUP | {"instance_type": "g5.48xlarge"}
    assert _found(pool("g5", "g5.48xlarge", 4, ["za"], capacity=reservations)) == []
    assert _found(pool("g5", "g5.48xlarge", 4, ["za"], capacity=ODCR | {"instance_type": "g5.48xlarge"})) == []


def test_spot_on_a_type_not_sold_as_spot_is_refused_and_on_one_sold_as_spot_is_not() -> None:
    classes = list(CATALOG.get("p6e-gb200.36xlarge").usage_classes)
    assert "spot" not in classes and "spot" in CATALOG.get("p5.48xlarge").usage_classes
    assert _found(pool("nvl", "p6e-gb200.36xlarge", 18, ["za"], capacity={"kind": "spot"})) == [
        (
            "capacity.spot-unsupported-type",
            "error",
            ("pools", 1, "capacity", "kind"),
            f"p6e-gb200.36xlarge is not sold as spot (its usage classes, from DescribeInstanceTypes: {classes})",
            "use on-demand capacity, a capacity reservation or a Capacity Block",
            {},
        )
    ]
    assert _found(pool("p5", "p5.48xlarge", 2, ["za"], capacity={"kind": "spot"})) == []
    assert _found(pool("p6e", "p6e-gb200.36xlarge", 18, ["za"])) == []


def test_a_type_not_in_the_catalog_is_judged_on_zone_size_and_type_only() -> None:
    source = ODCR | {"instance_type": "x9.large", "instance_count": 1}
    assert _codes(pool("x", "x9.large", 2, ["zb"], capacity=source)) == [
        ("capacity.zone-mismatch", ("pools", 1, "capacity", "zone")),
        ("capacity.too-small", ("pools", 1, "capacity", "instance_count")),
    ]
    assert _found(pool("x", "x9.large", 2, ["za"], capacity={"kind": "spot"})) == []


def test_every_pool_is_judged_after_one_that_is_not_reserved() -> None:
    found = _codes(pool("spot", "p5.48xlarge", 2, ["za"], capacity={"kind": "spot"}), pool("train", "p5.48xlarge", 5, ["za"], capacity=ODCR))
    assert found == [("capacity.too-small", ("pools", 2, "capacity", "instance_count"))]


def test_a_block_not_bought_yet_is_named_by_its_offering() -> None:
    offered = {key: value for key, value in BLOCK.items() if key != "reservation_id"} | {"offering_id": "cb-0123456789abcdef0"}
    [(code, _, _, message, _, _)] = _found(pool("train", "p5.48xlarge", 4, ["zb"], capacity=offered))
    assert code == "capacity.zone-mismatch"
    assert message == "the Capacity Block offering cb-0123456789abcdef0 is in us-east-1a, but pool 'train' is placed in ['us-east-1b']"
