"""`railyard diff` shows a Capacity Block's window change in dollars, and an upfront that becomes unknown as unknown.

p5-capacity-block's block `train` holds 64 p5.48xlarge from 2026-12-01T11:30Z to 2026-12-15T11:30Z (336 h) at the
table's $41.528 per instance-hour: $893,018.11 upfront. Moving its end to 2026-12-29T11:30Z (672 h) doubles that,
and moves nothing as planned: the same nodes run, at the same rate, while the block runs.
"""

from __future__ import annotations

from pathlib import Path

from railyard.change.diff import diff, side_of
from railyard.change.render import STILL, markdown_report, text_report
from tests.preview.conftest import AT
from tests.yaml_text import edited_copy

P5 = Path(__file__).resolve().parents[2] / "blueprints" / "examples" / "p5-capacity-block.yaml"
END_14 = "end: 2026-12-15T11:30:00Z"
END_28 = "end: 2026-12-29T11:30:00Z"
WINDOW = "      start: 2026-12-01T11:30:00Z\n      end: 2026-12-15T11:30:00Z\n"
UPFRONT_14 = round(64 * 41.528 * 336, 2)  # 893,018.11


def _sides(tmp_path: Path, *edits: tuple[str, str]) -> tuple[Path, Path]:
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    return edited_copy(P5, tmp_path / "old"), edited_copy(P5, tmp_path / "new", *edits)


def test_moving_a_blocks_end_from_14_to_28_days_shows_its_upfront_in_the_impact_table(tmp_path):
    result = diff(*(side_of(str(path)) for path in _sides(tmp_path, (END_14, END_28))), at=AT)
    assert UPFRONT_14 == 893_018.11 and result.cost is not None
    assert [delta.key for delta in result.cost.deltas] == ["pool:train"]
    row = "+893,018.11 USD upfront: pool train: p5.48xlarge, changed"
    text, markdown = text_report(result), markdown_report(result)
    assert f"cost: pool:train  {row}" in text and STILL not in text
    assert f"| cost: pool:train | {row} |" in markdown
    line = result.as_json()["cost"]["lines"][0]
    assert line == {
        "key": "pool:train",
        "item": "pool train: p5.48xlarge",
        "what": "changed",
        "moved": ["upfront_usd"],
        "hourly_usd": {"before": 2657.79, "after": 2657.79, "change": 0.0},
        "upfront_usd": {"before": UPFRONT_14, "after": 2 * UPFRONT_14, "change": UPFRONT_14},
    }
    assert result.as_json()["cost"]["totals"]["upfront_usd"] == {"before": UPFRONT_14, "after": 2 * UPFRONT_14, "change": UPFRONT_14}
    assert result.as_json()["cost"]["totals"]["hourly_usd"]["change"] == 0.0


def test_a_window_removed_makes_the_upfront_change_unknown_never_a_saving(tmp_path):
    result = diff(*(side_of(str(path)) for path in _sides(tmp_path, (WINDOW, ""))), at=AT)
    assert result.cost is not None
    train = next(delta for delta in result.cost.deltas if delta.key == "pool:train")
    assert train.moved() == ("upfront_usd",) and train.figures[1].change is None
    assert "cost: pool:train  USD upfront change unknown, a side's price is missing: pool train: p5.48xlarge, changed" in text_report(result)
    totals = result.as_json()["cost"]["totals"]
    # The only block's upfront is unknown on the new side: the total is unknown there, not $0 (a saving of $893,018.11).
    assert totals["upfront_usd"] == {"before": UPFRONT_14, "after": None, "change": None}
    assert totals["unpriced_lines"] == {"before": 1, "after": 2, "change": 1}


def test_a_block_whose_window_stays_moves_no_cost_and_the_impact_table_says_so(tmp_path):
    result = diff(*(side_of(str(path)) for path in _sides(tmp_path)), at=AT)
    assert result.cost is not None and result.cost.deltas == ()
    assert f"  {STILL}" in text_report(result)
    assert (
        STILL == "at the planned size nothing changes: no node added, removed, rolled or replaced, no data lost, no cost moved as planned or upfront"
    )
