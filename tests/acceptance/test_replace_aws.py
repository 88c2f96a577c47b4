"""The checker's AWS call, offline: its signature against botocore's, its credentials from a stand-in Pod Identity
agent, and SetInstanceHealth against moto with moto checking the signature and the role's permissions."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl

import botocore.auth
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as BotocoreCredentials

from acceptance.aws import FORM, AwsError, autoscaling_endpoint, container_credentials, set_instance_health
from acceptance.sigv4 import Credentials, sign
from tests.acceptance.moto_autoscaling import moto_autoscaling

NOW = datetime(2026, 11, 27, 18, 0, 5, tzinfo=UTC)
BODY = b"Action=SetInstanceHealth&Version=2011-01-01&InstanceId=i-0123456789abcdef0&HealthStatus=Unhealthy&ShouldRespectGracePeriod=false"
AGENT_ANSWER = {"AccessKeyId": "ASIAEXAMPLEKEY", "SecretAccessKey": "s3cr3t/+key", "Token": "session-token", "Expiration": "2026-11-27T19:00:00Z"}


class Recorder:
    """A local HTTP server that records each request and answers with the queued (status, body) pairs, then 200 `{}`."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        self.answers: list[tuple[int, bytes]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                recorder.requests.append((self.command, self.path, dict(self.headers.items()), body))
                status, payload = recorder.answers.pop(0) if recorder.answers else (200, b"{}")
                self.send_response(status)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _answer  # noqa: N815

            def log_message(self, *args: object) -> None:
                return None

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    server = Recorder()
    thread = threading.Thread(target=server.http.serve_forever, daemon=True)
    thread.start()
    yield server
    server.http.shutdown()


def _botocore_authorization(url: str, region: str, credentials: Credentials, monkeypatch) -> AWSRequest:
    request = AWSRequest(method="POST", url=url, data=BODY, headers={"Content-Type": FORM})
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda: NOW.replace(tzinfo=None))
    SigV4Auth(BotocoreCredentials(credentials.access_key, credentials.secret_key, credentials.token), "autoscaling", region).add_auth(request)
    return request


@pytest.mark.parametrize(
    ("url", "region", "token"),
    [
        ("https://autoscaling.us-west-2.amazonaws.com/", "us-west-2", "session-token"),
        ("https://autoscaling.cn-north-1.amazonaws.com.cn/", "cn-north-1", None),
        ("http://127.0.0.1:8080/", "us-east-1", "IQoJb3JpZ2luX2VjE  with   spaces"),
    ],
)
def test_the_signature_is_botocores_sigv4_for_the_same_request_credentials_and_moment(url, region, token, monkeypatch):
    credentials = Credentials("ASIAEXAMPLEKEY", "s3cr3t/+key", token)
    mine = sign("POST", url, BODY, {"Content-Type": FORM}, credentials, region, "autoscaling", NOW)
    theirs = _botocore_authorization(url, region, credentials, monkeypatch).headers
    assert mine["Authorization"] == theirs["Authorization"]
    assert mine["X-Amz-Date"] == theirs["X-Amz-Date"] == "20261127T180005Z"
    assert mine.get("X-Amz-Security-Token") == theirs.get("X-Amz-Security-Token") == token
    signed = "content-type;host;x-amz-date" + (";x-amz-security-token" if token else "")
    assert f"SignedHeaders={signed}," in mine["Authorization"]


def test_the_endpoint_is_the_regions_in_its_partitions_domain():
    assert autoscaling_endpoint("us-west-2") == "https://autoscaling.us-west-2.amazonaws.com/"
    assert autoscaling_endpoint("cn-northwest-1") == "https://autoscaling.cn-northwest-1.amazonaws.com.cn/"
    assert autoscaling_endpoint("us-gov-west-1") == "https://autoscaling.us-gov-west-1.amazonaws.com/"


def test_credentials_come_from_the_agent_with_the_token_files_text_as_authorization(recorder, tmp_path):
    (tmp_path / "token").write_text("eyJhbGciOiJSUzI1NiJ9.pod", encoding="utf-8")
    recorder.answers = [(200, json.dumps(AGENT_ANSWER).encode())]
    environ = {
        "AWS_CONTAINER_CREDENTIALS_FULL_URI": f"{recorder.url}/v1/credentials",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": str(tmp_path / "token"),
    }
    credentials = container_credentials(environ, sleep=lambda seconds: None)
    assert credentials == Credentials("ASIAEXAMPLEKEY", "s3cr3t/+key", "session-token", "2026-11-27T19:00:00Z")
    [(method, path, headers, _)] = recorder.requests
    assert (method, path, headers["Authorization"], headers["Accept"]) == ("GET", "/v1/credentials", "eyJhbGciOiJSUzI1NiJ9.pod", "application/json")
    assert "s3cr3t" not in repr(credentials)


def test_an_agent_not_answering_yet_is_asked_again_five_seconds_later(recorder):
    recorder.answers = [(503, b"starting"), (503, b"starting"), (200, json.dumps(AGENT_ANSWER).encode())]
    waits: list[float] = []
    environ = {"AWS_CONTAINER_CREDENTIALS_FULL_URI": f"{recorder.url}/v1/credentials", "AWS_CONTAINER_AUTHORIZATION_TOKEN": "t0ken"}
    assert container_credentials(environ, sleep=waits.append).access_key == "ASIAEXAMPLEKEY"
    assert (waits, [request[2]["Authorization"] for request in recorder.requests]) == ([5.0, 5.0], ["t0ken"] * 3)


def test_an_agent_that_keeps_refusing_is_an_error_with_its_status_and_answer(recorder):
    recorder.answers = [(500, b"no association for this pod")] * 6
    environ = {"AWS_CONTAINER_CREDENTIALS_FULL_URI": f"{recorder.url}/v1/credentials"}
    with pytest.raises(AwsError, match=r"^GET http://127\.0\.0\.1:\d+/v1/credentials: HTTP 500: : no association for this pod$"):
        container_credentials(environ, sleep=lambda seconds: None)
    assert len(recorder.requests) == 6


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({}, "AWS_CONTAINER_CREDENTIALS_FULL_URI is unset: the pod has no EKS Pod Identity association"),
        ({"AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://metadata.example.com/creds"}, "is not https, a loopback address or one of 169.254.170.2"),
        ({"AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://169.254.170.23/v1/credentials", "AWS_CONTAINER_AUTHORIZATION_TOKEN": "a\nb"}, "line break"),
    ],
)
def test_credentials_are_refused_without_an_association_off_the_container_hosts_or_with_a_broken_token(environ, message):
    with pytest.raises(AwsError, match="container credentials") as raised:
        container_credentials(environ, sleep=lambda seconds: None)
    assert message in str(raised.value)


def test_the_call_is_a_signed_form_post_of_exactly_setinstancehealth(recorder):
    credentials = Credentials("ASIAEXAMPLEKEY", "s3cr3t/+key", "session-token")
    set_instance_health("i-0123456789abcdef0", "us-east-1", credentials, f"{recorder.url}/", NOW)
    [(method, path, headers, body)] = recorder.requests
    assert (method, path, headers["Content-Type"], headers["Host"]) == ("POST", "/", FORM, recorder.url.removeprefix("http://"))
    assert dict(parse_qsl(body.decode())) == {
        "Action": "SetInstanceHealth",
        "Version": "2011-01-01",
        "InstanceId": "i-0123456789abcdef0",
        "HealthStatus": "Unhealthy",
        "ShouldRespectGracePeriod": "false",
    }
    assert headers["Authorization"].startswith("AWS4-HMAC-SHA256 Credential=ASIAEXAMPLEKEY/20261127/us-east-1/autoscaling/aws4_request, ")
    assert headers["X-Amz-Security-Token"] == "session-token"


def test_an_aws_error_carries_the_status_the_code_and_the_message(recorder):
    error = b'<ErrorResponse xmlns="http://autoscaling.amazonaws.com/doc/2011-01-01/"><Error><Type>Sender</Type><Code>ValidationError</Code>'
    error += b"<Message>Instance Id not found - No managed instance found for instance ID: i-0123456789abcdef0</Message></Error></ErrorResponse>"
    recorder.answers = [(400, error)]
    with pytest.raises(AwsError) as raised:
        set_instance_health("i-0123456789abcdef0", "us-east-1", Credentials("AKIA", "secret"), f"{recorder.url}/", NOW)
    assert str(raised.value) == (
        f"SetInstanceHealth i-0123456789abcdef0 Unhealthy at {recorder.url}/: HTTP 400: ValidationError: "
        "Instance Id not found - No managed instance found for instance ID: i-0123456789abcdef0"
    )
    assert (raised.value.status, raised.value.code) == (400, "ValidationError")


def test_moto_takes_the_signed_call_and_auto_scaling_marks_the_instance_unhealthy():
    with moto_autoscaling("us-east-1", allowed=True) as account:
        assert account.health() == "Healthy"
        account.authenticated(set_instance_health, account.instance_id, "us-east-1", account.credentials, account.endpoint)
        assert account.health() == "Unhealthy"


def test_moto_refuses_a_signature_made_with_the_wrong_secret():
    with moto_autoscaling("us-east-1", allowed=True) as account:
        forged = Credentials(account.credentials.access_key, "not-the-secret", account.credentials.token)
        with pytest.raises(AwsError, match=r"HTTP 403: SignatureDoesNotMatch: The request signature we calculated does not match"):
            account.authenticated(set_instance_health, account.instance_id, "us-east-1", forged, account.endpoint)
        assert account.health() == "Healthy"


def test_a_role_without_set_instance_health_is_denied_and_the_instance_stays_healthy():
    with moto_autoscaling("us-east-1", allowed=False) as account:
        with pytest.raises(AwsError, match=r"HTTP 403: AccessDenied: .* is not authorized to perform: autoscaling:SetInstanceHealth"):
            account.authenticated(set_instance_health, account.instance_id, "us-east-1", account.credentials, account.endpoint)
        assert account.health() == "Healthy"
