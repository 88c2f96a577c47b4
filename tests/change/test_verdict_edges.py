"""`railyard diff`'s held-group warning (railyard/change/held_groups.py) on each half of its condition: a node group
updated in place, held at a version other than the cluster's, whose launch template changes and whose version does
not. Each half turned the other way raises nothing; the pool is found by its label, or the path is the root."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest

from railyard.change.compare import compare
from railyard.change.held_groups import NODE_GROUP, held_template_findings
from railyard.change.replace_table import ReplaceTable, ResourceRules
from railyard.mocked import PreviewResource
from railyard.pipeline import validate
from tests.preview.conftest import AT

P5 = Path(__file__).resolve().parents[2] / "blueprints" / "examples" / "p5-capacity-block.yaml"
RULES = {"launchTemplate": "update", "version": "update", "scalingConfig": "update", "instanceTypes": "replace"}


@pytest.fixture(scope="module")
def p5():
    return validate(str(P5), at=AT)


def _table(token: str = NODE_GROUP) -> ReplaceTable:
    return ReplaceTable(MappingProxyType({}), MappingProxyType({token: ResourceRules(token, token, MappingProxyType(RULES), ())}))


def _group(version: str | None, pool: str = "train", token: str = NODE_GROUP, **inputs) -> PreviewResource:
    base = {"nodeGroupName": "train-use1a", "clusterName": "p5-train-prod", "labels": {"railyard.dev/pool": pool}, "launchTemplate": {"version": "1"}}
    if version is not None:
        base["version"] = version
    base.update(inputs)
    return PreviewResource(f"urn:pulumi:s::p::{token}::train-use1a", token, "train-use1a", "", base, "id-ng", (), {}, outputs={})


def _findings(p5, old: PreviewResource, new_inputs: dict, token: str = NODE_GROUP):
    new = replace(old, inputs={**old.inputs, **new_inputs})
    return held_template_findings(compare([old], [new], _table(token)), p5)


def test_a_held_group_whose_template_alone_changes_is_warned_at_its_pools_kubernetes_version(p5):
    cluster = p5.blueprint.kubernetes.version
    (finding,) = _findings(p5, _group("1.30"), {"launchTemplate": {"version": "2"}})
    assert (finding.code, finding.severity, finding.path) == ("change.held-template", "warning", ("pools", 0, "kubernetes_version"))
    assert finding.message.startswith(
        f"node group train-use1a is held at Kubernetes 1.30 (the cluster runs {cluster}) and its launch template changes: "
    )
    assert finding.message.endswith("later `pulumi up` asks EKS to take the group back to 1.30, which EKS refuses")
    assert "aws eks describe-nodegroup --cluster-name p5-train-prod --nodegroup-name train-use1a --query nodegroup.version" in finding.hint
    assert f"if it says {cluster}, the hold has ended, so drop pools[0].kubernetes_version" in finding.hint
    assert finding.certificate["node_group"] == "train-use1a"


def test_a_group_of_no_known_pool_is_warned_at_the_root(p5):
    (finding,) = _findings(p5, _group("1.30", pool="gone"), {"launchTemplate": {"version": "2"}})
    assert finding.path == ()
    assert "drop pools[None].kubernetes_version" in finding.hint


@pytest.mark.parametrize(
    ("held", "change"),
    [
        ("1.30", {"launchTemplate": {"version": "2"}, "version": "1.31"}),  # the version changes too: the request carries it
        (None, {"launchTemplate": {"version": "2"}}),  # not held
        ("", {"launchTemplate": {"version": "2"}}),  # not held
        ("1.30", {"scalingConfig": {"desiredSize": 3}}),  # the template does not change
        ("1.30", {"instanceTypes": ["p5e.48xlarge"]}),  # replaced, not updated
    ],
    ids=["version-changes-too", "no-version", "empty-version", "template-unchanged", "replaced"],
)
def test_each_half_of_the_condition_turned_the_other_way_raises_nothing(p5, held, change):
    assert _findings(p5, _group(held), change) == []


def test_a_group_held_at_the_clusters_own_version_is_not_held(p5):
    assert _findings(p5, _group(p5.blueprint.kubernetes.version), {"launchTemplate": {"version": "2"}}) == []


def test_another_resource_type_is_never_a_held_group(p5):
    other = "aws:eks/addon:Addon"
    assert _findings(p5, _group("1.30", token=other), {"launchTemplate": {"version": "2"}}, token=other) == []


def test_a_side_that_did_not_load_gives_no_finding(p5):
    broken = replace(p5, load=replace(p5.load, blueprint=None))
    old = _group("1.30")
    changes = compare([old], [replace(old, inputs={**old.inputs, "launchTemplate": {"version": "2"}})], _table())
    assert held_template_findings(changes, broken) == []


# --- what one changed input does (replace_table.ResourceRules.effect) and what a resource's changes add up to ----------

TOKEN = "t:m/thing:Thing"


def _rules(inputs: dict, default: str = "unknown") -> ResourceRules:
    return ResourceRules(TOKEN, TOKEN, MappingProxyType(inputs), (), default)


@pytest.mark.parametrize(
    ("path", "kind", "entry"),
    [
        ("size", "update", "size"),  # listed exactly
        ("config.subnet", "replace", "config"),  # inside a replacing block, however deep
        ("config.subnet.id", "replace", "config"),
        ("tags.Name", "update", "tags"),  # a map's key takes the map's effect
        ("spec.mode", "conditional", "spec.mode"),  # the deepest listed prefix
        ("spec.other", "unknown", "spec.other"),  # a listed block with listed children: an unlisted child is unknown
        ("elsewhere", "unknown", "elsewhere"),  # not listed at all: the default
    ],
)
def test_an_inputs_effect_is_the_replacing_block_around_it_else_its_deepest_listed_prefix_else_the_default(path, kind, entry):
    rules = _rules({"size": "update", "config": "replace", "tags": "update", "spec": "update", "spec.mode": "conditional"})
    effect = rules.effect(path)
    assert (effect.kind, effect.entry) == (kind, entry)


def test_a_kubernetes_objects_default_is_update_and_a_dropped_optional_computed_input_is_no_change():
    assert _rules({}, default="update").effect("metadata.labels.x").kind == "update"
    rules = ResourceRules(TOKEN, TOKEN, MappingProxyType({}), (), "unknown", frozenset({"arn"}))
    assert rules.dropped_is_no_change("arn") and not rules.dropped_is_no_change("size")
    assert not _rules({}).dropped_is_no_change("arn")  # the table's source recorded none


def _thing(name: str, inputs: dict) -> PreviewResource:
    return PreviewResource(f"urn:pulumi:s::p::{TOKEN}::{name}", TOKEN, name, "", inputs, f"id-{name}", (), {}, outputs={})


@pytest.mark.parametrize(
    ("changed", "action"),
    [
        ({"size": 2}, "update"),
        ({"size": 2, "spec": {"mode": "b"}}, "may-replace"),
        ({"size": 2, "elsewhere": 1}, "unclassified"),
        ({"spec": {"mode": "b"}, "elsewhere": 1}, "may-replace"),
        ({"size": 2, "elsewhere": 1, "spec": {"mode": "b"}, "config": {"subnet": "b"}}, "replace"),
    ],
)
def test_a_resources_action_is_its_most_disruptive_inputs_replace_over_maybe_over_unknown_over_update(changed, action):
    table = ReplaceTable(MappingProxyType({}), MappingProxyType({TOKEN: _rules({"size": "update", "config": "replace", "spec.mode": "conditional"})}))
    old = _thing("a", {"size": 1, "spec": {"mode": "a"}, "config": {"subnet": "a"}})
    (change,) = compare([old], [replace(old, inputs={**old.inputs, **changed})], table)
    assert change.action == action


def test_unchanged_inputs_are_no_change_and_list_items_share_a_path_counting_the_rest():
    from railyard.change.compare import changed_inputs

    old = {"a": 1, "rules": [{"port": 1}, {"port": 2}, {"port": 3}], "names": ["x", "y"]}
    assert changed_inputs(old, old) == {}
    new = {"a": 1, "rules": [{"port": 9}, {"port": 8}, {"port": 3}], "names": ["x", "z"]}
    assert changed_inputs(old, new) == {"rules.port": (1, 9, 1), "names": (["x", "y"], ["x", "z"], 0)}
    # Lists of different lengths are one value: compared whole.
    assert changed_inputs({"rules": [{"port": 1}]}, {"rules": [{"port": 1}, {"port": 2}]}) == {
        "rules": ([{"port": 1}], [{"port": 1}, {"port": 2}], 0)
    }


def test_the_warning_and_its_hint_in_full(p5):
    cluster = p5.blueprint.kubernetes.version
    (finding,) = _findings(p5, _group("1.30", nodeGroupName="p5-train-use1a-ng"), {"launchTemplate": {"version": "2"}})
    assert finding.message == (
        f"node group train-use1a is held at Kubernetes 1.30 (the cluster runs {cluster}) and its launch template changes: "
        "terraform-provider-aws sends UpdateNodegroupVersion without `version` when the version itself is unchanged, and the "
        "EKS API reference says such a request updates the group to the cluster's version; if it does, the hold ends, and every "
        "later `pulumi up` asks EKS to take the group back to 1.30, which EKS refuses"
    )
    assert finding.hint == (
        "to keep the hold for sure, leave the template as it is until the pool may move, then drop `kubernetes_version` and change "
        "both in one step; or apply it and read `aws eks describe-nodegroup --cluster-name p5-train-prod --nodegroup-name p5-train-use1a-ng "
        f"--query nodegroup.version`: if it says {cluster}, the hold has ended, so drop pools[0].kubernetes_version before the next `pulumi up`"
    )


def test_a_group_without_its_names_in_the_inputs_is_named_by_its_resource_and_the_cluster_left_as_a_placeholder(p5):
    old = _group("1.30")
    del old.inputs["nodeGroupName"], old.inputs["clusterName"]
    (finding,) = _findings(p5, old, {"launchTemplate": {"version": "2"}})
    assert "--cluster-name <cluster> --nodegroup-name train-use1a " in finding.hint


def test_a_group_not_held_before_a_held_one_does_not_stop_the_search(p5):
    free, held = _group(None), _group("1.30")
    held = replace(held, urn=held.urn.replace("train-use1a", "train-use1b"), name="train-use1b")
    table = _table()
    changes = compare([free, held], [replace(r, inputs={**r.inputs, "launchTemplate": {"version": "2"}}) for r in (free, held)], table)
    assert [finding.certificate["node_group"] for finding in held_template_findings(changes, p5)] == ["train-use1b"]
