"""Capacity Blocks named by an offering not bought yet (`blueprints/rules/unbought.py`): `capacity.offering-unpurchased`.

`validate` notes each such pool (the rule's `check`); what would apply the design refuses it with the same code
(`unbought_findings(..., "error")`). Each case builds its blueprint in memory: a block by its offering, a group of
one and of two offerings, bought blocks and groups (nothing to say), and pools on other capacity around them.
"""

from __future__ import annotations

from blueprints.rules import unbought
from blueprints.rules.context import Context
from tests.topology.factory import CATALOG, blueprint, pool

ZONES = [{"name": "za", "availability_zone": "us-east-1a"}]
FACTS = {"zone": "us-east-1a", "instance_type": "p5.48xlarge", "instance_count": 2, "start": "2026-12-01T00:00:00Z", "end": "2026-12-08T00:00:00Z"}
OFFERED = {"kind": "capacity_block", "offering_id": "cb-0123456789abcdef0", **FACTS}
BOUGHT = {"kind": "capacity_block", "reservation_id": "cr-0123456789abcdef0", **FACTS}
HINT = "then `railyard plan adopt FILE --reservation cr-...`"


def _group(**members: object) -> dict:
    return {"kind": "reservation_group", "capacity_blocks": True, "zone": "us-east-1a", "instance_type": "p5.48xlarge", **members}


def _pools(*capacities: dict) -> list[dict]:
    """An on-demand pool first, then one p5 pool per capacity, named p1, p2, ..."""
    return [pool("web", "m5.large", 2, ["za"])] + [pool(f"p{n}", "p5.48xlarge", 2, ["za"], capacity=c) for n, c in enumerate(capacities, 1)]


def _said(findings: list) -> list[tuple[object, ...]]:
    return [(f.code, f.severity, f.path, f.message, f.hint, f.certificate) for f in findings]


def test_validate_notes_a_block_named_by_its_offering_at_the_offering_id() -> None:
    model = blueprint(ZONES, _pools(OFFERED))
    assert _said(list(unbought.check(Context(blueprint=model, catalog=CATALOG)))) == [
        (
            "capacity.offering-unpurchased",
            "info",
            ("pools", 1, "capacity", "offering_id"),
            "pool 'p1' runs on Capacity Block offering cb-0123456789abcdef0, not bought yet: it can be checked, not applied",
            "buy it (aws ec2 purchase-capacity-block --capacity-block-offering-id cb-0123456789abcdef0 --instance-platform Linux/UNIX), " + HINT,
            {"offerings": ["cb-0123456789abcdef0"]},
        )
    ]


def test_what_would_apply_the_design_refuses_it_with_the_same_code() -> None:
    [(code, severity, path, message, _, _)] = _said(unbought.unbought_findings(blueprint(ZONES, _pools(OFFERED)), "error"))
    assert (code, severity, path) == ("capacity.offering-unpurchased", "error", ("pools", 1, "capacity", "offering_id"))
    assert message == "pool 'p1' runs on Capacity Block offering cb-0123456789abcdef0, not bought yet: so nothing can be applied until it is bought"


def test_a_group_of_two_offerings_is_named_in_the_plural_at_offering_ids_and_the_hint_buys_the_first() -> None:
    group = _group(offering_ids=["cb-0123456789abcdef0", "cb-0fedcba9876543210"])
    [(_, _, path, message, hint, certificate)] = _said(unbought.unbought_findings(blueprint(ZONES, _pools(BOUGHT, group)), "info"))
    assert path == ("pools", 2, "capacity", "offering_ids")
    assert (
        message
        == "pool 'p2' runs on Capacity Block offerings cb-0123456789abcdef0, cb-0fedcba9876543210, not bought yet: it can be checked, not applied"
    )
    assert hint.startswith("buy it (aws ec2 purchase-capacity-block --capacity-block-offering-id cb-0123456789abcdef0 --instance")
    assert certificate == {"offerings": ["cb-0123456789abcdef0", "cb-0fedcba9876543210"]}


def test_a_group_of_one_offering_is_still_at_offering_ids_in_the_singular() -> None:
    [(_, _, path, message, _, _)] = _said(unbought.unbought_findings(blueprint(ZONES, _pools(_group(offering_ids=["cb-0123456789abcdef0"]))), "info"))
    assert path == ("pools", 1, "capacity", "offering_ids")
    assert message.startswith("pool 'p1' runs on Capacity Block offering cb-0123456789abcdef0, not bought yet")


def test_bought_blocks_and_groups_of_reservations_are_not_said() -> None:
    model = blueprint(ZONES, _pools(BOUGHT, _group(reservation_ids=["cr-0123456789abcdef0"])))
    assert unbought.unbought(model) == [] and list(unbought.check(Context(blueprint=model, catalog=CATALOG))) == []


def test_unbought_lists_each_pool_with_its_index_name_and_offerings() -> None:
    model = blueprint(ZONES, _pools(OFFERED, BOUGHT, _group(offering_ids=["cb-0fedcba9876543210", "cb-0123456789abcdef0"])))
    assert unbought.unbought(model) == [
        (1, "p1", ("cb-0123456789abcdef0",)),
        (3, "p3", ("cb-0fedcba9876543210", "cb-0123456789abcdef0")),
    ]
