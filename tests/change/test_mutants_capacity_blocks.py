"""railyard/change/capacity.py, capacity_blocks.py and bought_blocks.py on built sides: a pool's catalog entry and the
figures of replacing it in waves (each rounding boundary); `change.capacity-block-roll` per pool whose Capacity Block
groups roll, with the block's window and the steps; `change.block-resized` per bought block whose facts a change edits
(each fact, the extension EC2 sells, a field unstated on either side)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from blueprints.catalog import load_catalog
from blueprints.models.capacity import CapacityBlock, OnDemand, ReservationGroup
from railyard.change.bought_blocks import bought_block_findings
from railyard.change.capacity import instance_spec, wave_figures
from railyard.change.capacity_blocks import EXPLAIN, capacity_block_findings, rolls_a_block
from tests.change.built import blueprint, change, group, pool, side

CATALOG = load_catalog()  # read once, before any test forks
START, END = datetime(2026, 12, 1, 11, 30, tzinfo=UTC), datetime(2026, 12, 8, 11, 30, tzinfo=UTC)


def _block(**facts) -> CapacityBlock:
    return CapacityBlock.model_validate({"kind": "capacity_block", "reservation_id": "cr-0123456789abcdef0", **facts})


# --- capacity.py -------------------------------------------------------------------------------------------------------------


def test_a_pools_catalog_entry_is_found_by_its_name():
    validation = side(blueprint(pool("infer", instance_type="g6e.12xlarge"), pool("train", instance_type="p5.48xlarge")))
    assert instance_spec(validation, "train") == CATALOG.get("p5.48xlarge")
    assert instance_spec(validation, "train").accelerator_count == 8
    assert instance_spec(validation, "infer") == CATALOG.get("g6e.12xlarge")
    assert instance_spec(validation, "gone") is None
    assert instance_spec(validation, None) is None
    assert instance_spec(side(blueprint(pool("x", instance_type="no.such"))), "x") is None
    assert instance_spec(side(None), "train") is None


@pytest.mark.parametrize(("nodes", "per_wave", "waves"), [(9, 3, 3), (10, 3, 4), (1, 3, 1), (3, 1, 3), (0, 3, 0), (4, 0, 0)])
def test_waves_are_the_nodes_over_the_wave_rounded_up_and_none_without_nodes_or_a_wave(nodes, per_wave, waves):
    assert wave_figures(nodes, 8, per_wave) == {
        "nodes": nodes,
        "accelerators": nodes * 8,
        "node_groups": 1,
        "nodes_per_wave": per_wave,
        "accelerators_per_wave": per_wave * 8,
        "waves": waves,
    }


# --- capacity_blocks.py: which changes roll a block ------------------------------------------------------------------------

BLOCK_GROUP = {"capacityType": "CAPACITY_BLOCK", "labels": {"railyard.dev/pool": "train"}, "clusterName": "prod"}


def _roll(paths: dict[str, str], name: str = "train-a", action: str = "update", old: dict | None = None, **inputs):
    return group(name, action, {**BLOCK_GROUP, **(old or {})}, {**BLOCK_GROUP, **inputs}, paths)


@pytest.mark.parametrize("root", ["launchTemplate.version", "version", "releaseVersion"])
def test_a_block_group_updated_through_update_nodegroup_version_rolls(root):
    assert rolls_a_block(_roll({root: "update"})) is True


@pytest.mark.parametrize(
    "item",
    [
        _roll({"scalingConfig.desiredSize": "update"}),  # not UpdateNodegroupVersion's
        _roll({"launchTemplate.version": "update"}, action="replace"),
        _roll({"launchTemplate.version": "update"}, capacityType="ON_DEMAND"),
        _roll({"version": "update"}, old={"version": "1.31"}, version="1.30"),  # a version going down is refused, not rolled
        change("a", "aws:eks/addon:Addon", "update", BLOCK_GROUP, BLOCK_GROUP, {"version": "update"}),
    ],
)
def test_no_roll(item):
    assert rolls_a_block(item) is False


def test_a_version_going_down_beside_a_template_change_still_rolls_the_template():
    assert rolls_a_block(_roll({"version": "update", "launchTemplate.version": "update"}, old={"version": "1.31"}, version="1.30")) is True


def test_an_update_without_a_new_side_rolls_nothing():
    item = _roll({"version": "update"})
    item.new = None
    assert rolls_a_block(item) is False


# --- capacity_blocks.py: the warning -------------------------------------------------------------------------------------


def _sides(capacity, before: str = "1.31", after: str = "1.31"):
    pools = (pool("infer", capacity=OnDemand(kind="on_demand")), pool("train", capacity=capacity))
    return side(blueprint(*pools, version=before)), side(blueprint(*pools, version=after))


def test_an_upgrade_of_a_block_group_is_warned_with_its_window_the_hold_and_the_drain():
    old, new = _sides(_block(start=START, end=END), "1.31", "1.32")
    rolled = [
        _roll({"version": "update"}, name="train-b", nodeGroupName="train-b-ng"),
        _roll({"launchTemplate": "update"}, nodeGroupName="train-a-ng"),
    ]
    (finding,) = capacity_block_findings(rolled, old, new)
    assert (finding.code, finding.severity, finding.path, finding.line) == ("change.capacity-block-roll", "warning", ("pools", 1, "capacity"), 1)
    assert finding.message == (
        "pool train's Capacity Block node groups train-a, train-b roll (Kubernetes 1.31 -> 1.32) on Capacity Block cr-0123456789abcdef0, "
        "2026-12-01T11:30Z to 2026-12-08T11:30Z: EKS says to set a Capacity Block group's desired size to 0 before upgrading it, and "
        "doesn't say what it does to a group whose block is running; railyard leaves the desired size to EKS, so `pulumi up` rolls the "
        "group as it stands"
    )
    assert finding.hint == (
        "outside the block's window the groups have no nodes and the roll only moves their template: apply as is; while it runs, "
        'hold the pool (pools[1].kubernetes_version: "1.31") until the block ends and drop the hold then; or drain first: for G in '
        "train-b-ng train-a-ng: `aws eks update-nodegroup-config --cluster-name prod --nodegroup-name $G --scaling-config "
        "desiredSize=0`, wait until their nodes are gone, `pulumi up`, then set desiredSize back to each group's share (jobs on the "
        "block stop meanwhile)"
    )
    assert finding.certificate == {"pool": "train"}


def test_a_template_roll_says_so_offers_no_hold_and_reads_a_window_online_or_a_group_of_blocks():
    old, new = _sides(_block())
    unnamed = {"capacityType": "CAPACITY_BLOCK", "labels": {"railyard.dev/pool": "train"}}
    rolled = group("train-a", "update", unnamed, unnamed, {"launchTemplate.version": "update"})
    (finding,) = capacity_block_findings([rolled], old, new)
    assert "roll (a new launch template version) on Capacity Block cr-0123456789abcdef0 (window read online): " in finding.message
    assert finding.hint == (
        "outside the block's window the groups have no nodes and the roll only moves their template: apply as is; while it runs, "
        "drain first: for G in train-a: `aws eks update-nodegroup-config --cluster-name <cluster> --nodegroup-name $G "
        "--scaling-config desiredSize=0`, wait until their nodes are gone, `pulumi up`, then set desiredSize back to each group's "
        "share (jobs on the block stop meanwhile)"
    )
    only_start = _sides(_block().model_copy(update={"start": START}))[1]  # half a window (validation refuses it) reads online
    assert "(window read online)" in capacity_block_findings([rolled], old, only_start)[0].message
    grouped = ReservationGroup.model_validate({"kind": "reservation_group", "reservation_ids": ["cr-0123456789abcdef0"], "capacity_blocks": True})
    old, new = _sides(grouped)
    assert " on its Capacity Blocks (a reservation group): " in capacity_block_findings([rolled], old, new)[0].message


def test_a_version_unchanged_on_the_blueprint_reads_as_a_template_roll_even_with_a_version_input():
    old, new = _sides(_block())
    (finding,) = capacity_block_findings([_roll({"version": "update"})], old, new)
    assert "roll (a new launch template version) on" in finding.message
    assert 'hold the pool (pools[1].kubernetes_version: "1.31")' in finding.hint  # the version input moves: a hold is offered


def test_each_pool_gets_one_warning_in_name_order_and_a_pool_the_new_side_lacks_none():
    pools = (pool("zeta", capacity=_block()), pool("alpha", capacity=_block()))
    old, new = side(blueprint(*pools)), side(blueprint(*pools))
    rolled = [
        _roll({"launchTemplate": "update"}, name=name, labels={"railyard.dev/pool": label})
        for name, label in (("z-a", "zeta"), ("a-a", "alpha"), ("z-b", "zeta"), ("g-a", "gone"))
    ]
    findings = capacity_block_findings(rolled, old, new)
    assert [(finding.certificate["pool"], finding.path) for finding in findings] == [
        ("alpha", ("pools", 1, "capacity")),
        ("zeta", ("pools", 0, "capacity")),
    ]
    assert "node groups z-a, z-b roll" in findings[1].message


def test_a_side_that_did_not_load_or_no_roll_gives_nothing():
    old, new = _sides(_block())
    rolled = [_roll({"launchTemplate": "update"})]
    assert capacity_block_findings(rolled, side(None), new) == []
    assert capacity_block_findings(rolled, old, side(None)) == []
    assert capacity_block_findings([_roll({"scalingConfig": "update"})], old, new) == []


def test_the_explanation_gives_the_general_fix():
    assert EXPLAIN["change.capacity-block-roll"]["fix"].startswith("outside the block's window apply as is")


# --- bought_blocks.py ----------------------------------------------------------------------------------------------------------

FACTS = {"zone": "us-east-1a", "instance_type": "p5.48xlarge", "instance_count": 4, "start": START, "end": END}


def _bought(capacity_before, capacity_after, pool_type: str = "p5.48xlarge"):
    old = side(blueprint(pool("infer", capacity=OnDemand(kind="on_demand")), pool("train", capacity=capacity_before)))
    new = side(blueprint(pool("infer", capacity=OnDemand(kind="on_demand")), pool("train", capacity=capacity_after, instance_type=pool_type)))
    return bought_block_findings(old, new)


def test_a_bought_blocks_count_edited_is_refused_naming_the_reservation_and_the_edit():
    (finding,) = _bought(_block(**FACTS), _block(**{**FACTS, "instance_count": 8}))
    assert (finding.code, finding.severity, finding.path, finding.line) == ("change.block-resized", "error", ("pools", 1, "capacity"), 1)
    assert finding.message == (
        "pool train's Capacity Block cr-0123456789abcdef0 is bought and can't change, but this change edits it: instance_count 4 -> 8. "
        "EC2 sells a block for a fixed count of one type in one zone for one window, paid upfront, and has no call that resizes, "
        "moves or retimes it"
    )
    assert finding.hint == (
        "put back what EC2 holds for cr-0123456789abcdef0 (`railyard validate --online` compares them); for more instances or another "
        "window buy another Capacity Block and list both under a reservation_group with capacity_blocks: true "
        "(reservation_ids: [cr-0123456789abcdef0, <new block>])"
    )
    assert finding.certificate == {"reservation": "cr-0123456789abcdef0"}


def test_every_fact_edited_is_listed_in_order_with_times_in_utc():
    later = datetime(2026, 12, 2, 11, 30, tzinfo=UTC)
    edited = {
        "zone": "us-east-1b",
        "instance_type": "p5e.48xlarge",
        "instance_count": 2,
        "start": later,
        "end": datetime(2026, 12, 5, 11, 30, tzinfo=UTC),
    }
    (finding,) = _bought(_block(**FACTS), _block(**edited), pool_type="p5e.48xlarge")
    assert (
        "edits it: instance_count 4 -> 2; start 2026-12-01T11:30:00Z -> 2026-12-02T11:30:00Z; end 2026-12-08T11:30:00Z -> "
        "2026-12-05T11:30:00Z; zone us-east-1a -> us-east-1b; instance_type p5.48xlarge -> p5e.48xlarge. EC2 sells" in finding.message
    )


def test_an_end_moved_later_on_the_same_start_is_an_extension_and_passes_but_not_with_a_new_start():
    extended = datetime(2026, 12, 15, 11, 30, tzinfo=UTC)
    assert _bought(_block(**FACTS), _block(**{**FACTS, "end": extended})) == []
    later = datetime(2026, 12, 2, 11, 30, tzinfo=UTC)
    (finding,) = _bought(_block(**FACTS), _block(**{**FACTS, "start": later, "end": extended}))
    assert "start 2026-12-01T11:30:00Z -> 2026-12-02T11:30:00Z; end 2026-12-08T11:30:00Z -> 2026-12-15T11:30:00Z." in finding.message
    (earlier,) = _bought(_block(**FACTS), _block(**{**FACTS, "end": datetime(2026, 12, 7, 11, 30, tzinfo=UTC)}))
    assert "edits it: end 2026-12-08T11:30:00Z -> 2026-12-07T11:30:00Z." in earlier.message


def test_a_fact_unstated_on_either_side_is_no_edit_and_the_pools_type_stands_for_an_unstated_one():
    assert _bought(_block(**FACTS), _block()) == []
    assert _bought(_block(), _block(**FACTS)) == []
    (finding,) = _bought(_block(), _block(), pool_type="p5e.48xlarge")  # the pool's type is the block's
    assert "edits it: instance_type p5.48xlarge -> p5e.48xlarge." in finding.message


def test_another_reservation_an_offering_not_bought_and_other_capacity_are_not_held():
    other = CapacityBlock.model_validate({"kind": "capacity_block", "reservation_id": "cr-0fedcba987654321f", **FACTS})
    assert _bought(_block(**FACTS), other.model_copy(update={"instance_count": 9})) == []
    offering = CapacityBlock.model_validate({"kind": "capacity_block", "offering_id": "cb-0123456789abcdef0", **FACTS})
    assert _bought(offering, offering.model_copy(update={"instance_count": 9})) == []
    assert _bought(OnDemand(kind="on_demand"), OnDemand(kind="on_demand"), pool_type="p5e.48xlarge") == []


def test_a_group_of_the_same_blocks_is_held_to_the_same_rule_and_named_by_its_members():
    members = {"kind": "reservation_group", "reservation_ids": ["cr-0b00000000000000b", "cr-0a00000000000000a"], "capacity_blocks": True}
    before = ReservationGroup.model_validate({**members, "instance_count": 4})
    after = ReservationGroup.model_validate({**members, "instance_count": 6})
    (finding,) = _bought(before, after)
    assert finding.message.startswith(
        "pool train's reservation group of Capacity Blocks cr-0a00000000000000a+cr-0b00000000000000b is bought and can't change, "
        "but this change edits it: instance_count 4 -> 6."
    )
    assert "(reservation_ids: [cr-0a00000000000000a, cr-0b00000000000000b, <new block>])" in finding.hint
    plain = ReservationGroup.model_validate({**members, "capacity_blocks": False, "instance_count": 4})
    assert _bought(plain, plain.model_copy(update={"instance_count": 6})) == []


def test_a_group_named_by_its_arn_is_held_by_it():
    arn = {"kind": "reservation_group", "group_arn": "arn:aws:resource-groups:us-east-1:123456789012:group/blocks", "capacity_blocks": True}
    (finding,) = _bought(ReservationGroup.model_validate({**arn, "instance_count": 4}), ReservationGroup.model_validate({**arn, "instance_count": 2}))
    assert "Capacity Blocks arn:aws:resource-groups:us-east-1:123456789012:group/blocks is bought" in finding.message


def test_the_first_pool_on_a_block_speaks_for_it_and_findings_follow_the_new_sides_pools():
    shared = _block(**FACTS)
    edited = _block(**{**FACTS, "instance_count": 2})
    second = CapacityBlock.model_validate({"kind": "capacity_block", "reservation_id": "cr-0fedcba987654321f", **FACTS})
    old = side(blueprint(pool("a", capacity=second), pool("b", capacity=shared), pool("c", capacity=shared)))
    new = side(blueprint(pool("a", capacity=second.model_copy(update={"instance_count": 1})), pool("b", capacity=edited), pool("c", capacity=edited)))
    assert [finding.path for finding in bought_block_findings(old, new)] == [("pools", 0, "capacity"), ("pools", 1, "capacity")]


def test_a_side_that_did_not_load_is_not_judged():
    new = side(blueprint(pool("train", capacity=_block(**FACTS))))
    assert bought_block_findings(side(None), new) == []
    assert bought_block_findings(new, side(None)) == []


def test_a_group_of_offerings_not_bought_yet_is_not_held():
    offerings = {"kind": "reservation_group", "offering_ids": ["cb-0123456789abcdef0"], "capacity_blocks": True}
    before = ReservationGroup.model_validate({**offerings, "instance_count": 4})
    assert _bought(before, before.model_copy(update={"instance_count": 6})) == []


def test_an_extension_beside_another_edit_still_lists_the_edits_after_the_end():
    extended = {**FACTS, "end": datetime(2026, 12, 15, 11, 30, tzinfo=UTC), "zone": "us-east-1b", "instance_type": "p5e.48xlarge"}
    (finding,) = _bought(_block(**FACTS), _block(**extended), pool_type="p5e.48xlarge")
    assert "edits it: zone us-east-1a -> us-east-1b; instance_type p5.48xlarge -> p5e.48xlarge. EC2 sells" in finding.message


def test_findings_follow_the_pools_order_not_their_names_past_blocks_not_held_or_not_edited():
    kept = CapacityBlock.model_validate({"kind": "capacity_block", "reservation_id": "cr-0fedcba987654321f", **FACTS})
    added = CapacityBlock.model_validate({"kind": "capacity_block", "reservation_id": "cr-0aaaaaaaaaaaaaaaa", **FACTS})
    offering = CapacityBlock.model_validate({"kind": "capacity_block", "offering_id": "cb-0123456789abcdef0", **FACTS})
    edited = _block(**{**FACTS, "instance_count": 2})
    old = side(blueprint(pool("o", capacity=offering), pool("k", capacity=kept), pool("z", capacity=_block(**FACTS)), pool("a", capacity=kept)))
    new_pools = (pool("o", capacity=offering), pool("n", capacity=added), pool("k", capacity=kept), pool("z", capacity=edited))
    findings = bought_block_findings(old, side(blueprint(*new_pools)))
    assert [(finding.path, finding.certificate) for finding in findings] == [(("pools", 3, "capacity"), {"reservation": "cr-0123456789abcdef0"})]
    second = CapacityBlock.model_validate({"kind": "capacity_block", "reservation_id": "cr-0bbbbbbbbbbbbbbbb", **FACTS})
    old = side(blueprint(pool("z", capacity=_block(**FACTS)), pool("a", capacity=second)))
    new = side(blueprint(pool("z", capacity=edited), pool("a", capacity=second.model_copy(update={"instance_count": 1}))))
    assert [finding.message.split("'")[0] for finding in bought_block_findings(old, new)] == ["pool z", "pool a"]
