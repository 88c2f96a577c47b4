"""COR008: every input the real AWS and Kubernetes APIs constrain obeys their published rule.

A mocked preview accepts anything; `CreateSecurityGroup` refuses an
apostrophe in a description, EKS a node-group name of 64 characters, S3 a
bucket name with `..`, the API server a label value over 63 characters.
`data/api_constraints.json` holds those rules per resource type and input:
enums, lengths, ranges and patterns copied from botocore's service models,
and the rules AWS and Kubernetes publish only in prose, each with its source
(`python -m policies.generate_constraints` regenerates it). A violation
quotes the input, the bad value, the rule and its source.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from policies.api_constraints import violations
from policies.rule import StackRule
from policies.stack import Stack


def check(stack: Stack, settings) -> Iterable[tuple[Any, str]]:
    """Each resource's inputs against every rule that covers its type."""
    for resource in stack.resources:
        for problem in violations(resource.resource_type, resource.name, resource.props):
            yield resource, problem


RULE = StackRule(
    id="COR008",
    name="api-input-constraints",
    title="Resource inputs obey the rules the real AWS and Kubernetes APIs apply (names, descriptions, tags, enums, ranges)",
    domain="correctness",
    severity="high",
    check=check,
    fix="change the value to one the API accepts (the message quotes the rule and its source); when railyard "
    "derived it from the blueprint, change the blueprint field it came from",
)
