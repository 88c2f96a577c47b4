"""`diff` warns where a node group's roll goes where the plan can't follow: a held group's template, a running Capacity Block.

The probes are the deploy audit's (deploy-realism-v3 findings 5 and 6):
p5-capacity-block with its `train` pool held at 1.34 under the 1.35 cluster
and its root volume grown (a launch-template change and nothing else), and
p5-capacity-block upgraded from 1.34 to 1.35.
"""

from __future__ import annotations

from pathlib import Path

from railyard.change.diff import diff, side_of
from tests.preview.conftest import AT
from tests.yaml_text import edited_copy

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
P5 = EXAMPLES / "p5-capacity-block.yaml"
DEV = EXAMPLES / "dev-g6e.yaml"
HOLD = ("    role: training\n", '    role: training\n    kubernetes_version: "1.34"\n')
BIGGER_ROOT = ("    fabric: ultra\n", "    fabric: ultra\n    root_volume: {size_gib: 600}\n")
CLUSTER_1_34 = ('  version: "1.35"\n', '  version: "1.34"\n')


def _diff(old: Path, new: Path):
    return diff(side_of(str(old)), side_of(str(new)), at=AT)


def _coded(result, code: str) -> list:
    return [finding for finding in result.findings if finding.code == code]


def _sides(tmp_path: Path, source: Path, old_edits, new_edits) -> tuple[Path, Path]:
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    return edited_copy(source, tmp_path / "old", *old_edits), edited_copy(source, tmp_path / "new", *new_edits)


def test_a_held_groups_launch_template_change_warns_that_the_hold_may_end_naming_the_group(tmp_path):
    old, new = _sides(tmp_path, P5, [HOLD], [HOLD, BIGGER_ROOT])
    result = _diff(old, new)
    (held,) = _coded(result, "change.held-template")
    assert (held.severity, held.path, held.certificate) == (
        "warning",
        ("pools", 0, "kubernetes_version"),
        {"node_group": "p5-train-prod-train-use1a"},
    )
    assert held.message.startswith("node group p5-train-prod-train-use1a is held at Kubernetes 1.34 (the cluster runs 1.35)")
    assert "sends UpdateNodegroupVersion without `version`" in held.message and "which EKS refuses" in held.message
    assert "aws eks describe-nodegroup --cluster-name p5-train-prod --nodegroup-name train-use1a --query nodegroup.version" in held.hint
    assert "if it says 1.35, the hold has ended, so drop pools[0].kubernetes_version" in held.hint
    assert result.ok  # a warning: whether EKS ends the hold is not settled


def test_dropping_the_hold_with_the_template_change_sends_the_version_and_draws_no_held_warning(tmp_path):
    old, new = _sides(tmp_path, P5, [HOLD], [BIGGER_ROOT])
    result = _diff(old, new)
    assert _coded(result, "change.held-template") == []
    (group,) = [change for change in result.changes if change.name == "p5-train-prod-train-use1a"]
    assert ("version", "1.34", "1.35") in {(item.path, item.old, item.new) for item in group.inputs}


def test_an_unheld_groups_template_change_draws_no_held_warning(tmp_path):
    old, new = _sides(tmp_path, P5, [], [BIGGER_ROOT])
    assert _coded(_diff(old, new), "change.held-template") == []


def test_an_upgrade_of_a_capacity_block_pool_warns_with_its_groups_block_window_and_steps(tmp_path):
    old, new = _sides(tmp_path, P5, [CLUSTER_1_34], [])
    result = _diff(old, new)
    (block,) = _coded(result, "change.capacity-block-roll")
    assert (block.severity, block.path, block.certificate) == ("warning", ("pools", 0, "capacity"), {"pool": "train"})
    assert block.message.startswith(
        "pool train's Capacity Block node groups p5-train-prod-train-use1a roll (Kubernetes 1.34 -> 1.35) on Capacity Block "
        "cr-0a1b2c3d4e5f60718, 2026-12-01T11:30Z to 2026-12-15T11:30Z: EKS says to set a Capacity Block group's desired size to 0"
    )
    assert 'hold the pool (pools[0].kubernetes_version: "1.34") until the block ends' in block.hint
    assert (
        "`aws eks update-nodegroup-config --cluster-name p5-train-prod --nodegroup-name $G --scaling-config desiredSize=0`, "
        "wait until their nodes are gone, `pulumi up`, then set desiredSize back"
    ) in block.hint
    (upgrade,) = [impact for impact in result.impacts if impact.kind == "upgrade"]
    rolls = [label for phase in upgrade.figures["phases"] for label in phase if "train-use1a" in label]
    assert rolls == ["node group train-use1a rolls (a Capacity Block group: desired size 0 first, see change.capacity-block-roll)"]


def test_a_capacity_block_groups_template_change_warns_with_the_drain_steps_only(tmp_path):
    old, new = _sides(tmp_path, P5, [], [BIGGER_ROOT])
    (block,) = _coded(_diff(old, new), "change.capacity-block-roll")
    assert "roll (a new launch template version)" in block.message
    assert "hold the pool" not in block.hint and "drain first" in block.hint


def test_an_on_demand_upgrade_draws_no_capacity_block_warning_and_plain_roll_labels(tmp_path):
    old, new = _sides(tmp_path, DEV, [CLUSTER_1_34], [])
    result = _diff(old, new)
    assert _coded(result, "change.capacity-block-roll") == []
    (upgrade,) = [impact for impact in result.impacts if impact.kind == "upgrade"]
    labels = [label for phase in upgrade.figures["phases"] for label in phase if label.startswith("node group")]
    assert labels and all(label.endswith(" rolls") for label in labels)
