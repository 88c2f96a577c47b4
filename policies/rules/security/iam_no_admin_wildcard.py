"""SEC010: no IAM policy allows every action on every resource.

`Allow` of `*` (or `*:*`) on `*` is administrator access: a node or pod that
holds it can rewrite the account. The rule reads the JSON documents of
managed policies, inline role/user/group policies and a role's
`inlinePolicies`; a document that is not valid JSON is reported, since the
provider would reject it anyway. A trust policy (`assumeRolePolicy`) grants
nothing and is not read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from policies.resource_types import IAM_GROUP_POLICY, IAM_POLICY, IAM_ROLE, IAM_ROLE_POLICY, IAM_USER_POLICY
from policies.rule import ResourceRule
from policies.schema import plain
from policies.stack import items, value

WILDCARD_ACTIONS = {"*", "*:*"}


def _as_list(entry: Any) -> list[Any]:
    return entry if isinstance(entry, list) else [entry]


def admin_statements(document: Any) -> list[int]:
    """Indices of the statements that allow every action on every resource."""
    if isinstance(document, str):
        document = json.loads(document)
    statements = _as_list(document.get("Statement", [])) if isinstance(document, Mapping) else []
    return [
        index
        for index, statement in enumerate(statements)
        if isinstance(statement, Mapping)
        and statement.get("Effect") == "Allow"
        and WILDCARD_ACTIONS & set(_as_list(statement.get("Action", [])))
        and "*" in _as_list(statement.get("Resource", []))
    ]


def _documents(props: Mapping[str, Any]) -> Iterable[tuple[str, Any]]:
    if "policy" in props:
        yield "policy", plain(value(props, "policy"))
    for index, inline in enumerate(items(value(props, "inlinePolicies"))):
        if "policy" in inline:
            yield f"inlinePolicies[{index}].policy", plain(inline["policy"])


def check(props: Mapping[str, Any], settings) -> Iterable[str]:
    """Problems: each document with an `Allow *` on `*` statement, or that is not JSON."""
    for where, document in _documents(props):
        try:
            indices = admin_statements(document)
        except json.JSONDecodeError as error:
            yield f"{where} is not a JSON policy document ({error.msg} at character {error.pos})"
            continue
        for index in indices:
            yield f"{where} Statement[{index}] allows action '*' on resource '*'"


RULE = ResourceRule(
    id="SEC010",
    name="iam-no-admin-wildcard",
    title="No IAM policy allows '*' actions on '*' resources",
    domain="security",
    severity="critical",
    resource_types=(IAM_POLICY, IAM_ROLE_POLICY, IAM_USER_POLICY, IAM_GROUP_POLICY, IAM_ROLE),
    check=check,
    fix="grant the specific actions the role needs on the specific resource ARNs (or attach the AWS managed policy made for the job)",
)
