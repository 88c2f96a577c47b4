"""The shipped blueprints against the whole pack: examples and stacks pass, insecure.yaml fails as designed."""

from __future__ import annotations

import pytest

from blueprints.catalog.prices import load_prices
from policies.runner import run_policies
from tests.policies.previews import EXAMPLES, ROOT, example, preview

SOUND_EXAMPLES = sorted(path.stem for path in EXAMPLES.glob("*.yaml") if path.stem != "insecure")
STACKS = tuple(sorted(path.name[len("Pulumi.") : -len(".yaml")] for path in ROOT.glob("Pulumi.*.yaml")))
INSECURE_RULES = {"SEC003", "SEC006", "COR006", "GOV001", "GOV002", "GOV004"}


PRICED_REGIONS = set(load_prices().on_demand_regions)


# Examples whose instance type railyard's price tables don't cover in a region they do: AWS prices p6e-gb200's
# UltraServer Capacity Blocks when it offers one, and no table holds a rate for it.
UNPRICED_TYPES = {"p6e-gb200-nvl72": "gb200-prod-nvl72-dfw"}


def _unpriced_only(report, region: str, name: str | None = None) -> None:
    """The one rule allowed to be unverifiable: the cost ceiling, where railyard has no prices for the region or the type."""
    if region in PRICED_REGIONS and name not in UNPRICED_TYPES:
        assert report.unverified == []
        return
    assert [entry.rule_id for entry in report.unverified] == ["GOV005"]
    groups = f" {UNPRICED_TYPES[name]}:" if name in UNPRICED_TYPES else ""
    assert f"no {region} price for node group(s){groups}" in report.unverified[0].message


@pytest.mark.parametrize("name", SOUND_EXAMPLES)
def test_example_passes_every_rule(name):
    previewed = example(name)
    report = run_policies(previewed)
    assert report.errors == [] and report.notes == []
    _unpriced_only(report, previewed.result.validation.blueprint.cloud.region, name)
    assert report.violations == [] and not report.mandatory_failed


@pytest.mark.parametrize("stack", STACKS)
def test_environment_passes_every_rule(stack):
    previewed = preview(stack=stack)
    report = run_policies(previewed)
    assert report.errors == []
    _unpriced_only(report, previewed.result.validation.blueprint.cloud.region)
    assert report.violations == [] and not report.mandatory_failed


def test_insecure_example_fails_with_exactly_the_expected_rules():
    report = run_policies(example("insecure"))
    assert report.mandatory_failed
    assert report.rule_ids() == report.rule_ids("mandatory") == INSECURE_RULES


def test_insecure_example_names_each_offending_resource():
    by_rule = {}
    for violation in run_policies(example("insecure")).violations:
        by_rule.setdefault(violation.rule_id, set()).add(violation.urn.rsplit("::", 1)[-1] if violation.urn else None)
    assert by_rule["SEC003"] == {"insecure-dev-storage-scratch"}
    assert by_rule["SEC006"] == {"insecure-dev-eks-control-plane"}
    assert by_rule["GOV001"] == {"insecure-dev-cheap-train-usw2a-template"}
    assert by_rule["GOV002"] == {"insecure-dev-cheap-train-usw2a"}
    assert by_rule["GOV004"] == {None}
    assert by_rule["COR006"] == {"insecure-dev-storage-scratch"}
