"""The checker's verdict on the node, against a stand-in API server: the condition by strategic merge, the annotation,
and the taint lifted only from a node that passed, by a patch that tests the node's resourceVersion first."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from acceptance import check_folder
from acceptance.kube import ApiError, NodeApi, publish
from tests.acceptance.evidence import one_h100, real_folder

NODE = {
    "metadata": {"name": "ip-10-0-0-1", "resourceVersion": "7"},
    "spec": {
        "taints": [{"key": "railyard.dev/acceptance", "value": "pending", "effect": "NoSchedule"}, {"key": "nvidia.com/gpu", "effect": "NoSchedule"}]
    },
}
NOW = datetime(2026, 11, 27, 18, 0, tzinfo=UTC)


class ApiServer:
    """Records every request; answers GET with NODE and each PATCH with `{}`, or with the statuses queued in `refusals`."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, str, object]] = []
        self.refusals: list[int] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                server.requests.append((self.command, self.path, self.headers.get("Content-Type", ""), body))
                assert self.headers["Authorization"] == "Bearer t0ken"
                status = server.refusals.pop(0) if self.command == "PATCH" and server.refusals else 200
                payload = json.dumps(NODE if self.command == "GET" else {} if status == 200 else {"code": status}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_PATCH = _answer  # noqa: N815

            def log_message(self, *args: object) -> None:
                return None

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.api = NodeApi(f"http://127.0.0.1:{self.http.server_address[1]}", "t0ken")


@pytest.fixture
def server() -> Iterator[ApiServer]:
    stand_in = ApiServer()
    thread = threading.Thread(target=stand_in.http.serve_forever, daemon=True)
    thread.start()
    yield stand_in
    stand_in.http.shutdown()


def _report(tmp_path, passed: bool):
    folder = real_folder(tmp_path)
    if not passed:
        (folder / "dmesg.txt").write_text("NVRM: Xid (PCI:0000:00:06): 79, pid=1, GPU has fallen off the bus.\n", encoding="utf-8")
    return check_folder(one_h100(), folder)


def test_a_passed_node_gets_the_condition_the_annotation_and_its_taint_lifted(server, tmp_path):
    report = _report(tmp_path, passed=True)
    assert publish(report, "ip-10-0-0-1", server.api, lift_taint=True, now=NOW)
    condition = {"type": "railyard.dev/Accepted", "status": "True", "reason": "AcceptancePassed", "message": "every check passed"}
    stamps = {"lastHeartbeatTime": "2026-11-27T18:00:00Z", "lastTransitionTime": "2026-11-27T18:00:00Z"}
    assert server.requests == [
        ("PATCH", "/api/v1/nodes/ip-10-0-0-1/status", "application/strategic-merge-patch+json", {"status": {"conditions": [condition | stamps]}}),
        (
            "PATCH",
            "/api/v1/nodes/ip-10-0-0-1",
            "application/merge-patch+json",
            {"metadata": {"annotations": {"railyard.dev/acceptance": report.as_json()}}},
        ),
        ("GET", "/api/v1/nodes/ip-10-0-0-1", "application/json", None),
        (
            "PATCH",
            "/api/v1/nodes/ip-10-0-0-1",
            "application/json-patch+json",
            [
                {"op": "test", "path": "/metadata/resourceVersion", "value": "7"},
                {"op": "replace", "path": "/spec/taints", "value": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]},
            ],
        ),
    ]


def test_a_failed_node_keeps_its_taint_and_says_which_checks_failed(server, tmp_path):
    assert not publish(_report(tmp_path, passed=False), "ip-10-0-0-1", server.api, lift_taint=True, now=NOW)
    assert [request[:2] for request in server.requests] == [("PATCH", "/api/v1/nodes/ip-10-0-0-1/status"), ("PATCH", "/api/v1/nodes/ip-10-0-0-1")]
    status = server.requests[0][3]
    assert isinstance(status, dict)
    assert status["status"]["conditions"][0]["message"] == "failed: gpu.xid"


def test_without_lift_taint_the_taint_is_left_to_the_readiness_controller(server, tmp_path):
    assert not publish(_report(tmp_path, passed=True), "ip-10-0-0-1", server.api, lift_taint=False, now=NOW)
    assert len(server.requests) == 2


def test_a_node_that_changed_meanwhile_is_read_again_before_the_taint_is_lifted(server, tmp_path):
    server.refusals = [200, 200, 422]  # the condition and the annotation land; the first taint patch finds a newer node
    assert publish(_report(tmp_path, passed=True), "ip-10-0-0-1", server.api, lift_taint=True, now=NOW)
    assert [request[0] for request in server.requests] == ["PATCH", "PATCH", "GET", "PATCH", "GET", "PATCH"]


def test_a_refused_request_is_an_error_naming_the_request_and_the_status(server, tmp_path):
    server.refusals = [403]
    with pytest.raises(ApiError, match=r'^PATCH /api/v1/nodes/ip-10-0-0-1/status: HTTP 403: \{"code": 403\}$'):
        publish(_report(tmp_path, passed=True), "ip-10-0-0-1", server.api, lift_taint=True, now=NOW)


def test_publishing_outside_a_pod_is_an_input_error_not_a_traceback(tmp_path, monkeypatch, capsys):
    from acceptance.__main__ import main

    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    folder = real_folder(tmp_path)
    assert main(["check", "--expect", str(folder / "expectation.json"), "--from", str(folder), "--publish", "ip-10-0-0-1"]) == 2
    error = "can't publish the verdict on node ip-10-0-0-1: not in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset\n"
    assert capsys.readouterr().err == error
