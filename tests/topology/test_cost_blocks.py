"""A Capacity Block is priced however it is held: one block, a reservation group of blocks, a spare on a block.

hyperpod-eks-odcr's `accelerated` pool (16 p5.48xlarge in us-west-2, two reservations of 8) is made a group of
Capacity Blocks (`capacity_blocks: true`, no placement group: blocks are bought without one); the table's
indicative us-west-2 rate for p5.48xlarge is $41.528 per instance-hour. p5-capacity-block's `train` block
(64 p5.48xlarge, 336 h) is shared with a spare pool of 4 on the same block.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from blueprints.catalog.prices import load_prices
from railyard.change.diff import diff, side_of
from railyard.pipeline import validate
from tests.preview.conftest import AT
from tests.yaml_text import edited_copy

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
HYPERPOD = EXAMPLES / "hyperpod-eks-odcr.yaml"
P5 = EXAMPLES / "p5-capacity-block.yaml"
GROUP = [
    (
        "      placement_group: hyperpod-p5-cpg   # CreateCapacityReservation --placement-group-arn ...:placement-group/hyperpod-p5-cpg\n",
        "      capacity_blocks: true\n",
    )
]
MEMBERS = "cr-0a9b8c7d6e5f40001+cr-0a9b8c7d6e5f40002"
RATE = load_prices().capacity_block("us-west-2", "p5.48xlarge")
ONE_BLOCK = [
    *GROUP,
    ("      reservation_ids: [cr-0a9b8c7d6e5f40001, cr-0a9b8c7d6e5f40002]   # 8 instances each\n", "      reservation_id: cr-0a9b8c7d6e5f40001\n"),
    ("      kind: reservation_group\n", "      kind: capacity_block\n"),
    (
        "      instance_count: 16\n      capacity_blocks: true\n",
        "      instance_count: 8\n      start: 2027-01-04T11:30:00Z\n      end: 2027-01-18T11:30:00Z\n",
    ),
    ("    nodes: 16\n", "    nodes: 8\n"),
]


def _group(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    return edited_copy(HYPERPOD, tmp_path, *GROUP, *edits)


def _pool(result, key: str = "pool:accelerated"):
    return {line.key: line for line in result.cost.lines}[key]


def test_a_reservation_group_of_blocks_is_priced_at_the_block_rate_with_its_upfront_unknown_never_zero(tmp_path):
    result = validate(str(_group(tmp_path)))
    line = _pool(result)
    assert RATE is not None and RATE.usd == 41.528
    assert (line.kind, line.hourly_usd, line.upfront_usd) == ("capacity_block", pytest.approx(16 * 41.528), None)
    assert line.basis.startswith(f"16 in the reservation group of Capacity Blocks {MEMBERS} × $41.528/instance-hour (indicative: the rate of")
    assert line.upfront_unknown == (
        "a reservation group states no window (each of its blocks has its own, which EC2 holds), so what its blocks cost upfront is unknown"
    )
    assert line.hint == "declare cost.capacity_block_quotes.accelerated.total_usd (the sum AWS quoted for the group's blocks)"
    cost = result.cost.as_json()
    assert cost["upfront_usd"] is None and _json_line(cost)["upfront_usd"] is None
    assert result.cost.summary()[2] == "upfront: unknown for Capacity Blocks; leaves out pool accelerated: p5.48xlarge (upfront unknown)"
    assert [item.key for item in result.cost.left_out()["monthly_usd"]][0] == "pool:accelerated"  # a block is not in the month


def _json_line(cost: dict) -> dict:
    return next(line for line in cost["lines"] if line["key"] == "pool:accelerated")


def test_a_quote_keyed_by_a_group_of_blocks_prices_it_and_is_not_declared_unused(tmp_path):
    quoted = ("kubernetes:\n", "cost:\n  capacity_block_quotes:\n    accelerated: {total_usd: 223254.52}\nkubernetes:\n")
    result = validate(str(_group(tmp_path / "total", quoted)))
    line = _pool(result)
    assert (line.upfront_usd, line.hourly_usd) == (223254.52, None)
    assert line.unknown == "a reservation group states no window, so the quoted total's hourly rate is unknown"
    assert not [finding for finding in result.findings if finding.code == "cost.declared-unused"]
    rate = ("kubernetes:\n", "cost:\n  capacity_block_quotes:\n    accelerated: {usd_per_instance_hour: 40}\nkubernetes:\n")
    line = _pool(validate(str(_group(tmp_path / "rate", rate))))
    assert (line.hourly_usd, line.upfront_usd, line.source) == (640, None, "declared in the blueprint (cost.capacity_block_quotes.accelerated)")


def test_the_diff_from_one_block_to_a_group_of_it_and_another_never_shows_the_upfront_removed(tmp_path):
    (tmp_path / "old").mkdir()
    old = edited_copy(HYPERPOD, tmp_path / "old", *ONE_BLOCK)
    one_block = _pool(validate(str(old)))
    assert one_block.upfront_usd == pytest.approx(8 * 41.528 * 336)
    result = diff(side_of(str(old)), side_of(str(_group(tmp_path / "new"))), at=AT)
    (delta,) = [delta for delta in result.cost.deltas if delta.key == "pool:accelerated"]
    upfront = delta.figures[1]
    assert (upfront.before, upfront.after, upfront.change) == (pytest.approx(one_block.upfront_usd), None, None)
    quote = ("kubernetes:\n", f"cost:\n  capacity_block_quotes:\n    accelerated: {{total_usd: {2 * one_block.upfront_usd:.2f}}}\nkubernetes:\n")
    result = diff(side_of(str(old)), side_of(str(_group(tmp_path / "quoted", quote))), at=AT)
    (delta,) = [delta for delta in result.cost.deltas if delta.key == "pool:accelerated"]
    assert delta.figures[1].change == pytest.approx(one_block.upfront_usd, abs=0.01)  # the second block's upfront, added


SPARE = """  - name: spare
    instance_type: p5.48xlarge
    role: training
    standby_for: train
    nodes: 4
    capacity:
      kind: capacity_block
      reservation_id: cr-0a1b2c3d4e5f60718
    placement:
      domains: [use1a]
    fabric: ultra
storage:
  - kind: fsx_lustre
"""


def test_a_spare_on_its_served_pools_block_is_priced_once_on_the_served_pools_line(tmp_path):
    path = edited_copy(P5, tmp_path, ("    nodes: 64\n", "    nodes: 60\n"), ("storage:\n  - kind: fsx_lustre\n", SPARE))
    result = validate(str(path))
    train, spare = _pool(result, "pool:train"), _pool(result, "pool:spare")
    assert (train.hourly_usd, train.upfront_usd) == (pytest.approx(64 * 41.528), pytest.approx(64 * 41.528 * 336))
    assert (spare.kind, spare.hourly_usd, spare.upfront_usd) == ("capacity_block", 0.0, 0.0)
    assert spare.basis == "on Capacity Block cr-0a1b2c3d4e5f60718 with pool train, priced once on pool train's line"
    assert result.cost.upfront_usd == pytest.approx(64 * 41.528 * 336)
    (tmp_path / "quoted").mkdir()
    quoted = edited_copy(
        path, tmp_path / "quoted", ("kubernetes:", "cost:\n  capacity_block_quotes:\n    spare: {usd_per_instance_hour: 40}\nkubernetes:")
    )
    train = _pool(validate(str(quoted)), "pool:train")
    assert train.hourly_usd == pytest.approx(64 * 40)  # a block may be quoted under any pool on it


GROUP_SPARE = """  - name: spare
    instance_type: p5.48xlarge
    role: training
    standby_for: accelerated
    nodes: 2
    capacity:
      kind: reservation_group
      reservation_ids: [cr-0a9b8c7d6e5f40001, cr-0a9b8c7d6e5f40002]
      capacity_blocks: true
    placement:
      domains: [usw2a]
    fabric: efa
storage:
  - kind: fsx_lustre
"""


def test_a_spare_on_a_group_whose_upfront_is_unknown_leaves_the_total_unknown_not_zero(tmp_path):
    result = validate(str(_group(tmp_path, ("    nodes: 16\n", "    nodes: 14\n"), ("storage:\n  - kind: fsx_lustre\n", GROUP_SPARE))))
    spare = _pool(result, "pool:spare")
    assert (spare.hourly_usd, spare.upfront_usd, spare.shared_with) == (0.0, 0.0, "accelerated")
    assert _pool(result).hourly_usd == pytest.approx(16 * 41.528)  # the group's 16, not the 14 nodes, and once
    assert result.cost.upfront_usd is None and result.cost.as_json()["upfront_usd"] is None
    left_out = result.cost.left_out()
    assert [item.key for item in left_out["upfront_usd"]] == ["pool:accelerated"]
    assert "pool:spare" not in [item.key for item in left_out["monthly_usd"]]


def test_a_block_quoted_under_both_pools_on_it_uses_the_first_and_warns_on_the_second(tmp_path):
    path = edited_copy(P5, tmp_path, ("    nodes: 64\n", "    nodes: 60\n"), ("storage:\n  - kind: fsx_lustre\n", SPARE))
    quotes = "cost:\n  capacity_block_quotes:\n    spare: {usd_per_instance_hour: 40}\n    train: {usd_per_instance_hour: 39}\nkubernetes:"
    (tmp_path / "both").mkdir()
    result = validate(str(edited_copy(path, tmp_path / "both", ("kubernetes:", quotes))))
    assert _pool(result, "pool:train").hourly_usd == pytest.approx(64 * 39)  # the served pool's quote is looked up first
    (unused,) = [finding for finding in result.findings if finding.code == "cost.declared-unused"]
    assert (unused.severity, unused.path) == ("warning", ("cost", "capacity_block_quotes", "spare"))
    assert unused.message == (
        "cost.capacity_block_quotes quotes pool 'spare', whose Capacity Block cr-0a1b2c3d4e5f60718 is quoted already under 'train': "
        "a block is priced once, with its first quote"
    )
