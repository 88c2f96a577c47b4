"""Replacing a failed node (acceptance/replace.py) against a recording stand-in for the API server and Auto Scaling,
where mutation testing found it unheld: the instance id read from `spec.providerID` (8 and 17 hex characters, not 7
or 18, a trailing slash, another provider), a node failing only for missing evidence withheld without a read,
the region from either variable or none, AWS's refusal as an outcome, and exactly what is written on the node."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from acceptance import replace
from acceptance.aws import AwsError
from acceptance.replace import Replacement, ReplacementError, instance_of, replace_node
from acceptance.report import Check, Report

NOW = datetime(2026, 11, 27, 18, 0, 5, tzinfo=UTC)
FAILED = Report((Check("gpu.xid", False, "no Xid", "Xid 79 on PCI:0000:b3:00", "dmesg (dmesg.txt)"),))
ONLY_MISSING = Report((Check("evidence.dmesg.txt", False, "the output of `dmesg`", "missing", "dmesg.txt"),))


class Api:
    """Answers GET with a node whose providerID is `provider`; records every request."""

    def __init__(self, provider: str = "aws:///us-west-2a/i-0123456789abcdef0") -> None:
        self.provider, self.requests = provider, []

    def request(self, method, path, body=None, content_type="application/json"):
        self.requests.append((method, path, body, content_type))
        return {"spec": {"providerID": self.provider}} if method == "GET" else {}


@pytest.mark.parametrize(
    ("provider", "instance"),
    [("aws:///us-west-2a/i-0123456789abcdef0", "i-0123456789abcdef0"), ("aws:///us-west-2a/i-01234567/", "i-01234567")],
)
def test_the_instance_is_the_last_part_of_an_aws_provider_id(provider, instance):
    assert instance_of({"spec": {"providerID": provider}}) == instance


@pytest.mark.parametrize(
    "node",
    [
        {"spec": {"providerID": "aws:///us-west-2a/i-0123456"}},
        {"spec": {"providerID": "aws:///us-west-2a/i-0123456789abcdef01"}},
        {"spec": {"providerID": "gce://project/zone/i-0123456789abcdef0"}},
        {"spec": {}},
        {},
    ],
)
def test_a_provider_id_naming_no_ec2_instance_is_refused_quoting_it(node):
    provider = node.get("spec", {}).get("providerID") or ""
    with pytest.raises(ReplacementError) as caught:
        instance_of(node)
    assert str(caught.value) == f"the node's spec.providerID {provider!r} names no EC2 instance (expected aws:///<zone>/i-...)"


def test_the_outcome_reads_as_one_sentence_either_way():
    assert Replacement("i-0123456789abcdef0", True).sentence() == "instance i-0123456789abcdef0 marked Unhealthy: its Auto Scaling group replaces it"
    assert Replacement(None, False, "no region").sentence() == "replacement not requested: no region"


def _replace(api, environ, monkeypatch, refuse: str | None = None):
    asked = []

    def credentials(env, sleep):
        return "creds"

    def set_health(instance, region, creds, endpoint, now):
        asked.append((instance, region, creds, endpoint, now))
        if refuse:
            raise AwsError("SetInstanceHealth", 403, "AccessDenied", refuse)

    monkeypatch.setattr(replace, "container_credentials", credentials)
    monkeypatch.setattr(replace, "set_instance_health", set_health)
    return replace_node(api, "ip-10-0-0-1", FAILED if refuse != "missing" else ONLY_MISSING, environ, "http://as.local/", NOW), asked


def test_a_failed_node_is_marked_unhealthy_and_the_node_says_so(monkeypatch):
    api = Api()
    outcome, asked = _replace(api, {"AWS_DEFAULT_REGION": "us-west-2"}, monkeypatch)
    assert outcome == Replacement("i-0123456789abcdef0", True)
    assert asked == [("i-0123456789abcdef0", "us-west-2", "creds", "http://as.local/", NOW)]
    message = "failed: gpu.xid; instance i-0123456789abcdef0 marked Unhealthy: its Auto Scaling group replaces it"
    condition = {"type": "railyard.dev/Accepted", "status": "False", "reason": "ReplacementRequested", "message": message}
    annotation = {"at": "2026-11-27T18:00:05Z", "error": None, "instance_id": "i-0123456789abcdef0", "requested": True}
    assert api.requests == [
        ("GET", "/api/v1/nodes/ip-10-0-0-1", None, "application/json"),
        (
            "PATCH",
            "/api/v1/nodes/ip-10-0-0-1/status",
            {"status": {"conditions": [condition | {"lastHeartbeatTime": "2026-11-27T18:00:05Z"}]}},
            "application/strategic-merge-patch+json",
        ),
        (
            "PATCH",
            "/api/v1/nodes/ip-10-0-0-1",
            {"metadata": {"annotations": {"railyard.dev/acceptance-replacement": json.dumps(annotation, sort_keys=True)}}},
            "application/merge-patch+json",
        ),
    ]


def test_aws_region_wins_over_the_default_region_and_neither_is_an_outcome_not_a_request(monkeypatch):
    outcome, asked = _replace(Api(), {"AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "us-west-2"}, monkeypatch)
    assert asked[0][1] == "eu-west-1"
    api = Api()
    outcome, asked = _replace(api, {}, monkeypatch)
    assert (outcome, asked) == (
        Replacement("i-0123456789abcdef0", False, "AWS_REGION is unset: the checker doesn't know its Auto Scaling endpoint's region"),
        [],
    )
    assert api.requests[1][2]["status"]["conditions"][0]["reason"] == "ReplacementFailed"


def test_aws_refusing_is_the_outcome_written_on_the_node(monkeypatch):
    api = Api()
    outcome, _ = _replace(api, {"AWS_REGION": "us-west-2"}, monkeypatch, refuse="not authorized")
    assert outcome == Replacement("i-0123456789abcdef0", False, "SetInstanceHealth: HTTP 403: AccessDenied: not authorized")
    assert json.loads(api.requests[2][2]["metadata"]["annotations"]["railyard.dev/acceptance-replacement"])["error"] == outcome.error


def test_a_node_failing_only_for_missing_evidence_is_withheld_without_reading_it(monkeypatch):
    api = Api()
    outcome, asked = _replace(api, {"AWS_REGION": "us-west-2"}, monkeypatch, refuse="missing")
    assert outcome == Replacement(None, False, "withheld: only evidence is missing (evidence.dmesg.txt), which a new instance would not fix")
    assert (asked, [method for method, *_ in api.requests]) == ([], ["PATCH", "PATCH"])


def test_a_node_that_names_no_instance_is_an_outcome_with_no_instance(monkeypatch):
    outcome, asked = _replace(Api("kind://docker/kind/kind-worker"), {"AWS_REGION": "us-west-2"}, monkeypatch)
    assert (outcome.instance_id, outcome.requested, asked) == (None, False, [])


def test_the_credentials_are_read_from_the_environment_given_waiting_with_the_sleep_given(monkeypatch):
    given = []
    monkeypatch.setattr(replace, "container_credentials", lambda environ, sleep: given.append((environ, sleep)) or "creds")
    monkeypatch.setattr(replace, "set_instance_health", lambda *args: None)
    environ, waits = {"AWS_REGION": "us-west-2"}, []
    assert replace_node(Api(), "ip-10-0-0-1", FAILED, environ, None, NOW, waits.append) == Replacement("i-0123456789abcdef0", True)
    assert len(given) == 1 and given[0][0] is environ and given[0][1] == waits.append


def test_every_missing_file_is_named_when_the_replacement_is_withheld(monkeypatch):
    missing = Check("evidence.dcgmi-diag.json", False, "the output of `dcgmi diag`", "missing", "dcgmi-diag.json")
    outcome = replace_node(Api(), "ip-10-0-0-1", Report((*ONLY_MISSING.checks, missing)), {"AWS_REGION": "us-west-2"}, None, NOW)
    assert outcome.error == "withheld: only evidence is missing (evidence.dmesg.txt, evidence.dcgmi-diag.json), which a new instance would not fix"


def test_a_node_that_passed_is_never_replaced():
    passed = Report((Check("gpu.xid", True, "no Xid", "none", "dmesg (dmesg.txt)"),))
    with pytest.raises(AssertionError, match="^only a node that failed is replaced$"):
        replace_node(Api(), "ip-10-0-0-1", passed, {"AWS_REGION": "us-west-2"}, None, NOW)
