"""The checker's SigV4 signer (acceptance/sigv4.py) against AWS's own worked examples and at its edges, where mutation
testing found it unheld: the signing key of the SigV4 documentation's example (secret wJalrXUtnFEMI/K7MDENG+bPxRfi
CYEXAMPLEKEY, 20120215, us-east-1, iam: f4780e2d...) and its IAM ListUsers request (signature 5d672d79...; AWS
General Reference, "Signature Version 4 signing process" examples); the Host a URL is sent with (default ports left
out, others kept, IPv6 in brackets, upper case lowered); the query sorted by key then value; the path's escaping;
header values' whitespace folded; a session token signed; and a secret never printed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from acceptance.sigv4 import Credentials, _canonical_query, host_of, sign, signing_key
from tests.acceptance.machine_zone import machine_zone

SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
EXAMPLE = Credentials("AKIDEXAMPLE", SECRET)
AT = datetime(2015, 8, 30, 12, 36, 0, tzinfo=UTC)
FORM = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}


def test_the_signing_key_is_the_documentations_example():
    assert signing_key(SECRET, "20120215", "us-east-1", "iam").hex() == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"


def test_the_iam_list_users_request_is_signed_as_the_documentation_signs_it():
    signed = sign("get", "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08", b"", FORM, EXAMPLE, "us-east-1", "iam", AT)
    assert signed == {
        **FORM,
        "Host": "iam.amazonaws.com",
        "X-Amz-Date": "20150830T123600Z",
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
        "SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7",
    }


def test_the_moment_is_taken_in_utc_whatever_zone_it_is_given_in():
    elsewhere = AT.astimezone(timezone(timedelta(hours=-7)))
    assert sign("GET", "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08", b"", FORM, EXAMPLE, "us-east-1", "iam", elsewhere) == sign(
        "GET", "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08", b"", FORM, EXAMPLE, "us-east-1", "iam", AT
    )


def test_the_query_order_and_header_whitespace_do_not_change_the_signature_but_the_path_body_and_token_do():
    base = sign("POST", "https://autoscaling.us-west-2.amazonaws.com/", b"Action=X", FORM, EXAMPLE, "us-west-2", "autoscaling", AT)
    one = sign("POST", "https://autoscaling.us-west-2.amazonaws.com/?b=2&a=1", b"Action=X", FORM, EXAMPLE, "us-west-2", "autoscaling", AT)
    other = sign("POST", "https://autoscaling.us-west-2.amazonaws.com/?a=1&b=2", b"Action=X", FORM, EXAMPLE, "us-west-2", "autoscaling", AT)
    assert one["Authorization"] == other["Authorization"] != base["Authorization"]
    spaced = {"Content-Type": "  application/x-www-form-urlencoded;   charset=utf-8 "}
    assert (
        sign("POST", "https://autoscaling.us-west-2.amazonaws.com/", b"Action=X", spaced, EXAMPLE, "us-west-2", "autoscaling", AT)["Authorization"]
        == base["Authorization"]
    )
    assert sign("POST", "https://autoscaling.us-west-2.amazonaws.com", b"Action=X", FORM, EXAMPLE, "us-west-2", "autoscaling", AT) == base
    other_body = sign("POST", "https://autoscaling.us-west-2.amazonaws.com/", b"Action=Y", FORM, EXAMPLE, "us-west-2", "autoscaling", AT)
    assert other_body["Authorization"] != base["Authorization"]
    with_token = sign(
        "POST", "https://autoscaling.us-west-2.amazonaws.com/", b"Action=X", FORM, Credentials("A", SECRET, "tok en"), "us-west-2", "autoscaling", AT
    )
    assert with_token["X-Amz-Security-Token"] == "tok en"
    assert "SignedHeaders=content-type;host;x-amz-date;x-amz-security-token," in with_token["Authorization"]
    assert "X-Amz-Security-Token" not in base


def test_the_query_is_sorted_by_key_then_value_and_empty_pairs_dropped():
    assert _canonical_query("b=2&a=2&&a=1&c") == "a=1&a=2&b=2&c="


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://Autoscaling.US-West-2.amazonaws.com/", "autoscaling.us-west-2.amazonaws.com"),
        ("https://autoscaling.amazonaws.com:443/", "autoscaling.amazonaws.com"),
        ("http://169.254.170.23:80/v1/credentials", "169.254.170.23"),
        ("http://127.0.0.1:5000/", "127.0.0.1:5000"),
        ("https://127.0.0.1:80/", "127.0.0.1:80"),
        ("http://[fd00:ec2::23]/v1/credentials", "[fd00:ec2::23]"),
        ("http://[fd00:ec2::23]:8080/", "[fd00:ec2::23]:8080"),
        ("file:///x", ""),
    ],
)
def test_the_host_header_keeps_a_port_only_where_it_is_not_the_schemes_default(url, host):
    assert host_of(url) == host


def test_a_path_with_characters_outside_the_unreserved_set_is_signed_escaped():
    plain = sign("GET", "https://example.amazonaws.com/a~b/c d", b"", {}, EXAMPLE, "us-east-1", "service", AT)
    escaped = sign("GET", "https://example.amazonaws.com/a~b/c%20d", b"", {}, EXAMPLE, "us-east-1", "service", AT)
    assert plain["Authorization"] != escaped["Authorization"]
    tilde = sign("GET", "https://example.amazonaws.com/a%7Eb/c d", b"", {}, EXAMPLE, "us-east-1", "service", AT)
    assert tilde["Authorization"] != plain["Authorization"]


def test_credentials_never_print_their_secret_or_token():
    assert (
        repr(Credentials("ASIAKEY", "s3cr3t", "token", "2026-11-27T19:00:00Z"))
        == "Credentials(access_key='ASIAKEY', expiration='2026-11-27T19:00:00Z')"
    )


def test_the_stamp_is_utc_on_a_machine_in_another_zone():
    with machine_zone("PDT+7"):
        signed = sign("GET", "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08", b"", FORM, EXAMPLE, "us-east-1", "iam", AT)
    assert signed["X-Amz-Date"] == "20150830T123600Z"
