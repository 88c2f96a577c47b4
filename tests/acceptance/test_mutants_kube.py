"""Writing the verdict on the node (acceptance/kube.py) against a recording stand-in for the API server, where
mutation testing found it unheld: the condition of a passed, a failed and an empty report (in UTC); the taint lifted
only from a passed node asked to, and only the acceptance taint; the label moved from pending to passed in the same
patch; a conflict (409 or 422) read again at most three times; another refusal raised; the API's error message cut
at 300 characters; the in-cluster client refused outside a pod and, in one, built from the service's address, the
account's token and its CA; each request's body, headers, TLS context and 30-second timeout, an empty answer and a
refusal whose words are not UTF-8 (against a stand-in for `urlopen`); and the stamp in UTC on a machine that is not."""

from __future__ import annotations

import io
import ssl
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta, timezone
from email.message import Message

import pytest

from acceptance import kube
from acceptance.kube import ApiError, NodeApi, condition, publish
from acceptance.report import Check, Report
from tests.acceptance.answers import UNSET, Answer
from tests.acceptance.machine_zone import machine_zone

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


def _urlopen(monkeypatch, outcome):
    """Replaces `urllib.request.urlopen` with one that records (request, context, timeout) and answers `outcome`."""
    calls = []

    def urlopen(request, context=UNSET, timeout=UNSET):
        calls.append((request, context, timeout))
        if isinstance(outcome, Exception):
            raise outcome
        return Answer(outcome)

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return calls


CONTEXT = object()


def test_a_get_sends_no_body_the_bearer_token_and_json_headers_within_thirty_seconds_over_the_clients_tls(monkeypatch):
    calls = _urlopen(monkeypatch, b'{"kind": "Node"}')
    api = NodeApi("https://10.100.0.1:443", "t0ken", CONTEXT)
    assert api.request("GET", "/api/v1/nodes/n1") == {"kind": "Node"}
    [(request, context, timeout)] = calls
    assert (request.full_url, request.get_method(), request.data) == ("https://10.100.0.1:443/api/v1/nodes/n1", "GET", None)
    assert dict(request.header_items()) == {"Authorization": "Bearer t0ken", "Accept": "application/json", "Content-type": "application/json"}
    assert (context, timeout) == (CONTEXT, 30)


def test_a_patch_sends_its_body_as_json_with_its_content_type_and_an_empty_answer_is_an_empty_object(monkeypatch):
    calls = _urlopen(monkeypatch, b"")
    api = NodeApi("https://10.100.0.1:443", "t0ken")
    body = {"metadata": {"annotations": {"railyard.dev/acceptance": "{}"}}}
    assert api.request("PATCH", "/api/v1/nodes/n1", body, "application/merge-patch+json") == {}
    [(request, _, _)] = calls
    assert (request.get_method(), request.data) == ("PATCH", b'{"metadata": {"annotations": {"railyard.dev/acceptance": "{}"}}}')
    assert request.get_header("Content-type") == "application/merge-patch+json"


def test_a_refusal_is_an_api_error_with_the_status_and_the_servers_words_even_when_they_are_not_utf8(monkeypatch):
    refusal = urllib.error.HTTPError("https://10.100.0.1:443/api/v1/nodes/n1", 409, "Conflict", Message(), io.BytesIO(b"\xff conflict"))
    _urlopen(monkeypatch, refusal)
    with pytest.raises(ApiError) as caught:
        NodeApi("https://10.100.0.1:443", "t0ken").request("PATCH", "/api/v1/nodes/n1", [])
    assert (str(caught.value), caught.value.status) == ("PATCH /api/v1/nodes/n1: HTTP 409: \ufffd conflict", 409)


def test_in_a_pod_the_client_speaks_https_to_the_service_with_the_accounts_token_trimmed_and_its_ca(monkeypatch, tmp_path):
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.100.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    monkeypatch.setattr(kube, "ACCOUNT", tmp_path)
    (tmp_path / "token").write_text("eyJhbGciOiJSUzI1NiJ9.e30.c2ln\n", encoding="utf-8")
    monkeypatch.setattr(ssl, "create_default_context", lambda cafile: ("verifying with", cafile))
    assert NodeApi.in_cluster() == NodeApi("https://10.100.0.1:443", "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", ("verifying with", str(tmp_path / "ca.crt")))  # type: ignore[arg-type]


def test_the_condition_is_stamped_in_utc_whatever_the_machines_time_zone():
    with machine_zone("JST-9"):
        assert condition(PASSED, NOW)["lastTransitionTime"] == "2026-11-27T18:00:00Z"


def test_a_node_answer_without_a_spec_has_no_taint_to_lift():
    class Untainted(Api):
        def request(self, method, path, body=None, content_type="application/json"):
            answer = super().request(method, path, body, content_type)
            return {"metadata": answer["metadata"]} if method == "GET" else answer

    api = Untainted()
    assert publish(PASSED, "n1", api, lift_taint=True, now=NOW) is False
    assert [method for method, *_ in api.requests] == ["PATCH", "PATCH", "GET"]
