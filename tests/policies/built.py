"""Small stacks built by hand, for testing one rule at a time on exactly the resources a case needs.

The preview cases (`test_rules.py`) prove each rule against what the compiler really emits; these prove each
condition of a rule on its own: a stack of three resources where only one half of an `and` holds, a count one past
its threshold. They run through `policies.runner.run_policies`, the engine's own path (props round-tripped through a
protobuf Struct, numbers made floats, stack rules given linked `PolicyResource`s), so what a rule reads here is what
it reads in `pulumi preview`.
"""

from __future__ import annotations

from typing import Any

from policies.registry import rule
from policies.runner import PolicyReport, run_policies
from railyard.mocked import PreviewResource
from tests.policies.previews import Preview


def made(type_token: str, name: str, inputs: dict[str, Any] | None = None, id: str = "", **dependencies: list[str]) -> PreviewResource:
    """A registered resource: its URN from type and name, its inputs, and (optionally) its id and property dependencies."""
    return PreviewResource(
        urn=urn(type_token, name),
        type=type_token,
        name=name,
        parent="",
        inputs=inputs or {},
        id=id,
        property_dependencies={prop: tuple(urns) for prop, urns in dependencies.items()},
    )


def urn(type_token: str, name: str) -> str:
    """The URN `made` gives a resource of `type_token` named `name`."""
    return f"urn:pulumi:test::railyard::{type_token}::{name}"


def report(rule_id: str, *resources: PreviewResource, config: dict | None = None) -> PolicyReport:
    """One rule's report over a stack of `resources` (a rule that crashes fails the test)."""
    result = run_policies(Preview(list(resources)), config=config, rules=[rule(rule_id)])
    assert result.errors == [], [error.message for error in result.errors]
    return result


def messages(rule_id: str, *resources: PreviewResource, config: dict | None = None) -> list[str]:
    """The violations' messages, each without the rule's `. Fix: ...` ending (asserted present)."""
    fix = f". Fix: {rule(rule_id).fix}"
    found = []
    for violation in report(rule_id, *resources, config=config).violations:
        assert violation.rule_id == rule_id and violation.message.endswith(fix), violation.message
        found.append(violation.message.removesuffix(fix))
    return found


def violated(rule_id: str, *resources: PreviewResource, config: dict | None = None) -> list[tuple[str | None, str]]:
    """(URN, message without the fix) of each violation."""
    fix = f". Fix: {rule(rule_id).fix}"
    return [(violation.urn, violation.message.removesuffix(fix)) for violation in report(rule_id, *resources, config=config).violations]
