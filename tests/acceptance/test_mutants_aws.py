"""The checker's AWS calls (acceptance/aws.py) at their edges, against the recording stand-in of test_replace_aws.py,
where mutation testing found them unheld: which credentials URIs may receive the token (https, loopback in IPv4 and
IPv6, each container host, nothing else), the token file winning over the variable and either refused with a line
break, an agent that never answers or answers something else, credentials without a session token, each partition's
endpoint, and AWS's error document read whatever its shape. Against stand-ins for the opener and `urlopen`: what the
agent is asked (headers, 10-second timeout) and every field of its answer kept, its refusal or silence (the reason, or
the error itself), a proxy the image sets never used, and SetInstanceHealth's own endpoint, timeout and errors."""

from __future__ import annotations

import io
import json
import socket
import urllib.error
import urllib.request
from email.message import Message

import pytest

from acceptance import aws
from acceptance.aws import AwsError, autoscaling_endpoint, container_credentials, set_instance_health
from acceptance.sigv4 import Credentials, sign
from tests.acceptance.answers import UNSET, Answer
from tests.acceptance.test_replace_aws import NOW, Recorder, recorder  # noqa: F401

URI = "AWS_CONTAINER_CREDENTIALS_FULL_URI"


@pytest.mark.parametrize(
    ("uri", "allowed"),
    [
        ("https://agent.example.com/creds", True),
        ("http://127.0.0.1:2703/v1/credentials", True),
        ("http://[::1]:2703/v1/credentials", True),
        ("http://169.254.170.2/v2/credentials", True),
        ("http://169.254.170.23/v1/credentials", True),
        ("http://[fd00:ec2::23]/v1/credentials", True),
        ("http://localhost:2703/v1/credentials", True),
        ("http://10.0.0.1/v1/credentials", False),
        ("http://agent.example.com/creds", False),
        ("http:///creds", False),
    ],
)
def test_only_https_loopback_and_the_container_hosts_may_receive_the_token(uri, allowed):
    assert aws._allowed(uri) is allowed


def test_a_uri_that_may_not_receive_the_token_is_refused_naming_the_hosts_allowed():
    with pytest.raises(AwsError) as caught:
        container_credentials({URI: "http://10.0.0.1/creds"}, sleep=lambda seconds: None)
    assert str(caught.value) == (
        "container credentials: AWS_CONTAINER_CREDENTIALS_FULL_URI 'http://10.0.0.1/creds' is not https, a loopback address or one of "
        "169.254.170.2, 169.254.170.23, fd00:ec2::23, localhost"
    )
    assert (caught.value.status, caught.value.code) == (0, "")


def test_the_token_file_wins_over_the_variable_and_a_line_break_in_either_is_refused(tmp_path):
    (tmp_path / "token").write_text("from-file", encoding="utf-8")
    assert aws._token({aws.TOKEN_FILE: str(tmp_path / "token"), aws.TOKEN: "from-variable"}) == "from-file"
    assert aws._token({aws.TOKEN: "from-variable"}) == "from-variable"
    assert aws._token({}) is None
    for broken in ("a\rb", "a\nb"):
        with pytest.raises(AwsError, match="^container credentials: the authorization token holds a line break, which no header may carry$"):
            aws._token({aws.TOKEN: broken})


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_agent_that_never_answers_is_asked_six_times_five_seconds_apart_then_an_error():
    waits: list[float] = []
    uri = f"http://127.0.0.1:{_closed_port()}/v1/credentials"
    with pytest.raises(AwsError) as caught:
        container_credentials({URI: uri}, sleep=waits.append)
    assert waits == [5.0] * 5
    assert str(caught.value).startswith(f"GET {uri}: no answer: ")
    assert caught.value.status == 0


def test_an_answer_that_is_not_the_credentials_json_is_an_error_and_no_token_means_none(recorder):  # noqa: F811
    recorder.answers = [(200, b'{"AccessKeyId": "A"}')] * 6
    with pytest.raises(AwsError) as caught:
        container_credentials({URI: f"{recorder.url}/v1/credentials"}, sleep=lambda seconds: None)
    assert (
        str(caught.value)
        == f"GET {recorder.url}/v1/credentials: HTTP 200: : not the credentials JSON (AccessKeyId, SecretAccessKey): KeyError('SecretAccessKey')"
    )
    recorder.answers = [(200, json.dumps({"AccessKeyId": "A", "SecretAccessKey": "S"}).encode())]
    assert container_credentials({URI: f"{recorder.url}/v1/credentials"}, sleep=lambda seconds: None) == Credentials("A", "S")
    assert "Authorization" not in recorder.requests[-1][2]


@pytest.mark.parametrize(
    ("region", "endpoint"),
    [("us-east-1", "https://autoscaling.us-east-1.amazonaws.com/"), ("cn-north-1", "https://autoscaling.cn-north-1.amazonaws.com.cn/")],
)
def test_each_partitions_endpoint(region, endpoint):
    assert autoscaling_endpoint(region) == endpoint


def test_an_error_document_of_any_namespace_or_none_gives_its_code_and_message_and_other_text_is_kept_cut():
    assert aws._error("<ErrorResponse><Error><Code>Throttling</Code><Message>Rate exceeded</Message></Error></ErrorResponse>") == (
        "Throttling",
        "Rate exceeded",
    )
    assert aws._error("<Error><Code>AccessDenied</Code><Message/></Error>") == ("AccessDenied", "")
    assert aws._error("<Error><Code>AccessDenied</Code></Error>") == ("AccessDenied", "<Error><Code>AccessDenied</Code></Error>")
    assert aws._error("x" * 301) == ("", "x" * 300)


def test_a_call_that_gets_no_answer_is_an_error_naming_it():
    url = f"http://127.0.0.1:{_closed_port()}/"
    with pytest.raises(AwsError) as caught:
        set_instance_health("i-0123456789abcdef0", "us-east-1", Credentials("AKIA", "secret"), url, NOW)
    assert str(caught.value).startswith(f"SetInstanceHealth i-0123456789abcdef0 Unhealthy at {url}: no answer: ")
    assert (caught.value.status, caught.value.code) == (0, "")


def test_the_call_sends_exactly_the_form_and_the_headers_sign_gives_for_it(recorder):  # noqa: F811
    credentials = Credentials("AKIA", "secret", "session")
    set_instance_health("i-0123456789abcdef0", "eu-west-1", credentials, f"{recorder.url}/", NOW)
    [(method, path, headers, body)] = recorder.requests
    form = b"Action=SetInstanceHealth&Version=2011-01-01&InstanceId=i-0123456789abcdef0&HealthStatus=Unhealthy&ShouldRespectGracePeriod=false"
    signed = sign("POST", f"{recorder.url}/", form, {"Content-Type": aws.FORM}, credentials, "eu-west-1", "autoscaling", NOW)
    assert (method, path, body) == ("POST", "/", form)
    assert {name: headers[name] for name in signed} == signed


def test_a_line_break_in_the_token_is_refused_before_any_request_with_no_status_and_no_code():
    with pytest.raises(AwsError) as caught:
        aws._token({aws.TOKEN: "a\nb"})
    assert (caught.value.status, caught.value.code) == (0, "")


@pytest.mark.parametrize("environ", [{}, {URI: ""}])
def test_without_a_credentials_uri_the_error_says_the_pod_has_no_association(environ):
    with pytest.raises(AwsError) as caught:
        container_credentials(environ, sleep=lambda seconds: None)
    assert str(caught.value) == "container credentials: AWS_CONTAINER_CREDENTIALS_FULL_URI is unset: the pod has no EKS Pod Identity association"
    assert (caught.value.status, caught.value.code) == (0, "")


class Opener:
    """Stands in for the opener `build_opener` makes: records (request, timeout) and gives each queued outcome in turn."""

    def __init__(self, outcomes) -> None:
        self.outcomes, self.calls = list(outcomes), []

    def open(self, request, timeout=UNSET):
        self.calls.append((request, timeout))
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return Answer(outcome)


AGENT = "http://169.254.170.23/v1/credentials"


def _opener(monkeypatch, *outcomes) -> Opener:
    opener = Opener(outcomes)
    monkeypatch.setattr(urllib.request, "build_opener", lambda *handlers: opener)
    return opener


def test_the_agent_is_asked_for_json_with_the_token_as_authorization_within_ten_seconds_and_every_field_is_kept(monkeypatch):
    answer = {"AccessKeyId": "ASIAEXAMPLEKEY", "SecretAccessKey": "s3cr3t", "Token": "session-token", "Expiration": "2026-11-27T19:00:00Z"}
    opener = _opener(monkeypatch, json.dumps(answer).encode())
    credentials = container_credentials({URI: AGENT, aws.TOKEN: "eyJhbGciOiJSUzI1NiJ9.pod"}, sleep=lambda seconds: None)
    assert (credentials.access_key, credentials.secret_key, credentials.token, credentials.expiration) == (
        "ASIAEXAMPLEKEY",
        "s3cr3t",
        "session-token",
        "2026-11-27T19:00:00Z",
    )
    [(request, timeout)] = opener.calls
    assert (request.full_url, request.get_method(), timeout) == (AGENT, "GET", 10)
    assert dict(request.header_items()) == {"Accept": "application/json", "Authorization": "eyJhbGciOiJSUzI1NiJ9.pod"}


def test_a_refusing_agent_gives_its_status_and_its_words_cut_at_300_characters_even_when_not_utf8(monkeypatch):
    words = b"\xff" + b"x" * 300
    refusals = [urllib.error.HTTPError(AGENT, 500, "Internal Server Error", Message(), io.BytesIO(words)) for _ in range(aws.ATTEMPTS)]
    _opener(monkeypatch, *refusals)
    with pytest.raises(AwsError) as caught:
        container_credentials({URI: AGENT}, sleep=lambda seconds: None)
    assert str(caught.value) == f"GET {AGENT}: HTTP 500: : \ufffd{'x' * 299}"
    assert (caught.value.status, caught.value.code) == (500, "")


@pytest.mark.parametrize(
    ("failure", "said"),
    [(urllib.error.URLError("connection refused"), "connection refused"), (TimeoutError("timed out"), "timed out")],
)
def test_an_agent_that_never_answers_gives_the_reason_or_the_error_itself_with_no_status_or_code(monkeypatch, failure, said):
    _opener(monkeypatch, *[failure] * aws.ATTEMPTS)
    with pytest.raises(AwsError) as caught:
        container_credentials({URI: AGENT}, sleep=lambda seconds: None)
    assert (str(caught.value), caught.value.status, caught.value.code) == (f"GET {AGENT}: no answer: {said}", 0, "")


def test_a_proxy_the_image_sets_is_never_used_for_the_agent(recorder, monkeypatch):  # noqa: F811
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{_closed_port()}")
    recorder.answers = [(200, json.dumps({"AccessKeyId": "A", "SecretAccessKey": "S"}).encode())]
    assert container_credentials({URI: f"{recorder.url}/v1/credentials"}, sleep=lambda seconds: None) == Credentials("A", "S")
    assert [(method, path) for method, path, *_ in recorder.requests] == [("GET", "/v1/credentials")]


def test_an_error_document_in_the_query_apis_namespace_or_without_a_code_or_a_message():
    namespaced = (
        '<ErrorResponse xmlns="https://autoscaling.amazonaws.com/doc/2011-01-01/">'
        "<Error><Code>Throttling</Code><Message>Rate exceeded</Message></Error></ErrorResponse>"
    )
    assert aws._error(namespaced) == ("Throttling", "Rate exceeded")
    assert aws._error("<Error><Message>Rate exceeded</Message></Error>") == ("", "Rate exceeded")
    long = f"<Error><Type>{'x' * 300}</Type></Error>"
    assert aws._error(long) == ("", long[:300])


def _urlopen(monkeypatch, outcome):
    calls = []

    def urlopen(request, timeout=UNSET):
        calls.append((request, timeout))
        if isinstance(outcome, Exception):
            raise outcome
        return Answer(b"<SetInstanceHealthResponse/>")

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return calls


def test_without_an_endpoint_the_call_goes_to_the_regions_auto_scaling_endpoint_within_thirty_seconds(monkeypatch):
    calls = _urlopen(monkeypatch, None)
    set_instance_health("i-0123456789abcdef0", "cn-north-1", Credentials("AKIA", "secret"), now=NOW)
    [(request, timeout)] = calls
    assert (request.full_url, request.get_method(), timeout) == ("https://autoscaling.cn-north-1.amazonaws.com.cn/", "POST", 30)


def test_a_refused_call_gives_the_status_and_awss_code_and_message_even_when_not_utf8(monkeypatch):
    document = b"<ErrorResponse><Error><Code>AccessDenied</Code><Message>\xff not authorized</Message></Error></ErrorResponse>"
    _urlopen(monkeypatch, urllib.error.HTTPError("https://autoscaling.us-east-1.amazonaws.com/", 403, "Forbidden", Message(), io.BytesIO(document)))
    with pytest.raises(AwsError) as caught:
        set_instance_health("i-0123456789abcdef0", "us-east-1", Credentials("AKIA", "secret"), now=NOW)
    assert str(caught.value) == (
        "SetInstanceHealth i-0123456789abcdef0 Unhealthy at https://autoscaling.us-east-1.amazonaws.com/: "
        "HTTP 403: AccessDenied: \ufffd not authorized"
    )
    assert (caught.value.status, caught.value.code) == (403, "AccessDenied")


@pytest.mark.parametrize(
    ("failure", "said"),
    [(urllib.error.URLError("Name or service not known"), "Name or service not known"), (TimeoutError("timed out"), "timed out")],
)
def test_a_call_that_gets_no_answer_gives_the_reason_or_the_error_itself(monkeypatch, failure, said):
    _urlopen(monkeypatch, failure)
    with pytest.raises(AwsError) as caught:
        set_instance_health("i-0123456789abcdef0", "us-east-1", Credentials("AKIA", "secret"), now=NOW)
    assert str(caught.value) == f"SetInstanceHealth i-0123456789abcdef0 Unhealthy at https://autoscaling.us-east-1.amazonaws.com/: no answer: {said}"
