"""The admission policy that binds the checker to its own node, evaluated with a real CEL evaluator (cel-python) the way
the API server composes it (match conditions, then variables, then every validation), over the requests the checker
really sends (acceptance.kube.publish against an in-memory node) and over the ones a compromised checker would.

    node ip-10-0-0-1 (pending)                      the checker's token: node-name ip-10-0-0-1
      labels       railyard.dev/pool=p5, railyard.dev/acceptance=pending
      taints       nvidia.com/gpu=true:NoSchedule, railyard.dev/acceptance=pending:NoSchedule
      conditions   Ready=True
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

import celpy
import pytest

from acceptance import check_folder
from acceptance.kube import publish
from blueprints.catalog.pins import load_pins
from components.kubernetes.acceptance import NAME, NAMESPACE
from components.kubernetes.acceptance_policy import NODE_NAME_EXTRA, binding_spec, policy_spec
from tests.acceptance.evidence import one_h100, real_folder
from tests.kubernetes.k8s_types import conforms

CHECKER = f"system:serviceaccount:{NAMESPACE}:{NAME}"
SPEC = policy_spec(NAME, NAMESPACE)
NODE: dict[str, Any] = {
    "metadata": {
        "name": "ip-10-0-0-1",
        "resourceVersion": "7",
        "labels": {"railyard.dev/pool": "p5", "railyard.dev/acceptance": "pending"},
        "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
    },
    "spec": {
        "providerID": "aws:///us-east-1a/i-0123456789abcdef0",
        "taints": [
            {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
            {"key": "railyard.dev/acceptance", "value": "pending", "effect": "NoSchedule"},
        ],
    },
    "status": {
        "capacity": {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"},
        "allocatable": {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"},
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
    },
}
_ENVIRONMENT = celpy.Environment()


def _evaluate(expression: str, activation: dict[str, Any]) -> Any:
    program = _ENVIRONMENT.program(_ENVIRONMENT.compile(expression))
    return program.evaluate({name: celpy.json_to_cel(value) for name, value in activation.items()})


def admit(old: dict, new: dict, user: str = CHECKER, node_name: str | None = "ip-10-0-0-1") -> list[str]:
    """What the policy refuses of this update, as the messages of its failed validations (empty: admitted)."""
    extra = {NODE_NAME_EXTRA: [node_name]} if node_name else {}
    request = {"operation": "UPDATE", "userInfo": {"username": user, "extra": extra}}
    activation: dict[str, Any] = {"request": request, "object": new, "oldObject": old}
    if not all(_evaluate(condition["expression"], activation) for condition in SPEC["matchConditions"]):
        return []
    activation["variables"] = {variable["name"]: _evaluate(variable["expression"], activation) for variable in SPEC["variables"]}
    return [validation["message"] for validation in SPEC["validations"] if not _evaluate(validation["expression"], activation)]


class InMemoryNode:
    """A stand-in API server holding one node: it applies the checker's patches and keeps each (before, after)."""

    def __init__(self, node: dict) -> None:
        self.node = copy.deepcopy(node)
        self.updates: list[tuple[dict, dict]] = []

    def request(self, method: str, path: str, body: Any = None, content_type: str = "application/json") -> dict:
        if method == "GET":
            return copy.deepcopy(self.node)
        before, after = self.node, copy.deepcopy(self.node)
        if content_type == "application/strategic-merge-patch+json":  # status.conditions merge by type
            for condition in body["status"]["conditions"]:
                kept = [c for c in after["status"]["conditions"] if c["type"] != condition["type"]]
                after["status"]["conditions"] = [*kept, condition]
        elif content_type == "application/merge-patch+json":
            after["metadata"]["annotations"] |= body["metadata"]["annotations"]
        else:
            for operation in body:
                key = operation["path"].split("/")[-1].replace("~1", "/")
                if operation["op"] == "test":
                    assert after["metadata"]["resourceVersion"] == operation["value"]
                elif operation["path"] == "/spec/taints":
                    after["spec"]["taints"] = operation["value"]
                else:
                    after["metadata"]["labels"][key] = operation["value"]
        self.updates.append((before, after))
        self.node = after
        return {}


def _changed(change) -> dict:
    node = copy.deepcopy(NODE)
    change(node)
    return node


def test_every_request_the_checker_sends_to_publish_a_pass_and_lift_the_taint_is_admitted(tmp_path):
    node = InMemoryNode(NODE)
    report = check_folder(one_h100(), real_folder(tmp_path))
    assert publish(report, "ip-10-0-0-1", node, lift_taint=True, now=datetime(2026, 11, 29, tzinfo=UTC))  # type: ignore[arg-type]
    assert len(node.updates) == 3
    assert [admit(before, after) for before, after in node.updates] == [[], [], []]
    assert node.node["metadata"]["labels"]["railyard.dev/acceptance"] == "passed"
    assert [taint["key"] for taint in node.node["spec"]["taints"]] == ["nvidia.com/gpu"]


def test_the_replacement_annotation_and_a_failed_verdict_are_admitted():
    failed = {"type": "railyard.dev/Accepted", "status": "False", "reason": "ReplacementRequested", "message": "gpu.xid"}
    verdict = _changed(lambda n: n["status"]["conditions"].append(failed))
    assert admit(NODE, verdict) == []
    annotated = _changed(lambda n: n["metadata"]["annotations"].update({"railyard.dev/acceptance-replacement": "{}"}))
    assert admit(NODE, annotated) == []


OWN_NODE = "the acceptance checker may change only the node its pod runs on (the token's authentication.kubernetes.io/node-name)"
REFUSED = {
    "another node's taint lifted": (
        lambda n: n.update(metadata=n["metadata"] | {"name": "ip-10-0-0-2"}, spec=n["spec"] | {"taints": n["spec"]["taints"][:1]}),
        [OWN_NODE],
    ),
    "another label changed": (
        lambda n: n["metadata"]["labels"].update({"railyard.dev/pool": "serve"}),
        ["the acceptance checker may change only the label railyard.dev/acceptance"],
    ),
    "a label removed": (
        lambda n: n["metadata"]["labels"].pop("railyard.dev/pool"),
        ["the acceptance checker may change only the label railyard.dev/acceptance"],
    ),
    "another annotation added": (
        lambda n: n["metadata"]["annotations"].update({"example.com/x": "1"}),
        ["the acceptance checker may change only the annotations railyard.dev/acceptance, railyard.dev/acceptance-replacement"],
    ),
    "another taint lifted": (
        lambda n: n["spec"].update(taints=n["spec"]["taints"][1:]),
        ["the acceptance checker may change only the taint railyard.dev/acceptance"],
    ),
    "the node cordoned": (
        lambda n: n["spec"].update(unschedulable=True),
        ["the acceptance checker may change only the taint railyard.dev/acceptance"],
    ),
    "the Ready condition forged": (
        lambda n: n["status"].update(conditions=[{"type": "Ready", "status": "False", "reason": "Forged"}]),
        ["the acceptance checker may change only the condition railyard.dev/Accepted of the node's status"],
    ),
    "more GPUs advertised": (
        lambda n: n["status"]["allocatable"].update({"nvidia.com/gpu": "16"}),
        ["the acceptance checker may change only the condition railyard.dev/Accepted of the node's status"],
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_compromised_checker_is_refused_exactly_the_rule_it_breaks(case):
    change, messages = REFUSED[case]
    assert admit(NODE, _changed(change)) == messages


def test_a_token_without_a_node_or_bound_to_another_node_is_refused():
    lifted = _changed(lambda n: n["spec"].update(taints=n["spec"]["taints"][:1]))
    assert admit(NODE, lifted) == []
    assert admit(NODE, lifted, node_name=None) == [OWN_NODE]
    assert admit(NODE, lifted, node_name="ip-10-0-0-2") == [OWN_NODE]


def test_the_policy_does_not_touch_anyone_else():
    forged = _changed(lambda n: n["status"].update(conditions=[{"type": "Ready", "status": "False"}]))
    assert admit(NODE, forged, user="system:node:ip-10-0-0-1") == []


def test_the_policy_and_binding_conform_to_the_pinned_types_and_fail_closed():
    assert conforms(SPEC, "admissionregistration", "v1", "ValidatingAdmissionPolicySpecArgsDict") == []
    assert conforms(binding_spec(), "admissionregistration", "v1", "ValidatingAdmissionPolicyBindingSpecArgsDict") == []
    assert SPEC["failurePolicy"] == "Fail" and binding_spec()["validationActions"] == ["Deny"]
    assert SPEC["matchConstraints"]["resourceRules"][0]["resources"] == ["nodes", "nodes/status"]


def test_every_pinned_kubernetes_version_puts_the_node_name_in_the_token():
    # ServiceAccountTokenPodNodeInfo: beta and on by default from 1.30, GA and locked on from 1.32; the policy's API,
    # admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy, is GA from 1.30. Below 1.30 the policy would refuse
    # every request of the checker (no node name in its token): a version pinned below must not be added silently.
    versions = [tuple(int(part) for part in entry.version.split(".")) for entry in load_pins().kubernetes]
    assert versions and min(versions) >= (1, 30)
