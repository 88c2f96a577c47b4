"""SEC015: no role trusts every principal.

A role whose trust policy allows `sts:AssumeRole` to `"*"` (or to `{"AWS":
"*"}`) can be assumed from any AWS account unless a condition narrows it.
Checkov's CKV_AWS_60 and CKV_AWS_61 refuse such trust policies; railyard's
roles trust only the EKS and EC2 service principals.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from policies.resource_types import IAM_ROLE
from policies.rule import NotApplicable, ResourceRule
from policies.stack import items, value


def _statements(document: Any) -> list[Mapping[str, Any]]:
    if isinstance(document, str):
        try:
            document = json.loads(document)
        except ValueError:
            raise NotApplicable("the trust policy is not JSON") from None
    if not isinstance(document, Mapping):
        raise NotApplicable("the trust policy is not known yet")
    statements = document.get("Statement", [])
    return [statements] if isinstance(statements, Mapping) else list(items(statements))


def _everyone(principal: Any) -> bool:
    if principal == "*":
        return True
    if isinstance(principal, Mapping):
        return any(entry == "*" or (isinstance(entry, list) and "*" in entry) for entry in principal.values())
    return False


def check(props: Mapping[str, Any], settings) -> Iterable[str]:
    """Allow statements whose principal is everyone and that carry no condition."""
    for index, statement in enumerate(_statements(value(props, "assumeRolePolicy"))):
        if statement.get("Effect") == "Allow" and _everyone(statement.get("Principal")) and not statement.get("Condition"):
            yield f"assumeRolePolicy statement {index} lets any principal assume the role, with no condition"


RULE = ResourceRule(
    id="SEC015",
    name="iam-trust-policy-scoped",
    title="No IAM role trusts every principal without a condition",
    domain="security",
    severity="critical",
    resource_types=(IAM_ROLE,),
    check=check,
    fix="name the service or account principals that may assume the role, or add a condition that narrows them",
)
