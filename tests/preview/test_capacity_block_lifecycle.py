"""A Capacity Block node group follows EKS's documented lifecycle, whenever `pulumi up` runs.

EKS user guide, "Create a managed node group with Capacity Blocks for ML":
created before the block is active, the group's desired size must be 0; EKS
scales it to 0 forty minutes before the block ends with a scheduled action
of its own, and upgrades need desired 0; EKS does not scale it up when the
block starts. So the minimum is always 0, the desired size comes from where
`now` falls in the window, a scheduled action of railyard's scales the group
up at the start, and Pulumi ignores the desired size after creation.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from railyard.mocked import run_preview
from tests.preview.conftest import ROOT, preview_of

EXAMPLE = str(ROOT / "blueprints" / "examples" / "p5-capacity-block.yaml")  # block: 2026-12-01T11:30Z to 2026-12-15T11:30Z
SCHEDULE = "aws:autoscaling/schedule:Schedule"


def _at(*when: int) -> datetime:
    return datetime(*when, tzinfo=UTC)


def _group(result):
    return result.named("p5-train-prod-train-use1a")


@pytest.mark.parametrize(
    ("at", "desired", "scheduled"),
    [
        (_at(2026, 11, 24), 0, True),  # before the block: nothing can launch yet
        (_at(2026, 12, 1, 11, 29), 0, True),  # a minute before it starts
        (_at(2026, 12, 1, 11, 30), 64, False),  # it has started
        (_at(2026, 12, 15, 10, 49), 64, False),  # 41 minutes before the end
        (_at(2026, 12, 15, 10, 50), 0, False),  # EKS's scale-down, 40 minutes before the end
        (_at(2027, 1, 1), 0, False),  # long over
    ],
)
def test_desired_size_and_scale_up_come_from_the_window(at, desired, scheduled):
    result = run_preview(EXAMPLE, project_dir=ROOT, at=at)
    scaling = _group(result).inputs["scalingConfig"]
    assert (scaling["minSize"], scaling["desiredSize"], scaling["maxSize"]) == (0, desired, 64)
    schedules = result.of_type(SCHEDULE)
    assert bool(schedules) == scheduled
    if scheduled:
        (action,) = schedules
        assert (action.inputs["startTime"], action.inputs["desiredCapacity"], action.inputs["minSize"], action.inputs["maxSize"]) == (
            "2026-12-01T11:30:00Z",
            64,
            0,
            64,
        )
        assert action.inputs["autoscalingGroupName"].startswith("eks-train-use1a-")


def test_pulumi_leaves_the_desired_size_to_eks():
    result = preview_of("p5-capacity-block")  # the session's preview of the example, at 2026-11-24
    assert _group(result).ignore_changes == ("scalingConfig.desiredSize",)
    system = result.named("p5-train-prod-system-all-zones")
    assert system.ignore_changes == () and system.inputs["scalingConfig"]["minSize"] == 2


def test_on_demand_groups_are_unaffected_by_the_clock():
    for at in (_at(2026, 11, 24), _at(2027, 1, 1)):
        result = run_preview(None, "dev", ROOT, at=at)
        scaling = result.named("p5-train-dev-train-use1a").inputs["scalingConfig"]
        assert (scaling["minSize"], scaling["desiredSize"], scaling["maxSize"]) == (2, 2, 2)
        assert result.of_type(SCHEDULE) == []


def test_a_block_without_its_window_is_sized_as_if_it_runs(tmp_path):
    # No window to place `now` in: the group starts at the pool's size and nothing is scheduled. The info
    # finding says so, and `validate --online` warns when the account's block hasn't started.
    text = Path(EXAMPLE).read_text().replace("      start: 2026-12-01T11:30:00Z\n      end: 2026-12-15T11:30:00Z\n", "")
    bare = tmp_path / "p5-capacity-block.yaml"
    bare.write_text(text)
    result = run_preview(str(bare), project_dir=ROOT, at=_at(2026, 11, 24))
    scaling = _group(result).inputs["scalingConfig"]
    assert (scaling["minSize"], scaling["desiredSize"], scaling["maxSize"]) == (0, 64, 64)
    assert result.of_type(SCHEDULE) == []
