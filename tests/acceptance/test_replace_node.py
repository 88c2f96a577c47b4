"""`--replace-on-failure`, end to end and offline: a failed node's verdict published on a stand-in API server, its
instance id read from its providerID, credentials from a stand-in Pod Identity agent, and SetInstanceHealth taken by
moto (signature and permissions checked), the outcome written back on the node.

    checker ── PATCH status, annotation ──> stand-in API server (tests/acceptance/test_publish.py)
            ── GET node: spec.providerID ─>
            ── GET /v1/credentials ───────> stand-in Pod Identity agent ── moto STS session
            ── POST SetInstanceHealth ────> moto's Auto Scaling (tests/acceptance/moto_autoscaling.py)
            ── PATCH status, annotation ──> the outcome
"""

from __future__ import annotations

import json

import pytest

from acceptance import __main__ as checker
from acceptance.kube import NodeApi
from acceptance.replace import ReplacementError, instance_of
from tests.acceptance.evidence import real_folder
from tests.acceptance.moto_autoscaling import moto_autoscaling
from tests.acceptance.test_publish import NODE, server  # noqa: F401 - `server` is the stand-in API server's fixture
from tests.acceptance.test_replace_aws import recorder  # noqa: F401 - the stand-in agent's fixture

STRATEGIC = "application/strategic-merge-patch+json"


def _failed_folder(tmp_path):
    folder = real_folder(tmp_path)
    (folder / "dmesg.txt").write_text("NVRM: Xid (PCI:0000:00:06): 79, pid=1, GPU has fallen off the bus.\n", encoding="utf-8")
    return folder


def _run(folder, *extra: str) -> int:
    return checker.main(["check", "--expect", str(folder / "expectation.json"), "--from", str(folder), "--publish", "ip-10-0-0-1", *extra])


@pytest.fixture
def in_pod(server, monkeypatch):  # noqa: F811
    """The checker in its pod: the API server is the stand-in, the region is set, the agent is not yet known."""
    monkeypatch.setattr(NodeApi, "in_cluster", classmethod(lambda cls: server.api))
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    for name in ("AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "AWS_CONTAINER_AUTHORIZATION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return server


def _outcome(stand_in) -> tuple[dict, dict]:
    """The replacement's condition (the last status patch) and its annotation (the last metadata patch)."""
    statuses = [body for method, path, _, body in stand_in.requests if method == "PATCH" and path.endswith("/status")]
    annotations = [
        body["metadata"]["annotations"] for method, path, _, body in stand_in.requests if method == "PATCH" and not path.endswith("/status")
    ]
    return statuses[-1]["status"]["conditions"][0], json.loads(annotations[-1]["railyard.dev/acceptance-replacement"])


def test_a_failed_node_is_published_then_replaced_and_the_node_says_so(in_pod, recorder, tmp_path, monkeypatch, capsys):  # noqa: F811
    (tmp_path / "token").write_text("pod-identity-token", encoding="utf-8")
    monkeypatch.setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", f"{recorder.url}/v1/credentials")
    monkeypatch.setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", str(tmp_path / "token"))
    with moto_autoscaling("us-east-1") as account:
        monkeypatch.setitem(NODE, "spec", {**NODE["spec"], "providerID": f"aws:///us-east-1a/{account.instance_id}"})
        session = account.credentials
        agent = {"AccessKeyId": session.access_key, "SecretAccessKey": session.secret_key, "Token": session.token, "Expiration": session.expiration}
        recorder.answers = [(200, json.dumps(agent).encode())]
        status = account.authenticated(_run, _failed_folder(tmp_path), "--replace-on-failure", "--autoscaling-endpoint", account.endpoint)
        assert (status, account.health()) == (1, "Unhealthy")
    assert [(method, path) for method, path, _, _ in in_pod.requests] == [
        ("PATCH", "/api/v1/nodes/ip-10-0-0-1/status"),
        ("PATCH", "/api/v1/nodes/ip-10-0-0-1"),
        ("GET", "/api/v1/nodes/ip-10-0-0-1"),
        ("PATCH", "/api/v1/nodes/ip-10-0-0-1/status"),
        ("PATCH", "/api/v1/nodes/ip-10-0-0-1"),
    ]
    condition, annotation = _outcome(in_pod)
    replaced = f"instance {account.instance_id} marked Unhealthy: its Auto Scaling group replaces it"
    assert (condition["status"], condition["reason"], condition["message"]) == ("False", "ReplacementRequested", f"failed: gpu.xid; {replaced}")
    assert "lastTransitionTime" not in condition and in_pod.requests[3][2] == STRATEGIC
    assert {key: annotation[key] for key in ("instance_id", "requested", "error")} == {
        "instance_id": account.instance_id,
        "requested": True,
        "error": None,
    }
    assert recorder.requests[0][2]["Authorization"] == "pod-identity-token"
    assert capsys.readouterr().err.endswith(f"node ip-10-0-0-1: {replaced}\n")


def test_without_a_pod_identity_association_the_node_says_replacement_failed_and_the_exit_status_is_3(in_pod, tmp_path, monkeypatch):
    monkeypatch.setitem(NODE, "spec", {**NODE["spec"], "providerID": "aws:///us-east-1a/i-0123456789abcdef0"})
    assert _run(_failed_folder(tmp_path), "--replace-on-failure") == 3
    condition, annotation = _outcome(in_pod)
    why = "container credentials: AWS_CONTAINER_CREDENTIALS_FULL_URI is unset: the pod has no EKS Pod Identity association"
    assert (condition["reason"], condition["message"]) == ("ReplacementFailed", f"failed: gpu.xid; replacement not requested: {why}")
    assert (annotation["instance_id"], annotation["requested"], annotation["error"]) == ("i-0123456789abcdef0", False, why)


def test_a_node_with_no_ec2_provider_id_is_held_not_replaced(in_pod, tmp_path):
    assert _run(_failed_folder(tmp_path), "--replace-on-failure") == 3
    condition, annotation = _outcome(in_pod)
    assert condition["reason"] == "ReplacementFailed" and "spec.providerID '' names no EC2 instance" in condition["message"]
    assert (annotation["instance_id"], annotation["requested"]) == (None, False)


def test_a_node_failing_only_for_missing_evidence_is_held_not_replaced_and_no_credentials_are_asked_for(
    in_pod,  # noqa: F811
    recorder,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    """A command absent from the image (no dmesg.txt) would be absent on a new instance too: replacing would loop."""
    monkeypatch.setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", f"{recorder.url}/v1/credentials")
    monkeypatch.setitem(NODE, "spec", {**NODE["spec"], "providerID": "aws:///us-east-1a/i-0123456789abcdef0"})
    folder = real_folder(tmp_path)
    (folder / "dmesg.txt").unlink()
    assert _run(folder, "--replace-on-failure") == 3
    condition, annotation = _outcome(in_pod)
    assert condition["reason"] == "ReplacementFailed" and "withheld: only evidence is missing (evidence.dmesg.txt)" in condition["message"]
    assert (annotation["instance_id"], annotation["requested"]) == (None, False) and recorder.requests == []


def test_a_node_that_passed_is_never_replaced_and_no_credentials_are_asked_for(in_pod, recorder, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", f"{recorder.url}/v1/credentials")
    assert _run(real_folder(tmp_path), "--replace-on-failure") == 0
    assert [method for method, *_ in in_pod.requests] == ["PATCH", "PATCH"] and recorder.requests == []


def test_an_unreadable_expectation_judges_and_replaces_nothing(in_pod, tmp_path):
    folder = _failed_folder(tmp_path)
    (folder / "expectation.json").write_text("{", encoding="utf-8")
    assert _run(folder, "--replace-on-failure") == 2
    assert in_pod.requests == []


def test_replace_on_failure_without_publish_is_refused_before_anything_runs(tmp_path, capsys):
    folder = _failed_folder(tmp_path)
    with pytest.raises(SystemExit) as exited:
        checker.main(["check", "--expect", str(folder / "expectation.json"), "--from", str(folder), "--replace-on-failure"])
    assert exited.value.code == 2
    assert "--replace-on-failure needs --publish NODE" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("provider", "instance"),
    [
        ("aws:///us-west-2a/i-0123456789abcdef0", "i-0123456789abcdef0"),
        ("aws://us-west-2a/i-01234567", "i-01234567"),
        ("aws:///i-0123456789abcdef0", "i-0123456789abcdef0"),
    ],
)
def test_the_instance_is_the_last_part_of_an_aws_provider_id(provider, instance):
    assert instance_of({"spec": {"providerID": provider}}) == instance


@pytest.mark.parametrize("provider", ["", "gce://project/us-central1-a/node", "aws:///us-west-2a/", "aws:///us-west-2a/i-XYZ", "kwok://node"])
def test_a_provider_id_naming_no_ec2_instance_is_refused(provider):
    with pytest.raises(ReplacementError, match="names no EC2 instance"):
        instance_of({"spec": {"providerID": provider}})
