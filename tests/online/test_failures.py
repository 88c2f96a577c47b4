"""`validate --online` when the account says no: every failure is a finding, never a traceback, never a write."""

from __future__ import annotations

import json

import boto3
import pytest

from railyard.cli import main
from railyard.online import validate_online
from railyard.online.account import READ_ONLY_CALLS, Account, ReadOnlyViolation
from railyard.pipeline import validate
from tests.online.conftest import DURING, P5, added
from tests.online.moto_account import answer_with, iam_enforced


def enforced_session(account, actions):
    """A session of an IAM user allowed `actions`, for a block under `iam_enforced()`.

    Two gaps in moto 5.2.5's IAM enforcement are bridged: it authorises HeadBucket as `s3:HeadBucket` where
    AWS asks for `s3:ListBucket` (S3 API reference, HeadBucket), so the user gets both spellings; and its EKS
    signature check fails every request under enforcement, so DescribeCluster is answered as EKS answers
    for a cluster that doesn't exist.
    """
    spelled = [*actions, "s3:HeadBucket"] if "s3:ListBucket" in actions else list(actions)
    session = account.session(*account.user_allowed(spelled))
    answer_with(session, "eks.DescribeCluster", 404, "ResourceNotFoundException", "No cluster found for name: p5-train-prod.")
    return session


def test_a_denied_call_is_a_warning_naming_the_iam_action_and_the_other_checks_still_run(p5_account):
    allowed = [action for action in READ_ONLY_CALLS.values() if action != "ec2:DescribeCapacityReservations"]
    session = enforced_session(p5_account, allowed)
    offline = validate(str(P5))
    with iam_enforced():
        online = validate_online(offline, session=session, now=DURING)
    assert added(offline, online) == [("online.access-denied", "warning", "pools")]
    [denied] = [f for f in online.findings if f.code == "online.access-denied"]
    assert "ec2:DescribeCapacityReservations was denied" in denied.message and "grant ec2:DescribeCapacityReservations" in denied.hint
    assert online.online.checks == ["reservations", "offerings", "quotas", "names"] and online.online.quotas


def test_the_read_only_policy_in_the_docs_allows_every_check_to_run(p5_account):
    session = enforced_session(p5_account, sorted(set(READ_ONLY_CALLS.values())))
    offline = validate(str(P5))
    with iam_enforced():
        online = validate_online(offline, session=session, now=DURING)
    assert added(offline, online) == []


def test_a_throttled_call_is_retried_and_succeeds_without_a_finding(p5_account):
    session = p5_account.session()
    answered = answer_with(session, "ec2.DescribeInstanceTypeOfferings", 400, "RequestLimitExceeded", "Request limit exceeded.", times=2)
    offline = validate(str(P5))
    online = validate_online(offline, session=session, now=DURING)
    assert len(answered) == 2 and added(offline, online) == []


def test_a_call_throttled_past_the_retries_is_a_warning(p5_account, monkeypatch):
    monkeypatch.setattr("botocore.retries.standard.ExponentialBackoff.delay_amount", lambda self, context: 0)
    session = p5_account.session()
    answered = answer_with(session, "ec2.DescribeInstanceTypeOfferings", 400, "RequestLimitExceeded", "Request limit exceeded.")
    offline = validate(str(P5))
    online = validate_online(offline, session=session, now=DURING)
    assert len(answered) == 5
    assert added(offline, online) == [("online.throttled", "warning", "pools")]


def test_refused_credentials_stop_the_online_checks_with_one_error(p5_account):
    session = p5_account.session()
    answer_with(session, "ec2.DescribeCapacityReservations", 401, "AuthFailure", "AWS was not able to validate the provided access credentials")
    offline = validate(str(P5))
    online = validate_online(offline, session=session, now=DURING)
    assert added(offline, online) == [("online.unavailable", "error", "cloud.region")]
    assert online.online.reached is False and online.online.checks == ["reservations"]


def test_no_credentials_at_all_is_one_error_and_the_offline_findings_are_kept(monkeypatch, tmp_path):
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    offline = validate(str(P5))
    online = validate_online(offline, session=boto3.Session(region_name="us-east-1"))
    assert added(offline, online) == [("online.unavailable", "error", "cloud.region")]
    assert "NoCredentials" in next(f.message for f in online.findings if f.code == "online.unavailable")
    assert set(offline.findings) <= set(online.findings)


def test_a_profile_that_does_not_exist_is_one_error(monkeypatch, tmp_path):
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    offline = validate(str(P5))
    online = validate_online(offline, profile="no-such-profile")
    [finding] = [f for f in online.findings if f.code == "online.unavailable"]
    assert "ProfileNotFound" in finding.message and online.online.reached is False


def test_an_operation_outside_the_read_only_table_is_refused_before_it_is_sent(p5_account):
    session = p5_account.session()
    account = Account(session, "us-east-1")
    with pytest.raises(ReadOnlyViolation, match="ec2:RunInstances is not a read-only call"):
        account.call("ec2", "RunInstances", ImageId="ami-12345678", MinCount=1, MaxCount=1, InstanceType="t3.micro")
    assert session.client("ec2").describe_instances()["Reservations"] == []


def test_every_call_in_the_table_is_a_read(p5_account):
    import botocore.session

    models = botocore.session.get_session()
    for service, operation in READ_ONLY_CALLS:
        assert operation.startswith(("Describe", "Get", "List", "Head")), operation
        assert operation in models.get_service_model(service).operation_names


def test_the_command_line_prints_the_accounts_findings_and_exits_1_on_an_online_error(us_east_1, capsys):
    code = main(["validate", str(P5), "--online", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 1 and document["ok"] is False
    assert "online.reservation-missing" in {finding["code"] for finding in document["findings"]}
    assert document["online"]["region"] == "us-east-1" and document["online"]["reached"] is True


def test_the_command_line_tables_show_the_block_as_the_account_has_it(p5_account, capsys, monkeypatch):
    code = main(["validate", str(P5), "--online"])
    out = capsys.readouterr().out
    assert "reservations in the account (us-east-1)" in out and "cr-0a1b2c3d4e5f60718" in out
    assert "quotas in the account (us-east-1)" in out
    assert code == 0, out
