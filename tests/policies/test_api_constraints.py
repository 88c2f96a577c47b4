"""The API input rules COR008 applies: generated from botocore, applied to the inputs they name, never dead.

A rule whose path reaches no compiled value can never fire; so every rule
must reach a value in some example's preview (or in the at-the-limits
blueprint of tests/blueprints/test_names.py), except the listed few that
cover inputs railyard does not emit today but a user's own program could.
"""

from __future__ import annotations

import re

import pytest

from policies.api_constraints import Constraint, load_constraints, values_at, violations
from policies.generate_constraints import main as generate
from policies.generate_constraints import python_pattern
from tests.policies.previews import EXAMPLES as EXAMPLE_DIR
from tests.policies.previews import example, preview

EXAMPLES = tuple(sorted(path.stem for path in EXAMPLE_DIR.glob("*.yaml")))
# Rules for inputs railyard doesn't set on any example, kept because they apply the moment a value appears.
NOT_EMITTED = {
    ("aws:ec2/securityGroupRule:SecurityGroupRule", "description"),
    ("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "description"),
    ("aws:ec2/launchTemplate:LaunchTemplate", "name"),
    ("aws:iam/role:Role", "name"),  # these three are auto-named, and checked as such
    ("aws:ec2/placementGroup:PlacementGroup", "name"),
    ("aws:eks/cluster:Cluster", "vpcConfig.publicAccessCidrs"),
    ("aws:ec2/placementGroup:PlacementGroup", "spreadLevel"),
    ("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", "s3.autoExportPolicy.events.[]"),
    ("aws:eks/nodeGroup:NodeGroup", "taints.[].value"),
    # Namespaces and labelled objects appear with a workload namespace or the GPU Operator, which no example uses.
    ("kubernetes:core/v1:Namespace", "metadata.name"),
    ("kubernetes:*", "metadata.labels.{key}"),
    ("kubernetes:*", "metadata.labels.{value}"),
}


def test_the_generated_table_is_what_botocore_and_the_source_give(capsys):
    assert generate(["--check"]) == 0, capsys.readouterr().err


def test_java_patterns_become_python_patterns_that_mean_the_same():
    tag = python_pattern(r"^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$")
    assert re.fullmatch(tag, "équipe données 42_.:/=+-@") and not re.fullmatch(tag, "ml, infra")
    anything = python_pattern(r"[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDC00-\uDBFF\uDFFF\r\n\t]*")
    assert re.fullmatch(anything, "scale up \U0001f680") and not re.fullmatch(anything, "\x00")


def test_a_constraint_reports_each_kind_of_breach():
    assert Constraint("t", "s", enum=("A", "B")).problems("C") == ["'C' is not one of A, B"]
    assert Constraint("t", "s", min=1, max=7).problems(8.0) == ["8 is above the maximum 7"]
    assert Constraint("t", "s", max_items=2).problems({"a": 1, "b": 2, "c": 3}) == ["has 3 entries, over the limit of 2"]
    assert Constraint("t", "s", forbidden_prefixes=("aws:",)).problems("AWS:x") == ["'AWS:x' starts with the reserved prefix 'aws:'"]
    assert Constraint("t", "s", pattern="[a-z]+").problems("ab1") == ["'ab1' does not match [a-z]+"]
    assert Constraint("t", "s", max_length=3).problems("abc") == []


def test_paths_walk_lists_and_map_keys_and_values():
    props = {"tags": {"a": "1"}, "items": [{"x": "p"}, {"x": "q"}]}
    assert list(values_at(props, "tags.{key}")) == [("tags key 'a'", "a")]
    assert list(values_at(props, "tags.{value}")) == [("tags.a", "1")]
    assert list(values_at(props, "items.[].x")) == [("items[0].x", "p"), ("items[1].x", "q")]


def test_an_auto_named_role_is_measured_with_pulumis_suffix():
    assert violations("aws:iam/role:Role", "r" * 56, {}) == []
    (problem,) = violations("aws:iam/role:Role", "r" * 57, {})
    assert "57 characters + 8 random" in problem
    assert violations("aws:iam/role:Role", "r" * 57, {"name": "short"}) == []


def test_every_rule_reaches_a_compiled_value_unless_listed():
    resources = [resource for name in EXAMPLES for resource in example(name).resources]
    resources += preview(stack="prod-kubernetes").resources + preview(stack="dev").resources
    dead = []
    for constraint in load_constraints():
        if constraint.autoname_max_length is not None:
            continue
        reached = any(list(values_at(resource.inputs, constraint.path)) for resource in resources if constraint.applies_to(resource.type))
        if not reached and (constraint.type, constraint.path) not in NOT_EMITTED:
            dead.append((constraint.type, constraint.path))
    assert dead == [], dead


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_compiles_to_inputs_the_apis_accept(name):
    problems = [
        (resource.name, problem) for resource in example(name).resources for problem in violations(resource.type, resource.name, resource.inputs)
    ]
    assert problems == []


def test_a_local_zone_groups_opt_in_takes_only_the_values_ec2_accepts():
    # ModifyAvailabilityZoneGroup's OptInStatus (botocore's ec2 model): the GB200 example's Local Zone group is opted in.
    zone_group = "aws:ec2/availabilityZoneGroup:AvailabilityZoneGroup"
    assert violations(zone_group, "gb200-zone-group", {"groupName": "us-east-1-dfw-2", "optInStatus": "opted-in"}) == []
    assert violations(zone_group, "gb200-zone-group", {"groupName": "us-east-1-dfw-2", "optInStatus": "opted_in"}) == [
        "optInStatus: 'opted_in' is not one of opted-in, not-opted-in "
        "(botocore ec2 ModifyAvailabilityZoneGroup OptInStatus (shape ModifyAvailabilityZoneOptInStatus))"
    ]
