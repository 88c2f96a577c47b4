"""What a rule is (policies/rule.py), on rules built here and stand-ins for the engine's validation arguments: how a
resource is named, the message's shape, the CrossGuard policy's metadata (with and without knobs), a resource rule
that skips other types, reports each problem or says why it does not apply, a schema rule's types, its schema from the
settings, its `applies_when` (one schema or any of several), and a stack rule's problems with and without a resource."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, Severity, StackValidationPolicy

from policies.config import Knob
from policies.rule import NotApplicable, ResourceRule, SchemaRule, StackRule, describe, kind_of

LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LIMIT = Knob("maxSize", {"type": "number"}, 8, "The largest node group allowed.")
BASE = {"id": "TST001", "name": "test-rule", "title": "Node groups stay small", "domain": "governance", "fix": "shrink it"}


class Args:
    """The parts of `ResourceValidationArgs` / `StackValidationArgs` a rule reads, recording `not_applicable`."""

    def __init__(self, resource_type: str = NODE_GROUP, props: Mapping[str, Any] | None = None, config: dict | None = None, resources=()):
        self.resource_type, self.props, self.name, self.config = resource_type, props or {}, "p5-train", config
        self.resources, self.reasons = list(resources), []

    def get_config(self) -> dict | None:
        return self.config

    def not_applicable(self, reason: str) -> None:
        self.reasons.append(reason)


def _validated(rule, args: Args) -> list[tuple[str, str | None]]:
    reported: list[tuple[str, str | None]] = []
    rule.validate(args, lambda message, urn: reported.append((message, urn)))
    return reported


def test_a_resource_is_named_by_the_last_part_of_its_type_and_its_name():
    assert (kind_of(LAUNCH_TEMPLATE), kind_of("LaunchTemplate")) == ("LaunchTemplate", "LaunchTemplate")
    assert describe("kubernetes:karpenter.sh/v1:NodePool", "gpu") == "NodePool 'gpu'"


def _too_big(props: Mapping[str, Any], settings: Mapping[str, Any]) -> list[str]:
    if "scalingConfig" not in props:
        raise NotApplicable("the node group has no scaling config")
    size = props["scalingConfig"]["maxSize"]
    return [f"maxSize is {size}; at most {settings['maxSize']}", "and it is big"] if size > settings["maxSize"] else []


RESOURCE_RULE = ResourceRule(**BASE, knobs=(LIMIT,), resource_types=(NODE_GROUP,), check=_too_big)


def test_a_resource_rules_policy_carries_its_metadata_and_its_knobs_schema():
    policy = RESOURCE_RULE.policy()
    assert isinstance(policy, ResourceValidationPolicy)
    assert (policy.name, policy.description, policy.display_name, policy.remediation_steps) == (
        "test-rule",
        "TST001: Node groups stay small",
        "TST001 test-rule",
        "shrink it",
    )
    assert (policy.enforcement_level, policy.severity, policy.tags) == (EnforcementLevel.MANDATORY, Severity.HIGH, ["governance", "TST001"])
    assert policy.config_schema is not None
    assert policy.config_schema.properties == {"maxSize": {"type": "number", "description": "The largest node group allowed.", "default": 8}}
    assert RESOURCE_RULE.implementation == "code"


def test_an_advisory_low_rule_without_knobs_has_no_config_schema():
    rule = StackRule(**BASE, enforcement="advisory", severity="low", check=lambda stack, settings: [])
    policy = rule.policy()
    assert isinstance(policy, StackValidationPolicy)
    assert (policy.enforcement_level, policy.severity, policy.config_schema) == (EnforcementLevel.ADVISORY, Severity.LOW, None)


def test_a_resource_rule_reports_each_problem_naming_the_resource_and_the_fix_with_its_config_over_the_default():
    args = Args(props={"scalingConfig": {"maxSize": 16}})
    assert _validated(RESOURCE_RULE, args) == [
        ("NodeGroup 'p5-train': maxSize is 16; at most 8. Fix: shrink it", None),
        ("NodeGroup 'p5-train': and it is big. Fix: shrink it", None),
    ]
    assert _validated(RESOURCE_RULE, Args(props={"scalingConfig": {"maxSize": 16}}, config={"maxSize": 16})) == []
    assert args.reasons == []


def test_a_resource_rule_skips_other_types_and_says_why_it_does_not_apply():
    other = Args(resource_type=LAUNCH_TEMPLATE)
    assert (_validated(RESOURCE_RULE, other), other.reasons) == ([], [])
    bare = Args()
    assert (_validated(RESOURCE_RULE, bare), bare.reasons) == ([], ["the node group has no scaling config"])


def _sized(settings: Mapping[str, Any]) -> Mapping[str, Any]:
    return {"scalingConfig": {"type": "dict", "schema": {"maxSize": {"max": settings["maxSize"]}}}}


SCHEMA_RULE = SchemaRule(
    **BASE,
    knobs=(LIMIT,),
    schemas={NODE_GROUP: _sized, LAUNCH_TEMPLATE: {"metadataOptions": {"required": True}}},
    applies_when={
        NODE_GROUP: ({"capacityType": {"allowed": ["SPOT"]}}, {"labels": {"required": True}}),
        LAUNCH_TEMPLATE: {"name": {"required": True}},
    },
    not_applicable_reason="not spot, no labels, or no name",
)


def test_a_schema_rule_covers_the_types_it_has_schemas_for_unless_told_otherwise():
    # Each rule made here, in the test: what __post_init__ does is seen as it runs now, not as it ran at import.
    covering = SchemaRule(**BASE, schemas={NODE_GROUP: {}, LAUNCH_TEMPLATE: {}})
    assert (covering.resource_types, covering.implementation) == ((NODE_GROUP, LAUNCH_TEMPLATE), "cerberus")
    narrowed = SchemaRule(**BASE, schemas={NODE_GROUP: {}, LAUNCH_TEMPLATE: {}}, resource_types=(LAUNCH_TEMPLATE,))
    assert narrowed.resource_types == (LAUNCH_TEMPLATE,)


def test_a_schema_rule_reads_its_schema_from_the_settings_or_as_written():
    assert SCHEMA_RULE.schema_for(NODE_GROUP, {"maxSize": 4}) == {"scalingConfig": {"type": "dict", "schema": {"maxSize": {"max": 4}}}}
    assert SCHEMA_RULE.schema_for(LAUNCH_TEMPLATE, {}) == {"metadataOptions": {"required": True}}


@pytest.mark.parametrize(
    ("resource_type", "props", "found"),
    [
        (NODE_GROUP, {"capacityType": "SPOT", "scalingConfig": {"maxSize": 9.0}}, ["scalingConfig.maxSize is 9; maximum 8"]),
        (NODE_GROUP, {"capacityType": "ON_DEMAND", "labels": {}, "scalingConfig": {"maxSize": 9.0}}, ["scalingConfig.maxSize is 9; maximum 8"]),
        (NODE_GROUP, {"capacityType": "SPOT", "scalingConfig": {"maxSize": 8.0}}, []),
        (LAUNCH_TEMPLATE, {"name": "lt"}, ["metadataOptions is not set"]),
    ],
)
def test_a_schema_rule_applies_where_any_of_its_conditions_match(resource_type, props, found):
    assert SCHEMA_RULE.problems(resource_type, props, {"maxSize": 8}) == found


@pytest.mark.parametrize(("resource_type", "props"), [(NODE_GROUP, {"capacityType": "ON_DEMAND"}), (LAUNCH_TEMPLATE, {})])
def test_a_schema_rule_whose_conditions_all_fail_is_not_applicable_for_its_reason(resource_type, props):
    with pytest.raises(NotApplicable, match="^not spot, no labels, or no name$"):
        SCHEMA_RULE.problems(resource_type, props, {"maxSize": 8})


def test_a_schema_rule_without_a_condition_for_a_type_always_applies():
    rule = SchemaRule(**BASE, schemas={NODE_GROUP: {"capacityType": {"allowed": ["ON_DEMAND"]}}})
    assert rule.problems(NODE_GROUP, {"capacityType": "SPOT"}, {}) == ["capacityType is 'SPOT'; allowed: 'ON_DEMAND'"]


class Resource:
    """The parts of a `PolicyResource` a stack rule's report reads."""

    def __init__(self, resource_type: str, name: str) -> None:
        self.resource_type, self.name, self.urn = resource_type, name, f"urn:pulumi:test::railyard::{resource_type}::{name}"
        self.props: dict[str, Any] = {}


def test_a_stack_rule_reports_against_the_resources_urn_or_the_stack_and_sees_its_settings():
    group = Resource(NODE_GROUP, "p5-train")
    seen: list[Any] = []

    def check(stack, settings):
        seen.append((stack, dict(settings)))
        return [(group, "too big"), (None, "no system pool")]

    rule = StackRule(**BASE, knobs=(LIMIT,), check=check)
    args = Args(config={"maxSize": 4}, resources=[group])
    assert _validated(rule, args) == [
        ("NodeGroup 'p5-train': too big. Fix: shrink it", group.urn),
        ("stack: no system pool. Fix: shrink it", None),
    ]
    assert (seen[0][0].resources, seen[0][1], args.reasons) == ([group], {"maxSize": 4}, [])


def test_a_stack_rule_that_does_not_apply_says_why_and_reports_nothing():
    def check(stack, settings):
        raise NotApplicable("the stack has no node group")

    args = Args()
    assert (_validated(StackRule(**BASE, check=check), args), args.reasons) == ([], ["the stack has no node group"])
