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
