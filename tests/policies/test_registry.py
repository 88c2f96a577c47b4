"""The catalog is explicit and consistent: ids, names, one rule per module, policies, schemas, tag coverage."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy

import policies.rules
from policies.config import KNOBS
from policies.registry import RULES, RegistryError, check_registry, rule
from policies.rule import SchemaRule
from policies.rules.governance.required_tags import TAGGABLE_TYPES
from policies.schema import validator_for
from tests.policies.previews import EXAMPLES, example

DOMAIN_PREFIX = {"security": "SEC", "correctness": "COR", "governance": "GOV"}
DEFAULTS = {knob.key: knob.default for knob in KNOBS}


def rule_modules():
    """Every module under policies/rules/<domain>/, imported."""
    for domain in pkgutil.iter_modules(policies.rules.__path__):
        package = importlib.import_module(f"policies.rules.{domain.name}")
        for module in pkgutil.iter_modules(package.__path__):
            yield importlib.import_module(f"policies.rules.{domain.name}.{module.name}")


def test_the_catalog_covers_the_three_domains_with_at_least_eighteen_rules():
    assert len(RULES) >= 18
    assert {r.domain for r in RULES} == set(DOMAIN_PREFIX)


@pytest.mark.parametrize("registered", RULES, ids=lambda r: r.id)
def test_rule_metadata_is_well_formed(registered):
    assert re.fullmatch(rf"{DOMAIN_PREFIX[registered.domain]}\d{{3}}", registered.id)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", registered.name)
    assert registered.title and registered.fix and registered.enforcement in ("advisory", "mandatory")


def test_every_rule_module_is_registered_once_and_holds_one_rule():
    modules = list(rule_modules())
    assert sorted(module.RULE.id for module in modules) == sorted(r.id for r in RULES)
    for module in modules:
        assert module.__doc__.startswith(f"{module.RULE.id}: "), module.__name__
        assert sum(1 for value in vars(module).values() if value in RULES) == 1, module.__name__


def test_the_registry_refuses_a_duplicate_id_and_a_duplicate_name():
    first = rule("SEC001")
    with pytest.raises(RegistryError, match="rule id 'SEC001' is used twice"):
        check_registry([first, first])
    renamed = SchemaRule(**{**vars(rule("SEC002")), "name": first.name})
    with pytest.raises(RegistryError, match="rule name 'imdsv2-required' is used twice"):
        check_registry([first, renamed])


def test_an_unknown_rule_id_names_the_known_ones():
    with pytest.raises(KeyError, match="no rule 'SEC999'; known: SEC001, SEC002"):
        rule("SEC999")


@pytest.mark.parametrize("registered", RULES, ids=lambda r: r.id)
def test_rule_becomes_the_crossguard_policy_of_its_kind(registered):
    policy = registered.policy()
    expected = StackValidationPolicy if registered.kind == "stack" else ResourceValidationPolicy
    assert isinstance(policy, expected)
    assert policy.name == registered.name and policy.description.startswith(f"{registered.id}: ")
    assert policy.enforcement_level == EnforcementLevel(registered.enforcement)
    knob_keys = {knob.key for knob in registered.knobs}
    assert (set(policy.config_schema.properties) if policy.config_schema else set()) == knob_keys
    for key in knob_keys:
        assert policy.config_schema.properties[key]["default"] == DEFAULTS[key]


@pytest.mark.parametrize("registered", [r for r in RULES if isinstance(r, SchemaRule)], ids=lambda r: r.id)
def test_every_cerberus_schema_is_a_valid_schema(registered):
    for resource_type in registered.resource_types:
        validator_for(registered.schema_for(resource_type, DEFAULTS))
    for conditions in registered.applies_when.values():
        for condition in conditions if isinstance(conditions, tuple) else (conditions,):
            validator_for(condition)


def _pulumi_aws_source(type_token: str) -> str:
    module, kind = type_token.split(":")[1].split("/")
    file_name = re.sub(r"(?<!^)(?=[A-Z])", "_", kind).lower() + ".py"
    root = Path(importlib.util.find_spec("pulumi_aws").origin).parent
    return (root / module / file_name).read_text()


def _takes_tags(type_token: str) -> bool:
    return '__props__.__dict__["tags"] = tags' in _pulumi_aws_source(type_token)


@pytest.mark.parametrize("type_token", TAGGABLE_TYPES)
def test_every_type_the_tag_rule_checks_takes_tags_in_pulumi_aws(type_token):
    assert _takes_tags(type_token)


def test_every_taggable_type_the_examples_emit_is_checked_for_tags():
    emitted = {resource.type for path in EXAMPLES.glob("*.yaml") for resource in example(path.stem).resources if resource.type.startswith("aws:")}
    assert {token for token in emitted if _takes_tags(token)} <= set(TAGGABLE_TYPES)
