"""The offline runner hands rules what the engine would, and reports like the engine does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pytest
from pulumi_policy import ResourceValidationArgs
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from policies.registry import rule
from policies.resource_types import LAUNCH_TEMPLATE, NODE_GROUP, SECURITY_GROUP
from policies.rule import ResourceRule
from policies.runner import engine_props, render_text, report_json, run_policies
from tests.policies.previews import Preview, deleter, edit, edit_all, example, setter

SECRET_SIG = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": "hunter2"}


def test_engine_props_are_proxies_with_float_numbers_and_camel_case_keys():
    node_group = example("p5-capacity-block").one(NODE_GROUP, lambda r: "train-use1a" in r.name)
    props = engine_props(node_group.inputs)
    assert isinstance(props, Mapping) and not isinstance(props, dict)
    assert isinstance(props["subnetIds"], Sequence) and not isinstance(props["subnetIds"], list)
    assert props["scalingConfig"]["maxSize"] == 64.0 and isinstance(props["scalingConfig"]["maxSize"], float)
    assert props["capacityType"] == "CAPACITY_BLOCK"


def test_engine_props_unwrap_secrets_and_raise_on_unknowns():
    props = engine_props({"password": SECRET_SIG, "later": UNKNOWN_STRING_VALUE})
    assert props["password"] == "hunter2"
    with pytest.raises(UnknownValueError) as raised:
        props["later"]
    assert raised.value.message == "string value at .later can't be known during preview"


def test_unknown_value_makes_the_rule_unverified_not_violated():
    unknown = edit(example("p5-capacity-block"), LAUNCH_TEMPLATE, "train-use1a", setter("metadataOptions.httpTokens", UNKNOWN_STRING_VALUE))
    report = run_policies(unknown, rules=[rule("SEC001")])
    assert report.violations == [] and not report.mandatory_failed
    assert [(v.rule_id, v.enforcement) for v in report.unverified] == [("SEC001", "advisory")]
    assert report.unverified[0].message == (
        "can't run policy 'imdsv2-required' during preview: string value at .metadataOptions.httpTokens can't be known during preview"
    )


def _crashing(props, settings):
    raise RuntimeError("boom")


CRASHING = ResourceRule(
    id="TST001", name="crashes", title="A rule that crashes", domain="security", fix="none", resource_types=(NODE_GROUP,), check=_crashing
)


def test_a_crashing_rule_is_a_rule_error_that_fails_the_run():
    report = run_policies(example("dev-g6e"), rules=[CRASHING])
    assert report.mandatory_failed and report.violations == []
    assert {v.message for v in report.errors} == {"rule TST001 crashed: RuntimeError: boom"}


def test_config_can_disable_a_rule_or_change_its_level():
    insecure = example("insecure")
    disabled = run_policies(insecure, config={"accelerator-ceiling": "disabled"}, rules=[rule("GOV004")])
    assert disabled.rules_run == 0 and disabled.violations == []
    advisory = run_policies(insecure, config={"all": "advisory"}, rules=[rule("GOV004")])
    assert [v.enforcement for v in advisory.violations] == ["advisory"] and not advisory.mandatory_failed
    mandatory = run_policies(insecure, config={"all": "advisory", "accelerator-ceiling": {"enforcementLevel": "mandatory"}}, rules=[rule("GOV004")])
    assert mandatory.mandatory_failed


def test_config_rejects_an_unknown_enforcement_level():
    with pytest.raises(ValueError, match="enforcement level 'fatal' is not one of"):
        run_policies(example("insecure"), config={"accelerator-ceiling": "fatal"}, rules=[rule("GOV004")])


def test_not_applicable_resources_are_counted():
    report = run_policies(example("p5-capacity-block"), rules=[rule("GOV002")])
    assert report.violations == [] and report.not_applicable == 2  # two node groups, neither on spot


def test_a_preview_without_ids_is_noted():
    bare = Preview(
        [
            type("Bare", (), {"urn": r.urn, "type": r.type, "name": r.name, "parent": r.parent, "inputs": r.inputs})()
            for r in example("dev-g6e").resources
        ]
    )
    assert run_policies(bare, rules=[rule("SEC001")]).notes == [
        "the preview records no resource ids: stack rules can't follow references between resources"
    ]


def test_report_json_and_text_agree_on_the_verdict():
    report = run_policies(example("insecure"))
    document = report.as_json()
    assert document["ok"] is False
    assert document["summary"]["mandatory"] == len([v for v in report.violations if v.enforcement == "mandatory"])
    assert set(document) == {"ok", "summary", "violations", "unverified", "errors", "notes"}
    assert '"rule_id": "GOV004"' in report_json(report)
    text = render_text(report)
    assert text.splitlines()[-1] == "FAILED: mandatory policy violations"
    assert "mandatory GOV004 accelerator-ceiling" in text


def test_the_policy_validate_is_what_the_runner_calls():
    node_group = example("insecure").one(NODE_GROUP, lambda r: "cheap-train" in r.name)
    reported = []
    args = ResourceValidationArgs(NODE_GROUP, engine_props(node_group.inputs), node_group.urn, node_group.name, None, None)
    rule("GOV002").policy().validate(args, lambda message, urn=None: reported.append(message))
    runner_messages = [v.message for v in run_policies(example("insecure"), rules=[rule("GOV002")]).violations]
    assert reported == runner_messages


def _unknown_references(inputs: dict) -> None:
    for interface in inputs.get("networkInterfaces", []):
        interface["securityGroups"] = UNKNOWN_STRING_VALUE


def test_stack_rules_follow_engine_dependencies_while_ids_are_unknown():
    """A first `pulumi preview`: no ids yet, references unknown; links come from property dependencies."""
    base = example("p5-capacity-block")
    first_preview = Preview([replace(resource, id="") for resource in base.resources])
    first_preview = edit_all(first_preview, LAUNCH_TEMPLATE, _unknown_references)
    first_preview = edit_all(first_preview, NODE_GROUP, setter("launchTemplate.id", UNKNOWN_STRING_VALUE))
    assert run_policies(first_preview, rules=[rule("COR001"), rule("COR003")]).violations == []
    ceiling = run_policies(first_preview, config={"accelerator-ceiling": {"maxAcceleratorsPerStack": 100}}, rules=[rule("GOV004")])
    assert "node groups scale to 512 accelerators" in ceiling.violations[0].message  # 64 p5 via the template
    broken = edit(first_preview, SECURITY_GROUP, "network-efa", deleter("egress"))
    report = run_policies(broken, rules=[rule("COR001")])
    assert [v.message.split(". Fix:")[0] for v in report.violations] == [
        "LaunchTemplate 'p5-train-prod-train-use1a-template': the EFA interfaces on card(s) 0-31 have security "
        "group(s) p5-train-prod-network-efa, none of which allows all traffic from and to itself (missing: egress)"
    ]
