"""Writing the verdict on the node (acceptance/kube.py) against a recording stand-in for the API server, where
mutation testing found it unheld: the condition of a passed, a failed and an empty report (in UTC); the taint lifted
only from a passed node asked to, and only the acceptance taint; the label moved from pending to passed in the same
patch; a conflict (409 or 422) read again at most three times; another refusal raised; the API's error message cut
at 300 characters; and the in-cluster client refused outside a pod."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from acceptance.kube import ApiError, NodeApi, condition, publish
from acceptance.report import Check, Report

NOW = datetime(2026, 11, 27, 18, 0, tzinfo=UTC)
PASSED = Report((Check("gpu.count", True, "8 GPUs", "8 attached, 8 listed", "nvidia-smi"),))
FAILED = Report((Check("gpu.count", False, "8 GPUs", "7 attached, 7 listed", "nvidia-smi"), Check("gpu.xid", False, "no Xid", "Xid 79", "dmesg")))
ACCEPTANCE = {"key": "railyard.dev/acceptance", "value": "pending", "effect": "NoSchedule"}
GPU = {"key": "nvidia.com/gpu", "effect": "NoSchedule"}


class Api:
    """Answers GET with a node carrying `taints` and `labels`; refuses the json-patches with the statuses in `refusals`."""

    def __init__(self, taints=(ACCEPTANCE, GPU), labels=None, refusals=()):
        self.taints, self.labels, self.refusals, self.requests = list(taints), labels, list(refusals), []

    def request(self, method, path, body=None, content_type="application/json"):
        self.requests.append((method, path, body, content_type))
        if method == "GET":
            return {"metadata": {"resourceVersion": str(len(self.requests)), "labels": self.labels}, "spec": {"taints": self.taints}}
        if content_type == "application/json-patch+json" and self.refusals:
            raise ApiError(method, path, self.refusals.pop(0), "Operation cannot be fulfilled")
        return {}


@pytest.mark.parametrize(
    ("report", "status", "reason", "message"),
    [
        (PASSED, "True", "AcceptancePassed", "every check passed"),
        (FAILED, "False", "AcceptanceFailed", "failed: gpu.count, gpu.xid"),
        (Report(()), "False", "AcceptanceFailed", "failed: no check ran"),
    ],
)
def test_the_condition_says_passed_or_which_checks_failed_stamped_in_utc(report, status, reason, message):
    local = NOW.astimezone(timezone(timedelta(hours=9)))
    assert condition(report, local) == {
        "type": "railyard.dev/Accepted",
        "status": status,
        "reason": reason,
        "message": message,
        "lastHeartbeatTime": "2026-11-27T18:00:00Z",
        "lastTransitionTime": "2026-11-27T18:00:00Z",
    }


def test_a_passed_node_asked_to_loses_only_the_acceptance_taint_after_a_read_that_the_patch_tests():
    api = Api(labels={"railyard.dev/acceptance": "pending"})
    assert publish(PASSED, "n1", api, lift_taint=True, now=NOW) is True
    assert [(method, path, content_type) for method, path, _, content_type in api.requests] == [
        ("PATCH", "/api/v1/nodes/n1/status", "application/strategic-merge-patch+json"),
        ("PATCH", "/api/v1/nodes/n1", "application/merge-patch+json"),
        ("GET", "/api/v1/nodes/n1", "application/json"),
        ("PATCH", "/api/v1/nodes/n1", "application/json-patch+json"),
    ]
    assert api.requests[1][2] == {"metadata": {"annotations": {"railyard.dev/acceptance": PASSED.as_json()}}}
    assert api.requests[3][2] == [
        {"op": "test", "path": "/metadata/resourceVersion", "value": "3"},
        {"op": "replace", "path": "/spec/taints", "value": [GPU]},
        {"op": "replace", "path": "/metadata/labels/railyard.dev~1acceptance", "value": "passed"},
    ]


def test_a_label_other_than_pending_or_no_labels_is_left_alone():
    for labels in ({"railyard.dev/acceptance": "passed"}, None):
        api = Api(labels=labels)
        assert publish(PASSED, "n1", api, lift_taint=True, now=NOW) is True
        assert [op["path"] for op in api.requests[-1][2]] == ["/metadata/resourceVersion", "/spec/taints"]


@pytest.mark.parametrize(("report", "lift"), [(FAILED, True), (PASSED, False)])
def test_a_failed_node_or_one_not_asked_to_keeps_its_taint_and_is_not_read(report, lift):
    api = Api()
    assert publish(report, "n1", api, lift_taint=lift, now=NOW) is False
    assert [method for method, *_ in api.requests] == ["PATCH", "PATCH"]


def test_a_node_without_the_acceptance_taint_is_read_once_and_not_patched():
    api = Api(taints=[GPU])
    assert publish(PASSED, "n1", api, lift_taint=True, now=NOW) is False
    assert [method for method, *_ in api.requests] == ["PATCH", "PATCH", "GET"]
    assert publish(PASSED, "n1", Api(taints=[]), lift_taint=True, now=NOW) is False


@pytest.mark.parametrize("status", [409, 422])
def test_a_conflict_is_read_again_and_the_third_read_is_the_last(status):
    api = Api(refusals=[status, status])
    assert publish(PASSED, "n1", api, lift_taint=True, now=NOW) is True
    assert [method for method, *_ in api.requests][2:] == ["GET", "PATCH", "GET", "PATCH", "GET", "PATCH"]
    stubborn = Api(refusals=[status] * 3)
    with pytest.raises(ApiError) as caught:
        publish(PASSED, "n1", stubborn, lift_taint=True, now=NOW)
    assert str(caught.value) == "PATCH /api/v1/nodes/n1: HTTP 409: the node kept changing: the taint was not removed after three reads"
    assert caught.value.status == 409


def test_another_refusal_of_the_patch_is_raised_at_once():
    api = Api(refusals=[403])
    with pytest.raises(ApiError) as caught:
        publish(PASSED, "n1", api, lift_taint=True, now=NOW)
    assert caught.value.status == 403
    assert [method for method, *_ in api.requests][2:] == ["GET", "PATCH"]


def test_the_api_error_names_the_request_and_cuts_the_servers_words_at_300_characters():
    error = ApiError("PATCH", "/api/v1/nodes/n1", 422, "x" * 301)
    assert (str(error), error.status) == (f"PATCH /api/v1/nodes/n1: HTTP 422: {'x' * 300}", 422)


def test_outside_a_pod_the_in_cluster_client_is_refused_saying_which_variables_are_unset(monkeypatch):
    for present in ({}, {"KUBERNETES_SERVICE_HOST": "10.100.0.1"}, {"KUBERNETES_SERVICE_PORT": "443"}):
        monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
        monkeypatch.delenv("KUBERNETES_SERVICE_PORT", raising=False)
        for name, value in present.items():
            monkeypatch.setenv(name, value)
        with pytest.raises(OSError) as caught:
            NodeApi.in_cluster()
        assert str(caught.value) == "not in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset"
