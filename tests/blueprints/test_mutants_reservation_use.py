"""Reserved instances no pool can use (`blueprints/rules/reservation_use.py`): `capacity.reservation-unused`.

The rule sums the most nodes of every pool naming one reservation (by its `cr-` id, a Capacity Block's offering id
until it is bought) and warns when the sum is below what the reservation holds. Each case builds its blueprint in
memory and calls the rule: the sum one below, at and above the count; two pools sharing one reservation; a pool on
other capacity between them; a group whose count is unstated.
"""

from __future__ import annotations

from blueprints.rules import reservation_use
from blueprints.rules.context import Context
from tests.topology.factory import CATALOG, blueprint, pool

ZONES = [{"name": "za", "availability_zone": "us-east-1a"}]


def _odcr(count: int, reservation: str = "cr-0123456789abcdef0") -> dict:
    return {
        "kind": "capacity_reservation",
        "reservation_id": reservation,
        "zone": "us-east-1a",
        "instance_type": "p5.48xlarge",
        "instance_count": count,
    }


def _unused(*pools: dict) -> list[tuple[object, ...]]:
    model = blueprint(ZONES, list(pools))
    return [
        (finding.code, finding.severity, finding.path, finding.message, finding.hint, finding.certificate)
        for finding in reservation_use.check(Context(blueprint=model, catalog=CATALOG))
    ]


def test_a_reservation_one_larger_than_its_pool_warns_with_the_idle_count() -> None:
    assert _unused(pool("train", "p5.48xlarge", 7, ["za"], capacity=_odcr(8))) == [
        (
            "capacity.reservation-unused",
            "warning",
            ("pools", 0, "capacity", "instance_count"),
            "reservation cr-0123456789abcdef0 holds 8 instances, but pool 'train' can grow to only 7: "
            "1 reserved instances are paid for and never launched",
            "let the pool grow to 8 nodes, or reserve 7",
            {"reservation": "cr-0123456789abcdef0", "held": 8, "usable": 7},
        )
    ]


def test_a_reservation_exactly_as_large_as_its_pool_or_smaller_gives_no_warning() -> None:
    assert _unused(pool("train", "p5.48xlarge", 8, ["za"], capacity=_odcr(8))) == []
    assert _unused(pool("train", "p5.48xlarge", 9, ["za"], capacity=_odcr(8))) == []


def test_the_pools_range_max_is_what_counts_not_its_min() -> None:
    assert _unused(pool("train", "p5.48xlarge", {"min": 1, "max": 8}, ["za"], capacity=_odcr(8))) == []


def test_two_pools_on_one_reservation_are_summed_and_named_together_at_the_first() -> None:
    """A pool on on-demand capacity sits first, so the first user is pools[1] and the second pools[3]."""
    pools = (
        pool("web", "m5.large", 2, ["za"]),
        pool("a", "p5.48xlarge", 3, ["za"], capacity=_odcr(10)),
        pool("other", "p5.48xlarge", 2, ["za"], capacity=_odcr(2, "cr-0fedcba9876543210")),
        pool("b", "p5.48xlarge", {"min": 1, "max": 4}, ["za"], capacity=_odcr(10)),
    )
    [(code, _, path, message, hint, certificate)] = _unused(*pools)
    assert code == "capacity.reservation-unused" and path == ("pools", 1, "capacity", "instance_count")
    assert message == (
        "reservation cr-0123456789abcdef0 holds 10 instances, but pool 'a', 'b' can grow to only 7: "
        "3 reserved instances are paid for and never launched"
    )
    assert hint == "let the pool grow to 10 nodes, or reserve 7" and certificate == {"reservation": "cr-0123456789abcdef0", "held": 10, "usable": 7}


def test_two_pools_that_together_use_the_whole_reservation_give_no_warning() -> None:
    pools = (pool("a", "p5.48xlarge", 6, ["za"], capacity=_odcr(10)), pool("b", "p5.48xlarge", 4, ["za"], capacity=_odcr(10)))
    assert _unused(*pools) == []


def test_a_capacity_block_is_keyed_by_its_reservation_or_its_offering_until_bought() -> None:
    bought = {"kind": "capacity_block", "reservation_id": "cr-0123456789abcdef0", "instance_count": 4}
    [(_, _, path, message, _, certificate)] = _unused(pool("train", "p5.48xlarge", 2, ["za"], capacity=bought))
    assert path == ("pools", 0, "capacity", "instance_count") and message.startswith("reservation cr-0123456789abcdef0 holds 4 instances")
    assert certificate == {"reservation": "cr-0123456789abcdef0", "held": 4, "usable": 2}
    window = {"zone": "us-east-1a", "instance_type": "p5.48xlarge", "start": "2026-12-01T00:00:00Z", "end": "2026-12-08T00:00:00Z"}
    offered = {"kind": "capacity_block", "offering_id": "cb-0123456789abcdef0", "instance_count": 4, **window}
    [(_, _, _, message, _, _)] = _unused(pool("train", "p5.48xlarge", 3, ["za"], capacity=offered))
    assert message.startswith("reservation offering cb-0123456789abcdef0 holds 4 instances, but pool 'train' can grow to only 3: 1 reserved")


def test_a_reservation_group_is_judged_by_its_stated_count_and_skipped_without_one() -> None:
    group = {"kind": "reservation_group", "reservation_ids": ["cr-0123456789abcdef0", "cr-0fedcba9876543210"], "instance_count": 6}
    [(_, _, _, message, _, _)] = _unused(pool("train", "p5.48xlarge", 5, ["za"], capacity=group))
    assert "holds 6 instances, but pool 'train' can grow to only 5: 1 reserved" in message
    unstated = {k: v for k, v in group.items() if k != "instance_count"}
    assert _unused(pool("train", "p5.48xlarge", 1, ["za"], capacity=unstated)) == []


def test_on_demand_and_spot_pools_have_no_reservation_to_leave_idle() -> None:
    assert _unused(pool("web", "m5.large", 2, ["za"]), pool("spot", "m5.large", 2, ["za"], capacity={"kind": "spot"})) == []


def test_a_reservation_after_one_with_an_unstated_count_is_still_judged() -> None:
    unstated = {"kind": "reservation_group", "reservation_ids": ["cr-0fedcba9876543210"]}
    pools = (pool("first", "p5.48xlarge", 1, ["za"], capacity=unstated), pool("train", "p5.48xlarge", 7, ["za"], capacity=_odcr(8)))
    assert [path for _, _, path, *_ in _unused(*pools)] == [("pools", 1, "capacity", "instance_count")]
