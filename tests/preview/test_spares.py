"""Hot spares as emitted: one cluster placement group for a pool and its spares, and what opting out changes.

The blueprint is `tests/topology/cluster/fixtures/spares.yaml` (its header draws it): `train`, 12 p5 on demand,
and `backup`, 2 spares standing by for it, both in zone use1a on AWS's EFA network.
"""

from __future__ import annotations

import pytest

from railyard.change.diff import diff, side_of
from railyard.mocked import run_preview
from tests.preview.conftest import AT, ROOT
from tests.yaml_text import edited_copy

FIXTURE = ROOT / "tests" / "topology" / "cluster" / "fixtures" / "spares.yaml"
PG = "aws:ec2/placementGroup:PlacementGroup"
SPARE_PLACEMENT = "      domains: [use1a]\n      spread: blocks\n    fabric: efa\n    standby_for"
APART = (SPARE_PLACEMENT, SPARE_PLACEMENT.replace("spread: blocks\n", "spread: blocks\n      share_with_served: false\n"))
KARPENTER = ("    nodes: 2\n", "    nodes: {min: 0, max: 2}\n    provisioner: karpenter\n")


@pytest.fixture(scope="module")
def shared():
    result = run_preview(str(FIXTURE), project_dir=ROOT, at=AT)
    assert result.ok, [finding.message for finding in result.findings if finding.is_error]
    return result


def test_a_pool_and_its_spares_launch_into_one_cluster_placement_group(shared):
    [group] = shared.of_type(PG)
    assert (group.name, group.inputs["strategy"]) == ("spares-test-placement-train-use1a", "cluster")
    for template in ("spares-test-train-use1a-template", "spares-test-backup-use1a-template"):
        assert shared.named(template).inputs["placement"] == {"groupName": group.name}  # the mocks echo the name
    exported = {decision["pool"]: decision for decision in shared.outputs["placement"]}
    assert exported["backup"]["strategy"] == "cluster" and exported["backup"]["sharesGroupOf"] == "train-use1a"
    assert "sharesGroupOf" not in exported["train"]


def test_a_spare_kept_apart_gets_its_own_group_as_before(tmp_path):
    result = run_preview(str(edited_copy(FIXTURE, tmp_path, APART)), project_dir=ROOT, at=AT)
    assert sorted(group.name for group in result.of_type(PG)) == ["spares-test-placement-backup-use1a", "spares-test-placement-train-use1a"]
    assert result.named("spares-test-backup-use1a-template").inputs["placement"] == {"groupName": "spares-test-placement-backup-use1a"}


def test_sharing_removes_only_the_spares_group_and_rolls_only_the_spares_nodes(tmp_path):
    apart = edited_copy(FIXTURE, tmp_path, APART)
    result = diff(side_of(str(apart)), side_of(str(FIXTURE)), at=AT)
    assert result.ok
    assert sorted((change.action, change.type, change.name) for change in result.changes) == [
        ("delete", PG, "spares-test-placement-backup-use1a"),
        ("update", "aws:ec2/launchTemplate:LaunchTemplate", "spares-test-backup-use1a-template"),
        ("update", "aws:eks/nodeGroup:NodeGroup", "spares-test-backup-use1a"),
    ]
    [template] = [change for change in result.changes if change.type == "aws:ec2/launchTemplate:LaunchTemplate"]
    assert [(item.path, item.old, item.new, item.effect.kind) for item in template.inputs] == [
        ("placement.groupName", "spares-test-placement-backup-use1a", "spares-test-placement-train-use1a", "update")
    ]


def test_a_karpenter_spare_selects_its_served_pools_group(tmp_path):
    result = run_preview(str(edited_copy(FIXTURE, tmp_path, KARPENTER)), project_dir=ROOT, at=AT)
    assert result.ok, [finding.message for finding in result.findings if finding.is_error]
    classes = result.of_type("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")
    [node_class] = [item for item in classes if item.inputs["metadata"]["name"] == "backup-use1a"]
    assert node_class.inputs["spec"]["placementGroupSelector"] == {"name": "spares-test-placement-train-use1a"}
    assert [group.name for group in result.of_type(PG)] == ["spares-test-placement-train-use1a"]
