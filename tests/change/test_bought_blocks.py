"""`diff` refuses to resize, move or retime a bought Capacity Block on the same reservation, and lets an extension through.

p5-capacity-block holds `train` on block cr-0a1b2c3d4e5f60718: 64 p5.48xlarge in us-east-1a, 2026-12-01T11:30Z to
2026-12-15T11:30Z (14 days). EC2 can't modify a Capacity Block (CancelCapacityReservation's documentation in
botocore's EC2 model); the one change it sells is a later end (PurchaseCapacityBlockExtension).
"""

from __future__ import annotations

from pathlib import Path

from railyard.change.bought_blocks import bought_block_findings
from railyard.change.diff import diff, side_of
from railyard.pipeline import validate
from tests.preview.conftest import AT
from tests.yaml_text import edited_copy

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
P5 = EXAMPLES / "p5-capacity-block.yaml"
BLOCK = "cr-0a1b2c3d4e5f60718"
SMALLER = [("      instance_count: 64\n", "      instance_count: 48\n"), ("    nodes: 64\n", "    nodes: 48\n")]
LATER_START = [("      start: 2026-12-01T11:30:00Z\n", "      start: 2026-12-02T11:30:00Z\n")]
EARLIER_END = [("      end: 2026-12-15T11:30:00Z\n", "      end: 2026-12-14T11:30:00Z\n")]
EXTENDED = [("      end: 2026-12-15T11:30:00Z\n", "      end: 2026-12-22T11:30:00Z\n")]
UNSTATED_COUNT = [("      instance_count: 64\n", "")]


def _diff(tmp_path: Path, old_edits, new_edits):
    (tmp_path / "old").mkdir(parents=True)
    (tmp_path / "new").mkdir()
    old, new = edited_copy(P5, tmp_path / "old", *old_edits), edited_copy(P5, tmp_path / "new", *new_edits)
    return diff(side_of(str(old)), side_of(str(new)), at=AT)


def _resized(result) -> list:
    return [finding for finding in result.findings if finding.code == "change.block-resized"]


def test_a_block_whose_instance_count_is_edited_on_the_same_reservation_is_an_error_naming_it_with_the_fix(tmp_path):
    result = _diff(tmp_path, [], SMALLER)
    (found,) = _resized(result)
    assert (found.severity, found.path, found.certificate) == ("error", ("pools", 0, "capacity"), {"reservation": BLOCK})
    assert found.message == (
        f"pool train's Capacity Block {BLOCK} is bought and can't change, but this change edits it: instance_count 64 -> 48. EC2 sells "
        "a block for a fixed count of one type in one zone for one window, paid upfront, and has no call that resizes, moves or retimes it"
    )
    assert found.hint == (
        f"put back what EC2 holds for {BLOCK} (`railyard validate --online` compares them); for more instances or another window buy another "
        f"Capacity Block and list both under a reservation_group with capacity_blocks: true (reservation_ids: [{BLOCK}, <new block>])"
    )
    assert not result.ok


def test_a_later_start_and_an_earlier_end_are_each_an_error_but_a_later_end_is_an_extension_ec2_sells(tmp_path):
    (started,) = _resized(_diff(tmp_path / "start", [], LATER_START))
    assert "start 2026-12-01T11:30:00Z -> 2026-12-02T11:30:00Z" in started.message
    (ended,) = _resized(_diff(tmp_path / "end", [], EARLIER_END))
    assert "end 2026-12-15T11:30:00Z -> 2026-12-14T11:30:00Z" in ended.message
    assert _resized(_diff(tmp_path / "extended", [], EXTENDED)) == []


def test_a_fact_one_side_leaves_to_be_read_online_is_not_an_edit_and_another_block_is_not_this_one(tmp_path):
    assert _resized(_diff(tmp_path / "unstated", UNSTATED_COUNT, SMALLER)) == []
    another = [*SMALLER, (f"      reservation_id: {BLOCK}\n", "      reservation_id: cr-0a1b2c3d4e5f60799\n")]
    assert _resized(_diff(tmp_path / "another", [], another)) == []


HYPERPOD = EXAMPLES / "hyperpod-eks-odcr.yaml"
BLOCK_GROUP = (
    "      placement_group: hyperpod-p5-cpg   # CreateCapacityReservation --placement-group-arn ...:placement-group/hyperpod-p5-cpg\n",
    "      capacity_blocks: true\n",
)


def test_a_group_of_the_same_blocks_whose_count_is_edited_is_an_error_naming_its_members(tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old = edited_copy(HYPERPOD, tmp_path / "old", BLOCK_GROUP)
    new = edited_copy(
        HYPERPOD, tmp_path / "new", BLOCK_GROUP, ("      instance_count: 16\n", "      instance_count: 12\n"), ("    nodes: 16\n", "    nodes: 12\n")
    )
    (found,) = _resized(diff(side_of(str(old)), side_of(str(new)), at=AT))
    members = "cr-0a9b8c7d6e5f40001+cr-0a9b8c7d6e5f40002"
    assert found.certificate == {"reservation": members}
    assert found.message.startswith(f"pool accelerated's reservation group of Capacity Blocks {members} is bought and can't change, but this")
    assert "instance_count 16 -> 12" in found.message
    assert found.hint.endswith("(reservation_ids: [cr-0a9b8c7d6e5f40001, cr-0a9b8c7d6e5f40002, <new block>])")


def test_an_offering_not_bought_yet_is_no_fact_of_the_account_so_its_count_may_change(tmp_path):
    # `railyard plan` writes a block as `offering_id: cb-...` until it is bought; resizing that is a new choice, not an edit.
    unbought = (f"      reservation_id: {BLOCK}\n", "      offering_id: cb-0123456789abcdef0\n")
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old = edited_copy(P5, tmp_path / "old", unbought)
    new = edited_copy(P5, tmp_path / "new", unbought, *SMALLER)
    before, after = validate(str(old), at=AT), validate(str(new), at=AT)
    assert before.ok and after.ok
    assert bought_block_findings(before, after) == []
    # The same edit on the bought block is the error.
    (tmp_path / "bought").mkdir()
    resized = bought_block_findings(validate(str(P5), at=AT), validate(str(edited_copy(P5, tmp_path / "bought", *SMALLER)), at=AT))
    assert [finding.code for finding in resized] == ["change.block-resized"]
