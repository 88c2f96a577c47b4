"""Declared quotas are values an account can have: within Service Quotas' bounds, and not below what a design divides by.

A 0 for nodes per managed node group once reached `split_share` and ended
`validate` in a ZeroDivisionError (issue 31, a mutation of rail-131k).
"""

from __future__ import annotations

import pytest

from blueprints.catalog.quotas import load_quotas
from blueprints.models.quotas import MOST_QUOTA
from tests.blueprints.base import BASE, load


def declared(quotas: str) -> list:
    return [finding for finding in load(BASE + f"quotas: {{{quotas}}}\n").findings if finding.is_error]


@pytest.mark.parametrize("code", ["L-BD136A63", "L-6D54EA21", "L-83CA0A9D"])
def test_a_zero_where_the_design_needs_one_is_refused_at_its_line_with_the_reason(code):
    (finding,) = declared(f"{code}: 0")
    quota = load_quotas()[code]
    assert finding.code == "quota.below-minimum" and finding.path == ("quotas", code)
    assert finding.line == BASE.count("\n") + 1
    assert quota.minimum_why in finding.message and str(quota.default) in finding.hint


def test_a_zero_vcpu_quota_is_a_value_the_account_can_have():
    assert declared("L-417A185B: 0") == []


@pytest.mark.parametrize("value", [-1, MOST_QUOTA + 1])
def test_a_value_outside_service_quotas_bounds_is_a_schema_error(value):
    (finding,) = declared(f"L-417A185B: {value}")
    assert finding.code.startswith("schema.") and finding.path == ("quotas", "L-417A185B")


def test_every_least_value_says_why():
    for quota in load_quotas().values():
        assert quota.minimum >= 0 and (quota.minimum == 0 or quota.minimum_why), quota.code
