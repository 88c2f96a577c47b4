"""The per-stack policy configs the docs publish with (`policies/config/*.json`) are valid and do what they say."""

from __future__ import annotations

import json

import jsonschema
import pytest

from policies.config import config_schema_properties, policy_entry
from policies.registry import RULES
from policies.runner import run_policies
from tests.policies.previews import ROOT, example

CONFIGS = sorted((ROOT / "policies" / "config").glob("*.json"))
NAMES = {rule.name: rule for rule in RULES}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda path: path.stem)
def test_a_stack_config_names_only_rules_and_their_knobs(path):
    config = json.loads(path.read_text(encoding="utf-8"))
    assert set(config) - {"all"} <= set(NAMES)
    for name, rule in NAMES.items():
        level, properties = policy_entry(config, name)  # raises on an unknown level
        schema = {"type": "object", "properties": config_schema_properties(rule.knobs), "additionalProperties": False}
        jsonschema.validate(properties, schema)


def test_prod_makes_every_rule_mandatory_and_every_example_still_passes():
    config = json.loads((ROOT / "policies" / "config" / "prod.json").read_text(encoding="utf-8"))
    assert {policy_entry(config, name)[0] for name in NAMES} == {"mandatory"}
    for name in ("p5-capacity-block", "heterogeneous", "dev-g6e", "rail-131k", "inference-fleet"):
        report = run_policies(example(name), config=config)
        assert not report.violations and not report.errors, (name, [(v.rule_id, v.message) for v in report.violations])


def test_dev_turns_the_spot_and_ceiling_rules_advisory_for_the_insecure_example():
    config = json.loads((ROOT / "policies" / "config" / "dev.json").read_text(encoding="utf-8"))
    levels = {violation.rule_id: violation.enforcement for violation in run_policies(example("insecure"), config=config).violations}
    assert levels["GOV004"] == "advisory" and "GOV002" not in levels  # training may use spot in dev
    assert levels["SEC006"] == "mandatory"
