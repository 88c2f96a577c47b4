"""A pool's instance type against what its region and zones sell (`blueprints/rules/offerings.py`), each case on a
blueprint built in memory and the rule called directly (tests/blueprints/test_offerings_rule.py validates examples).

The data these cases rest on, as moto 5.2.5 records EC2 DescribeInstanceTypeOfferings (`blueprints/catalog/offerings.json`),
checked in the first test: p5.48xlarge is sold in us-east-1, in all six of its zone ids, and not in eu-west-1;
g6e.12xlarge in us-east-1's use1-az1, az2, az4 and az6 and, by name, us-east-1a to 1d; m7i.xlarge not in me-south-1;
p5en.48xlarge not in eu-west-2, where railyard's Capacity Block table has a rate for it; trn2u.48xlarge not in us-east-2,
where the table has none; the data covers no p6e-gb200.36xlarge and no mx-central-1.
"""

from __future__ import annotations

from dataclasses import replace

from blueprints.catalog.offerings import load_offerings
from blueprints.catalog.prices import load_prices
from blueprints.models import Blueprint
from blueprints.rules import offerings
from blueprints.rules.context import Context
from tests.topology.factory import CATALOG, document, pool

MOTO = "EC2 DescribeInstanceTypeOfferings as moto 5.2.5 records it"
ZONES_HINT = "or write zones as ids (use1-az4), which are the same in every account"


def _found(region: str, zones: tuple[str, str], *pools: dict, system: str | None = None) -> list[tuple[object, ...]]:
    """The rule's findings; with no pool given, the system node group's alone (a blueprint has at least one pool)."""
    domains = [{"name": "za", "availability_zone": zones[0]}, {"name": "zb", "availability_zone": zones[1]}]
    data = document(domains, list(pools) or [pool("p5", "p5.48xlarge", 2, ["za"])])
    data["cloud"] |= {"region": region, "availability_zones": list(zones)}
    if system is not None:
        data["kubernetes"]["system_nodes"] = {"instance_type": system}
    model = Blueprint.model_validate(data)
    found = offerings.check(Context(blueprint=model, catalog=CATALOG))
    return [(f.code, f.severity, f.path, f.message, f.hint, f.certificate) for f in found if pools or f.path[0] != "pools"]


def _codes(found: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    return [(code, severity, path, certificate) for code, severity, path, _, _, certificate in found]


EAST = ("us-east-1", ("us-east-1a", "us-east-1b"))
EAST_IDS = ("us-east-1", ("use1-az1", "use1-az3"))


def test_the_data_these_cases_rest_on() -> None:
    data, prices = load_offerings(), load_prices()
    assert data.offered("p5.48xlarge", "us-east-1") is True and data.offered("p5.48xlarge", "eu-west-1") is False
    assert len(data.zones_of("p5.48xlarge", "us-east-1", True)) == 6
    assert data.zones_of("g6e.12xlarge", "us-east-1", True) == ("use1-az1", "use1-az2", "use1-az4", "use1-az6")
    assert data.zones_of("g6e.12xlarge", "us-east-1", False) == ("us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d")
    assert data.offered("m7i.xlarge", "me-south-1") is False and data.offered("m7i.xlarge", "us-east-1") is True
    assert data.offered("p5en.48xlarge", "eu-west-2") is False and prices.capacity_block("eu-west-2", "p5en.48xlarge") is not None
    assert data.offered("trn2u.48xlarge", "us-east-2") is False and prices.capacity_block("us-east-2", "trn2u.48xlarge") is None
    assert data.offered("p6e-gb200.36xlarge", "us-east-1") is None and data.offered("p5.48xlarge", "mx-central-1") is None


def test_a_type_sold_in_the_region_and_its_zones_says_nothing() -> None:
    assert _found(*EAST, pool("p5", "p5.48xlarge", 2, ["za", "zb"])) == []
    assert _found("us-east-1", ("use1-az1", "use1-az4"), pool("g6e", "g6e.12xlarge", 2, ["za", "zb"])) == []


def test_a_type_the_region_does_not_sell_is_refused_naming_where_it_is_sold_and_its_zones_are_not_judged() -> None:
    sold = ", ".join(load_offerings().regions_of("p5.48xlarge"))
    assert _found("eu-west-1", ("eu-west-1a", "eu-west-1b"), pool("web", "g5.48xlarge", 2, ["za"]), pool("p5", "p5.48xlarge", 2, ["za"])) == [
        (
            "pool.type-not-in-region",
            "error",
            ("pools", 1, "instance_type"),
            f"AWS doesn't offer p5.48xlarge in eu-west-1 ({MOTO}); it sells it in {sold}",
            f"move the design to one of {sold}, or choose an instance type eu-west-1 sells",
            {"regions": sold},
        )
    ]


def test_a_system_node_type_the_region_does_not_sell_is_refused() -> None:
    sold = ", ".join(load_offerings().regions_of("m7i.xlarge"))
    found = _found("me-south-1", ("me-south-1a", "me-south-1b"), system="m7i.xlarge")
    assert found == [
        (
            "k8s.system-type-not-in-region",
            "error",
            ("kubernetes", "system_nodes", "instance_type"),
            f"AWS doesn't offer m7i.xlarge in me-south-1 ({MOTO}); it sells it in {sold}",
            "choose a system node type me-south-1 sells (`railyard catalog --system` lists the families)",
            {"regions": sold},
        )
    ]
    assert _found(*EAST, system="m7i.xlarge") == []
    assert _found("mx-central-1", ("mx-central-1a", "mx-central-1b"), system="m7i.xlarge") == []


def test_a_type_or_a_region_the_data_does_not_cover_is_said_to_be_unchecked() -> None:
    assert _found(*EAST, pool("nvl", "p6e-gb200.36xlarge", 18, ["za"])) == [
        (
            "pool.offerings-unknown",
            "info",
            ("pools", 0, "instance_type"),
            f"whether AWS sells p6e-gb200.36xlarge in us-east-1 is unchecked: railyard's offerings data ({MOTO}) doesn't cover p6e-gb200.36xlarge",
            "check it: `aws ec2 describe-instance-type-offerings --region us-east-1 --filters Name=instance-type,Values=p6e-gb200.36xlarge`",
            {},
        )
    ]
    [(_, _, _, message, hint, _), *rest] = _found("mx-central-1", ("mx-central-1a", "mx-central-1b"), pool("p5", "p5.48xlarge", 2, ["za"]))
    assert (
        message == f"whether AWS sells p5.48xlarge in mx-central-1 is unchecked: railyard's offerings data ({MOTO}) doesn't cover region mx-central-1"
    )
    assert hint.startswith("check it: `aws ec2 describe-instance-type-offerings --region mx-central-1 ") and rest == []


def test_a_pool_after_one_the_data_does_not_cover_is_still_judged() -> None:
    found = _found("eu-west-1", ("eu-west-1a", "eu-west-1b"), pool("nvl", "p6e-gb200.36xlarge", 18, ["za"]), pool("p5", "p5.48xlarge", 2, ["za"]))
    assert [(code, path) for code, _, path, *_ in found] == [
        ("pool.offerings-unknown", ("pools", 0, "instance_type")),
        ("pool.type-not-in-region", ("pools", 1, "instance_type")),
    ]


def test_a_zone_id_that_does_not_sell_the_type_is_an_error_naming_the_ids_that_do() -> None:
    assert _found(*EAST_IDS, pool("g6e", "g6e.12xlarge", 2, ["za", "zb"])) == [
        (
            "pool.type-not-in-zone",
            "error",
            ("pools", 0, "placement"),
            f"AWS doesn't offer g6e.12xlarge in zone use1-az3 ({MOTO}); in us-east-1 it sells it in use1-az1, use1-az2, use1-az4, use1-az6",
            "place the pool in one of use1-az1, use1-az2, use1-az4, use1-az6",
            {"zone": "use1-az3"},
        )
    ]


def test_a_zone_name_that_does_not_sell_the_type_is_a_warning_since_names_differ_per_account() -> None:
    [(code, severity, path, message, hint, certificate)] = _found(
        "us-east-1", ("us-east-1e", "us-east-1a"), pool("g6e", "g6e.12xlarge", 2, ["za", "zb"])
    )
    assert (code, severity, path, certificate) == ("pool.type-not-in-zone", "warning", ("pools", 0, "placement"), {"zone": "us-east-1e"})
    assert message == (
        f"g6e.12xlarge is not offered in us-east-1e as the account moto recorded names its zones ({MOTO}: us-east-1a, us-east-1b, "
        "us-east-1c, us-east-1d); each account maps zone names its own way, so in yours it may be"
    )
    assert hint == (
        "check `aws ec2 describe-instance-type-offerings --location-type availability-zone --region us-east-1 --filters "
        f"Name=instance-type,Values=g6e.12xlarge`, {ZONES_HINT}"
    )


def test_a_reservations_zone_is_judged_too_and_each_zone_once() -> None:
    reservation = {"kind": "capacity_reservation", "reservation_id": "cr-0123456789abcdef0", "zone": "use1-az3", "instance_type": "g6e.12xlarge"}
    both = pool("g6e", "g6e.12xlarge", 2, ["za"], capacity=reservation | {"instance_count": 2})
    assert [certificate for *_, certificate in _codes(_found("us-east-1", ("use1-az1", "use1-az4"), both))] == [{"zone": "use1-az3"}]
    twice = pool("g6e", "g6e.12xlarge", 2, ["zb"], capacity=reservation | {"instance_count": 2})
    assert [certificate for *_, certificate in _codes(_found(*EAST_IDS, twice))] == [{"zone": "use1-az3"}]


def test_every_zone_after_one_that_sells_the_type_is_judged() -> None:
    found = _found("us-east-1", ("use1-az1", "use1-az3"), pool("a", "g6e.12xlarge", 2, ["za"]), pool("b", "g6e.12xlarge", 2, ["za", "zb"]))
    assert [(path, certificate) for _, _, path, certificate in _codes(found)] == [(("pools", 1, "placement"), {"zone": "use1-az3"})]


def test_a_block_of_a_type_the_region_sells_or_the_block_table_prices_there_passes_without_its_zones_judged() -> None:
    block = {"kind": "capacity_block", "reservation_id": "cr-0123456789abcdef0"}
    assert _found(*EAST_IDS, pool("g6e", "g6e.12xlarge", 2, ["zb"], capacity=block)) == []
    assert _found("eu-west-2", ("eu-west-2a", "eu-west-2b"), pool("p5en", "p5en.48xlarge", 2, ["za"], capacity=block)) == []


def test_a_block_neither_the_offerings_nor_the_block_table_place_in_the_region_is_warned_not_refused() -> None:
    group = {"kind": "reservation_group", "reservation_ids": ["cr-0123456789abcdef0"], "capacity_blocks": True}
    [(code, severity, path, message, hint, _)] = _found(
        "us-east-2", ("us-east-2a", "us-east-2b"), pool("trn", "trn2u.48xlarge", 4, ["za"], capacity=group)
    )
    assert (code, severity, path) == ("pool.type-not-in-region", "warning", ("pools", 0, "instance_type"))
    assert message == (
        f"trn2u.48xlarge is not offered in us-east-2 by {MOTO} (it lists {', '.join(load_offerings().regions_of('trn2u.48xlarge'))}), "
        "and railyard's Capacity Block table has no rate for it there; a type sold only as Capacity Blocks can be missing from those "
        "offerings, so whether this block can be bought there is unchecked"
    )
    assert hint == (
        "check it: `aws ec2 describe-capacity-block-offerings --region us-east-2 --instance-type trn2u.48xlarge "
        "--instance-count <n> --capacity-duration-hours 24`; if none is offered, move the design to a region that sells it"
    )
    on_demand_group = group | {"capacity_blocks": False}
    assert [
        code
        for code, *_ in _codes(_found("us-east-2", ("us-east-2a", "us-east-2b"), pool("trn", "trn2u.48xlarge", 4, ["za"], capacity=on_demand_group)))
    ] == ["pool.type-not-in-region"]
    assert _found("us-east-2", ("us-east-2a", "us-east-2b"), pool("trn", "trn2u.48xlarge", 4, ["za"], capacity=on_demand_group))[0][1] == "error"


def test_a_region_that_sells_the_type_in_none_of_its_zones_says_no_zone(monkeypatch) -> None:
    """A type sold in the region whose zone list is empty there (a copy of the data): the messages say "no zone"."""
    data = load_offerings()
    empty = replace(data, zone_ids_by_type={**data.zone_ids_by_type, "g6e.12xlarge": ()}, zones_by_type={**data.zones_by_type, "g6e.12xlarge": ()})
    monkeypatch.setattr(offerings, "load_offerings", lambda: empty)
    [(_, _, _, message, _, _), _] = _found(*EAST_IDS, pool("g6e", "g6e.12xlarge", 2, ["za", "zb"]))
    assert message == f"AWS doesn't offer g6e.12xlarge in zone use1-az1 ({MOTO}); in us-east-1 it sells it in no zone"
    [(_, _, _, message, _, _), _] = _found(*EAST, pool("g6e", "g6e.12xlarge", 2, ["za", "zb"]))
    assert message.startswith(f"g6e.12xlarge is not offered in us-east-1a as the account moto recorded names its zones ({MOTO}: no zone); ")


def test_data_whose_source_names_no_moto_version_is_named_without_one(monkeypatch) -> None:
    monkeypatch.setattr(offerings, "load_offerings", lambda: replace(load_offerings(), source="hand-written"))
    [(_, _, _, message, _, _)] = _found("eu-west-1", ("eu-west-1a", "eu-west-1b"), pool("p5", "p5.48xlarge", 2, ["za"]))
    assert message.startswith("AWS doesn't offer p5.48xlarge in eu-west-1 (EC2 DescribeInstanceTypeOfferings as moto records it); ")


def test_a_block_of_a_type_sold_in_several_other_regions_lists_them_all() -> None:
    """p5.48xlarge isn't sold in eu-west-1 and the block table has no eu-west-1 rate for it."""
    assert load_prices().capacity_block("eu-west-1", "p5.48xlarge") is None
    block = {"kind": "capacity_block", "reservation_id": "cr-0123456789abcdef0"}
    [(code, severity, _, message, _, _)] = _found("eu-west-1", ("eu-west-1a", "eu-west-1b"), pool("p5", "p5.48xlarge", 2, ["za"], capacity=block))
    assert (code, severity) == ("pool.type-not-in-region", "warning")
    assert f"(it lists {', '.join(load_offerings().regions_of('p5.48xlarge'))}), " in message


def test_a_pool_after_a_block_or_after_one_the_region_does_not_sell_is_still_judged() -> None:
    """eu-west-2: a p5en block (priced there) then g6e.12xlarge (not sold there); us-east-1 by ids: p5e.48xlarge (not sold
    there) then a g6e.12xlarge in use1-az3, which doesn't sell it."""
    assert load_offerings().offered("g6e.12xlarge", "eu-west-2") is False and load_offerings().offered("p5e.48xlarge", "us-east-1") is False
    block = {"kind": "capacity_block", "reservation_id": "cr-0123456789abcdef0"}
    after_block = _found(
        "eu-west-2", ("eu-west-2a", "eu-west-2b"), pool("cb", "p5en.48xlarge", 2, ["za"], capacity=block), pool("g6e", "g6e.12xlarge", 2, ["za"])
    )
    assert [(code, path) for code, _, path, *_ in after_block] == [("pool.type-not-in-region", ("pools", 1, "instance_type"))]
    after_refusal = _found(*EAST_IDS, pool("p5e", "p5e.48xlarge", 2, ["za"]), pool("g6e", "g6e.12xlarge", 2, ["zb"]))
    assert [(code, path) for code, _, path, *_ in after_refusal] == [
        ("pool.type-not-in-region", ("pools", 0, "instance_type")),
        ("pool.type-not-in-zone", ("pools", 1, "placement")),
    ]
