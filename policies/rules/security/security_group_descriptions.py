"""SEC018: every security group and every rule says why it exists.

A rule without a description is one nobody dares remove, and audits of
network exposure start from the descriptions. Checkov's CKV_AWS_23 asks a
description of every security group and rule (inline `ingress`/`egress`
entries and standalone rules alike); the real API caps them at 255
characters of a restricted set, which COR008 checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from policies.resource_types import EGRESS_RULE, INGRESS_RULE, SECURITY_GROUP, SECURITY_GROUP_RULE
from policies.rule import ResourceRule
from policies.stack import items, value


def _blank(text: Any) -> bool:
    return not isinstance(text, str) or not text.strip()


def check(props: Mapping[str, Any], settings) -> Iterable[str]:
    """The group's description and each inline rule's, or the standalone rule's."""
    if _blank(value(props, "description")):
        yield "description is not set"
    for direction in ("ingress", "egress"):
        for index, rule in enumerate(items(value(props, direction))):
            if _blank(value(rule, "description")):
                yield f"{direction}[{index}].description is not set"


RULE = ResourceRule(
    id="SEC018",
    name="security-group-descriptions",
    title="Security groups and their rules have descriptions",
    domain="security",
    severity="low",
    resource_types=(SECURITY_GROUP, SECURITY_GROUP_RULE, INGRESS_RULE, EGRESS_RULE),
    check=check,
    fix="give the security group and each of its rules a description saying what the traffic is for",
)
