"""`railyard plan --online` against botocore's Stubber: every request valid for botocore's model, pages followed, only reads.

moto 5.2.5 doesn't implement DescribeCapacityBlockOfferings (its EC2 responses have no such handler), so the
account is botocore's own Stubber: `add_response` validates each answer against the operation's output
shape, and `expected_params` holds each request to exactly what is asked (botocore validates the parameters
against the input shape before the stub answers). A hook on every call the clients make records its
operation, so the test sees each call that would have been signed.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import boto3
import botocore.session
import pytest
from botocore.stub import Stubber

from railyard.cli import main
from railyard.online.account import READ_ONLY_CALLS, ReadOnlyViolation, open_account
from tests.plan.offerings import SAMPLE

START = datetime(2027, 1, 4, tzinfo=UTC)
END = datetime(2027, 3, 1, tzinfo=UTC)
NEEDS = f"""version: 1
kind: needs
name: stubbed
base: {SAMPLE / "org-base.yaml"}
regions: [us-east-1, us-east-2]
accelerators:
  count: 512
  instance_types: [p5.48xlarge, p6e-gb200.36xlarge]
window: {{earliest_start: 2027-01-04, latest_end: 2027-02-28, duration_days: 21}}
"""


def offering(offering_id: str, zone: str, count: int, instance_type: str = "p5.48xlarge", fee: str = "1339527.17", **extra) -> dict:
    return {
        "CapacityBlockOfferingId": offering_id,
        "InstanceType": instance_type,
        "AvailabilityZone": zone,
        "InstanceCount": count,
        "StartDate": datetime(2027, 1, 11, 11, 30, tzinfo=UTC),
        "EndDate": datetime(2027, 2, 1, 11, 30, tzinfo=UTC),
        "CapacityBlockDurationHours": 504,
        "UpfrontFee": fee,
        "CurrencyCode": "USD",
        "Tenancy": "default",
        **extra,
    }


class StubbedSession:
    """A boto3-like session whose clients are botocore clients under a Stubber, one per region, recording every operation called."""

    def __init__(self, answers: dict[str, list[tuple[dict, dict]]]):
        self.called: list[tuple[str, str, str]] = []
        self.stubbers: dict[str, Stubber] = {}
        self._clients: dict[str, object] = {}
        self._answers = answers

    def client(self, service, region_name, config=None):
        if region_name not in self._clients:
            session = botocore.session.get_session()
            session.set_credentials("AKIDEXAMPLE", "secret")
            client = session.create_client(service, region_name=region_name, config=config)
            client.meta.events.register("provide-client-params.*.*", self._record(region_name))
            stubber = Stubber(client)
            for expected, response in self._answers.get(region_name, []):
                stubber.add_response("describe_capacity_block_offerings", response, expected)
            stubber.activate()
            self.stubbers[region_name], self._clients[region_name] = stubber, client
        return self._clients[region_name]

    def _record(self, region):
        def hook(params, model, **_):
            self.called.append((region, model.service_model.service_name, model.name))

        return hook


def request(**query) -> dict:
    return {**query, "StartDateRange": START, "EndDateRange": END, "CapacityDurationHours": 504}


def answers() -> dict[str, list[tuple[dict, dict]]]:
    gb200 = {"InstanceType": "p6e-gb200.36xlarge", "UltraserverType": "u-p6e-gb200x72"}
    ultra = {"UltraserverType": "u-p6e-gb200x72", "UltraserverCount": 1}
    return {
        "us-east-1": [
            # Two pages: the paginator sends the first page's NextToken back for the second.
            (
                request(InstanceType="p5.48xlarge", InstanceCount=64),
                {"CapacityBlockOfferings": [offering("cb-0000000000000001a", "us-east-1a", 64)], "NextToken": "page-2"},
            ),
            (
                request(InstanceType="p5.48xlarge", InstanceCount=64, NextToken="page-2"),
                {"CapacityBlockOfferings": [offering("cb-0000000000000002b", "us-east-1b", 64, fee="1400000.00")]},
            ),
            (request(**gb200, UltraserverCount=8), {"CapacityBlockOfferings": []}),
            (
                request(**gb200, UltraserverCount=1),
                {"CapacityBlockOfferings": [offering("cb-0000000000000003a", "us-east-1a", 18, "p6e-gb200.36xlarge", "448358.40", **ultra)]},
            ),
        ],
        "us-east-2": [
            (
                request(InstanceType="p5.48xlarge", InstanceCount=64),
                {"CapacityBlockOfferings": [offering("cb-0000000000000004a", "us-east-2a", 64, fee="1300000.00")]},
            ),
            (request(**gb200, UltraserverCount=8), {"CapacityBlockOfferings": []}),
            (request(**gb200, UltraserverCount=1), {"CapacityBlockOfferings": []}),
        ],
    }


@pytest.fixture
def stubbed(monkeypatch):
    session = StubbedSession(answers())
    monkeypatch.setattr(boto3, "Session", lambda profile_name=None: session)
    return session


def test_the_search_asks_each_region_type_and_count_with_valid_requests_follows_pages_and_only_reads(stubbed, tmp_path, capsys):
    needs = tmp_path / "needs.yaml"
    needs.write_text(NEEDS)
    recorded = tmp_path / "answers"
    assert main(["plan", str(needs), "--online", "--record", str(recorded), "--json", "--at", "2026-12-01T00:00:00Z"]) == 0
    online = capsys.readouterr().out
    for stubber in stubbed.stubbers.values():
        stubber.assert_no_pending_responses()  # every expected request was made, in order, pages included
    assert {(service, operation) for _, service, operation in stubbed.called} == {("ec2", "DescribeCapacityBlockOfferings")}
    assert all(("ec2", operation) in READ_ONLY_CALLS for _, _, operation in stubbed.called)
    assert sorted(path.name for path in recorded.iterdir()) == [
        "ec2-describe-capacity-block-offerings-us-east-1-p5.48xlarge-64-504.json",
        "ec2-describe-capacity-block-offerings-us-east-1-p6e-gb200.36xlarge-u-p6e-gb200x72-1-504.json",
        "ec2-describe-capacity-block-offerings-us-east-1-p6e-gb200.36xlarge-u-p6e-gb200x72-8-504.json",
        "ec2-describe-capacity-block-offerings-us-east-2-p5.48xlarge-64-504.json",
        "ec2-describe-capacity-block-offerings-us-east-2-p6e-gb200.36xlarge-u-p6e-gb200x72-1-504.json",
        "ec2-describe-capacity-block-offerings-us-east-2-p6e-gb200.36xlarge-u-p6e-gb200x72-8-504.json",
    ]
    # The two pages are one answer, as the AWS CLI joins them; timestamps as the CLI prints them.
    joined = json.loads((recorded / "ec2-describe-capacity-block-offerings-us-east-1-p5.48xlarge-64-504.json").read_text())
    assert [item["CapacityBlockOfferingId"] for item in joined["CapacityBlockOfferings"]] == ["cb-0000000000000001a", "cb-0000000000000002b"]
    assert joined["CapacityBlockOfferings"][0]["StartDate"] == "2027-01-11T11:30:00+00:00" and "NextToken" not in joined
    # Judged offline from what was recorded: the same bytes.
    assert main(["plan", str(needs), "--offerings", str(recorded), "--json", "--at", "2026-12-01T00:00:00Z"]) == 0
    assert capsys.readouterr().out == online
    document = json.loads(online)
    assert [candidate["offering_ids"] for candidate in document["candidates"]] == [["cb-0000000000000001a"], ["cb-0000000000000002b"]]
    # The cheapest is in us-east-2, where the needs, the base and the answers name one zone only: EKS needs two.
    assert {(tuple(one["offering_ids"]), one["code"], one["message"]) for one in document["rejected"]} == {
        (
            ("cb-0000000000000003a",),
            "plan.too-few",
            "18 p6e-gb200.36xlarge in us-east-1a (72 accelerators) from 2027-01-11; the job needs 144 (576 accelerators)",
        ),
        (("cb-0000000000000004a",), "plan.zones", "only us-east-2a is known in us-east-2; an EKS cluster needs subnets in two zones"),
    }


def test_buying_is_refused_before_anything_is_signed(stubbed):
    account = open_account("us-east-1")
    with pytest.raises(ReadOnlyViolation, match="ec2:PurchaseCapacityBlock is not a read-only call railyard makes"):
        account.call("ec2", "PurchaseCapacityBlock", CapacityBlockOfferingId="cb-0000000000000001a", InstancePlatform="Linux/UNIX")
    assert stubbed.called == []


def test_an_unreachable_account_searches_nothing_and_says_so(tmp_path, monkeypatch, capsys):
    needs = tmp_path / "needs.yaml"
    needs.write_text(NEEDS)
    from botocore.exceptions import ProfileNotFound

    def missing(profile_name=None):
        raise ProfileNotFound(profile=profile_name)

    monkeypatch.setattr(boto3, "Session", missing)
    assert main(["plan", str(needs), "--online", "--profile", "nobody"]) == 1
    assert (
        "railyard plan: the account can't be reached (ProfileNotFound: The config profile (nobody) could not be found); nothing was searched"
        in capsys.readouterr().err
    )


def test_the_recorded_folder_is_what_the_sample_is_shaped_like():
    for path in sorted((SAMPLE / "offerings").glob("*.json")):
        document = json.loads(Path(path).read_text())
        shape = botocore.session.get_session().get_service_model("ec2").operation_model("DescribeCapacityBlockOfferings").output_shape
        member = shape.members["CapacityBlockOfferings"].member
        for item in document["CapacityBlockOfferings"]:
            assert set(item) <= set(member.members), path.name
