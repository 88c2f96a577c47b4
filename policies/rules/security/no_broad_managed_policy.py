"""SEC016: no role of the stack holds an AWS managed policy that grants (nearly) everything.

`AdministratorAccess`, `PowerUserAccess` and `IAMFullAccess` on a node or
service role make one compromised pod an account compromise. Checkov's
CKV_AWS_274 refuses `AdministratorAccess`; the pack refuses the names in
`forbiddenManagedPolicies`, whether attached with a RolePolicyAttachment or
listed in the role's `managedPolicyArns`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from policies.config import BROAD_MANAGED_POLICIES
from policies.resource_types import IAM_ROLE, ROLE_POLICY_ATTACHMENT
from policies.rule import ResourceRule
from policies.stack import items, value

MANAGED_PREFIX = ":iam::aws:policy/"


def _broad(arn: Any, forbidden: set[str]) -> str | None:
    if isinstance(arn, str) and MANAGED_PREFIX in arn and arn.rsplit("/", 1)[-1] in forbidden:
        return arn.rsplit("/", 1)[-1]
    return None


def check(props: Mapping[str, Any], settings) -> Iterable[str]:
    """Attached managed policies whose name is forbidden."""
    forbidden = set(settings[BROAD_MANAGED_POLICIES.key])
    arns = [value(props, "policyArn")] + list(items(value(props, "managedPolicyArns")))
    for arn in arns:
        name = _broad(arn, forbidden)
        if name:
            yield f"attaches the AWS managed policy {name}"


RULE = ResourceRule(
    id="SEC016",
    name="no-broad-managed-policy",
    title="No role has AdministratorAccess, PowerUserAccess or IAMFullAccess attached (forbiddenManagedPolicies)",
    domain="security",
    severity="critical",
    knobs=(BROAD_MANAGED_POLICIES,),
    resource_types=(ROLE_POLICY_ATTACHMENT, IAM_ROLE),
    check=check,
    fix="attach only the policies the role needs (railyard's node role: AmazonEKSWorkerNodePolicy, "
    "AmazonEC2ContainerRegistryReadOnly, AmazonEKS_CNI_Policy)",
)
