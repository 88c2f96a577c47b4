"""railyard/change/held_groups.py on built changes: a node group updated in place, held at a version other than the
cluster's, whose launch template changes and whose version does not, gets `change.held-template` at its pool's
`kubernetes_version`, with the group's and cluster's names in the hint. Each half of that condition turned the other
way gives nothing."""

from __future__ import annotations

import pytest

from railyard.change.held_groups import held_template_findings
from tests.change.built import blueprint, change, group, pool, side

NEW = side(blueprint(pool("infer"), pool("train", kubernetes_version="1.30"), version="1.31"))
HELD = {"nodeGroupName": "train-a-ng", "clusterName": "prod", "version": "1.30", "labels": {"railyard.dev/pool": "train"}}


def _held(paths: dict[str, str] | None = None, action: str = "update", **inputs) -> list:
    new = {**HELD, **inputs}
    return held_template_findings([group("train-a", action, HELD, new, paths or {"launchTemplate.version": "update"})], NEW)


def test_the_warning_names_the_group_the_versions_and_the_pools_hold():
    (finding,) = _held()
    assert (finding.code, finding.severity, finding.path, finding.line) == ("change.held-template", "warning", ("pools", 1, "kubernetes_version"), 1)
    assert finding.message == (
        "node group train-a is held at Kubernetes 1.30 (the cluster runs 1.31) and its launch template changes: terraform-provider-aws "
        "sends UpdateNodegroupVersion without `version` when the version itself is unchanged, and the EKS API reference says such a "
        "request updates the group to the cluster's version; if it does, the hold ends, and every later `pulumi up` asks EKS to take "
        "the group back to 1.30, which EKS refuses"
    )
    assert finding.hint == (
        "to keep the hold for sure, leave the template as it is until the pool may move, then drop `kubernetes_version` and change both "
        "in one step; or apply it and read `aws eks describe-nodegroup --cluster-name prod --nodegroup-name train-a-ng --query "
        "nodegroup.version`: if it says 1.31, the hold has ended, so drop pools[1].kubernetes_version before the next `pulumi up`"
    )
    assert finding.certificate == {"node_group": "train-a"}


def test_a_group_without_names_or_labels_is_named_by_its_resource_at_the_root():
    bare = {"version": "1.30"}
    (finding,) = held_template_findings([group("lone", "update", bare, bare, {"launchTemplate": "update"})], NEW)
    assert finding.path == ()
    assert "--cluster-name <cluster> --nodegroup-name lone --query" in finding.hint
    assert "drop pools[None].kubernetes_version" in finding.hint


def test_a_pool_label_no_pool_of_the_new_side_has_is_the_root():
    (finding,) = _held(labels={"railyard.dev/pool": "gone"})
    assert finding.path == ()


@pytest.mark.parametrize(
    ("paths", "action", "inputs"),
    [
        ({"launchTemplate.version": "update", "version": "update"}, "update", {}),  # the version changes too
        ({"scalingConfig.desiredSize": "update"}, "update", {}),  # no template change
        ({"launchTemplateVersion": "update"}, "update", {}),  # another root that merely starts alike
        ({"launchTemplate.version": "update"}, "replace", {}),  # replaced, not updated
        ({"launchTemplate.version": "update"}, "may-replace", {}),
        ({"launchTemplate.version": "update"}, "update", {"version": "1.31"}),  # at the cluster's version: not held
        ({"launchTemplate.version": "update"}, "update", {"version": ""}),
        ({"launchTemplate.version": "update"}, "update", {"version": None}),
    ],
)
def test_each_half_of_the_condition_turned_the_other_way_gives_nothing(paths, action, inputs):
    assert _held(paths, action, **inputs) == []


def test_another_type_an_update_without_a_new_side_and_a_side_that_did_not_load_give_nothing():
    other = change("x", "aws:eks/addon:Addon", "update", HELD, HELD, {"launchTemplate": "update"})
    assert held_template_findings([other], NEW) == []
    broken = group("train-a", "update", HELD, HELD, {"launchTemplate": "update"})
    broken.new = None
    assert held_template_findings([broken], NEW) == []
    assert held_template_findings([group("train-a", "update", HELD, HELD, {"launchTemplate": "update"})], side(None)) == []


def test_every_held_group_is_warned_in_the_order_of_the_changes():
    free = group("free", "update", {"labels": {}}, {"labels": {}}, {"launchTemplate": "update"})
    first = group("train-b", "update", HELD, HELD, {"launchTemplate": "update"})
    second = group("train-a", "update", HELD, HELD, {"launchTemplate": "update"})
    assert [finding.certificate["node_group"] for finding in held_template_findings([free, first, second], NEW)] == ["train-b", "train-a"]
