"""The admission policy that binds the acceptance checker to its own node, and to the acceptance marks on it.

RBAC can't name "the node this pod runs on", so the checker's ClusterRole (`get`, `patch` on `nodes`, `patch` on
`nodes/status`) reaches every node. Kubernetes narrows a service account to its node the way it narrows the kubelet:
a service account token bound to a pod carries the pod's node in the user's extra info,
`authentication.kubernetes.io/node-name` (kubernetes/kubernetes `pkg/serviceaccount/claims.go`; feature gate
`ServiceAccountTokenPodNodeInfo`: alpha 1.29, beta and on by default 1.30, GA and locked on 1.32, per
`pkg/features/versioned_kube_features.go` @ 20b2eef9). Every Kubernetes version railyard pins (1.32 and later) sets
it; a test holds the pins to that. A ValidatingAdmissionPolicy (`admissionregistration.k8s.io/v1`, GA in 1.30) then
refuses, for the checker's service account only (its `matchConditions`), any update of a node that is not the one
in its token, or that changes anything but the acceptance taint, the `railyard.dev/Accepted` condition, the
`railyard.dev/acceptance` label and the two acceptance annotations. `failurePolicy: Fail`: a request the policy
can't evaluate is refused, never let through.

What is held besides: the node's other labels, annotations, taints and `unschedulable`, its other conditions, and
its `capacity` and `allocatable` (what the scheduler places pods by). The rest of the status (addresses, images,
node info) is the kubelet's, rewritten every few seconds, and left to RBAC. The expressions use only what both the
API server's CEL and cel-python (the test's evaluator) read: `has()` guards, not the `?.` optional syntax.
"""

from __future__ import annotations

from typing import Any

from topology.cluster.labels import ACCEPTANCE_KEY

NAME = "railyard-acceptance-own-node"
NODE_NAME_EXTRA = "authentication.kubernetes.io/node-name"
# The marks the checker writes (acceptance/kube.py, acceptance/replace.py).
LABEL = ACCEPTANCE_KEY
ANNOTATIONS = ("railyard.dev/acceptance", "railyard.dev/acceptance-replacement")
CONDITION = "railyard.dev/Accepted"


def _map(side: str, field: str) -> str:
    return f"has({side}.metadata.{field}) ? {side}.metadata.{field} : {{}}"


def _kept(new: str, old: str, mine: str) -> str:
    """Every key of the map other than the checker's own is in both versions with the same value."""
    return (
        f"variables.{new}.all(k, k in {mine} || (k in variables.{old} && variables.{old}[k] == variables.{new}[k]))"
        f" && variables.{old}.all(k, k in {mine} || k in variables.{new})"
    )


def _same(field: str, default: str) -> str:
    return f"(has(object.{field}) ? object.{field} : {default}) == (has(oldObject.{field}) ? oldObject.{field} : {default})"


VARIABLES = (
    ("newLabels", _map("object", "labels")),
    ("oldLabels", _map("oldObject", "labels")),
    ("newAnnotations", _map("object", "annotations")),
    ("oldAnnotations", _map("oldObject", "annotations")),
    ("otherTaints", f"(has(object.spec.taints) ? object.spec.taints : []).filter(t, t.key != '{LABEL}')"),
    ("oldOtherTaints", f"(has(oldObject.spec.taints) ? oldObject.spec.taints : []).filter(t, t.key != '{LABEL}')"),
    ("otherConditions", f"(has(object.status.conditions) ? object.status.conditions : []).filter(c, c.type != '{CONDITION}')"),
    ("oldOtherConditions", f"(has(oldObject.status.conditions) ? oldObject.status.conditions : []).filter(c, c.type != '{CONDITION}')"),
)

VALIDATIONS = (
    (
        f"has(request.userInfo.extra) && '{NODE_NAME_EXTRA}' in request.userInfo.extra"
        f" && request.userInfo.extra['{NODE_NAME_EXTRA}'] == [object.metadata.name]",
        "the acceptance checker may change only the node its pod runs on (the token's authentication.kubernetes.io/node-name)",
    ),
    (_kept("newLabels", "oldLabels", f"['{LABEL}']"), f"the acceptance checker may change only the label {LABEL}"),
    (
        _kept("newAnnotations", "oldAnnotations", str(list(ANNOTATIONS))),
        f"the acceptance checker may change only the annotations {', '.join(ANNOTATIONS)}",
    ),
    (
        f"variables.otherTaints == variables.oldOtherTaints && {_same('spec.unschedulable', 'false')}",
        f"the acceptance checker may change only the taint {LABEL}",
    ),
    (
        f"variables.otherConditions == variables.oldOtherConditions && {_same('status.capacity', '{}')} && {_same('status.allocatable', '{}')}",
        f"the acceptance checker may change only the condition {CONDITION} of the node's status",
    ),
)


def policy_spec(service_account: str, namespace: str) -> dict[str, Any]:
    """The ValidatingAdmissionPolicy's spec: updates of nodes and their status by the checker's service account only."""
    username = f"system:serviceaccount:{namespace}:{service_account}"
    return {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["UPDATE"], "resources": ["nodes", "nodes/status"]}]
        },
        "matchConditions": [{"name": "acceptance-checker", "expression": f"request.userInfo.username == '{username}'"}],
        "variables": [{"name": name, "expression": expression} for name, expression in VARIABLES],
        "validations": [{"expression": expression, "message": message, "reason": "Forbidden"} for expression, message in VALIDATIONS],
    }


def binding_spec() -> dict[str, Any]:
    """The binding that puts the policy in force cluster-wide: refuse (`Deny`) what it does not allow."""
    return {"policyName": NAME, "validationActions": ["Deny"]}
