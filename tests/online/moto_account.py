"""moto's account, with the two things moto 5.2.5 lacks that `validate --online` reads.

moto answers DescribeInstanceTypeOfferings (from AWS's own dump), DescribeCluster,
HeadBucket and IAM-enforced access, but has no DescribeCapacityReservations,
and its Service Quotas know only the `vpc` service's defaults (and no applied values). This module
adds them the way moto adds any operation: a response method on moto's EC2
and Service Quotas handlers, serialised by moto from botocore's output shape,
reading what a test put into the account. A test sees only boto3 talking to moto.

    account = MotoAccount("us-east-1")
    account.reserve(capacity_block("cr-0a1b2c3d4e5f60718", "p5.48xlarge", "us-east-1a", 64, start, end))
    account.apply_quota("ec2", "L-417A185B", 6144)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import boto3
import botocore.loaders
import botocore.session
import pytest
from botocore.awsrequest import AWSResponse
from moto import mock_aws
from moto import settings as moto_settings
from moto.core import DEFAULT_ACCOUNT_ID
from moto.core.responses import ActionResult
from moto.ec2.exceptions import EC2ClientError
from moto.ec2.models.availability_zones_and_regions import RegionsAndZonesBackend
from moto.ec2.responses import EC2Response
from moto.servicequotas.exceptions import NoSuchResource
from moto.servicequotas.resources.default_quotas.vpc import VPC_DEFAULT_QUOTAS
from moto.servicequotas.responses import ServiceQuotasResponse

# botocore's loader caches each service model it parses; a session of its own would parse EC2's again for every test.
_LOADER = botocore.loaders.create_loader()
RESERVATIONS: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
APPLIED: dict[tuple[str, str, str], float] = {}
DEFAULTS: dict[tuple[str, str, str], float] = {}


def capacity_block(reservation_id: str, instance_type: str, zone: str, count: int, start: datetime, end: datetime, state: str = "active") -> dict:
    """A Capacity Block as DescribeCapacityReservations returns it (botocore's CapacityReservation shape)."""
    return {
        **_reservation(reservation_id, instance_type, zone, count, state),
        "ReservationType": "capacity-block",
        "StartDate": start,
        "EndDate": end,
        "EndDateType": "limited",
    }


def odcr(reservation_id: str, instance_type: str, zone: str, count: int, available: int | None = None, state: str = "active") -> dict:
    """An on-demand capacity reservation as DescribeCapacityReservations returns it."""
    reservation = {**_reservation(reservation_id, instance_type, zone, count, state), "ReservationType": "default", "EndDateType": "unlimited"}
    reservation["AvailableInstanceCount"] = count if available is None else available
    return reservation


def _zone_id(zone: str) -> str:
    """The id moto's account gives a zone name (every moto account maps them alike)."""
    return next(found.zone_id for found in RegionsAndZonesBackend.zones[zone[:-1]] if found.name == zone)


def _reservation(reservation_id: str, instance_type: str, zone: str, count: int, state: str) -> dict:
    return {
        "CapacityReservationId": reservation_id,
        "OwnerId": DEFAULT_ACCOUNT_ID,
        "InstanceType": instance_type,
        "InstancePlatform": "Linux/UNIX",
        "AvailabilityZone": zone,
        "AvailabilityZoneId": _zone_id(zone),
        "Tenancy": "default",
        "TotalInstanceCount": count,
        "AvailableInstanceCount": count,
        "State": state,
        "InstanceMatchCriteria": "targeted",
    }


def _describe_capacity_reservations(self: EC2Response) -> ActionResult:
    held = RESERVATIONS.get((self.current_account, self.region), {})
    wanted = self._get_param("CapacityReservationIds", []) or sorted(held)
    for reservation_id in wanted:
        if reservation_id not in held:
            raise EC2ClientError("InvalidCapacityReservationId.NotFound", f"The capacity reservation ID '{reservation_id}' does not exist")
    return ActionResult({"CapacityReservations": [held[reservation_id] for reservation_id in wanted]})


def _applied_quota(self: ServiceQuotasResponse) -> str:
    """GetServiceQuota: the value a test applied; AWS answers NoSuchResourceException for a quota never applied."""
    service, code = _quota_request(self)
    if (self.region, service, code) not in APPLIED:
        raise NoSuchResource()
    return _quota_answer(service, code, APPLIED[(self.region, service, code)])


def _default_quota(self: ServiceQuotasResponse) -> str:
    """GetAWSDefaultServiceQuota: a test's default, else moto's own `vpc` defaults (AWS's published values)."""
    service, code = _quota_request(self)
    if (self.region, service, code) in DEFAULTS:
        return _quota_answer(service, code, DEFAULTS[(self.region, service, code)])
    for quota in VPC_DEFAULT_QUOTAS if service == "vpc" else []:
        if quota["QuotaCode"] == code:
            return _quota_answer(service, code, quota["Value"])
    raise NoSuchResource()


def _quota_request(self: ServiceQuotasResponse) -> tuple[str, str]:
    params = json.loads(self.body)
    return params["ServiceCode"], params["QuotaCode"]


def _quota_answer(service: str, code: str, value: float) -> str:
    return json.dumps({"Quota": {"ServiceCode": service, "QuotaCode": code, "Value": value, "Adjustable": True, "GlobalQuota": False}})


class MotoAccount:
    """A moto account in one region, plus reservations and applied quotas a test declares."""

    def __init__(self, region: str) -> None:
        self.region = region

    def session(self, access_key: str = "testing", secret_key: str = "testing") -> boto3.Session:
        """A boto3 session whose calls moto answers (its service models read once a process: `_LOADER`)."""
        core = botocore.session.get_session()
        core.register_component("data_loader", _LOADER)
        return boto3.Session(aws_access_key_id=access_key, aws_secret_access_key=secret_key, region_name=self.region, botocore_session=core)

    def reserve(self, reservation: dict) -> None:
        """Put a capacity reservation or Capacity Block into the account."""
        RESERVATIONS.setdefault((DEFAULT_ACCOUNT_ID, self.region), {})[reservation["CapacityReservationId"]] = reservation

    def apply_quota(self, service: str, code: str, value: float) -> None:
        """Give the account an applied quota value (what GetServiceQuota returns)."""
        APPLIED[(self.region, service, code)] = value

    def default_quota(self, service: str, code: str, value: float) -> None:
        """AWS's default for a quota (what GetAWSDefaultServiceQuota returns)."""
        DEFAULTS[(self.region, service, code)] = value

    def user_allowed(self, actions: list[str]) -> tuple[str, str]:
        """An IAM user allowed exactly `actions`: its (access key, secret key), for an IAM-enforcing test."""
        iam = self.session().client("iam")
        iam.create_user(UserName="railyard-reader")
        document = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}]}
        iam.put_user_policy(UserName="railyard-reader", PolicyName="read", PolicyDocument=json.dumps(document))
        key = iam.create_access_key(UserName="railyard-reader")["AccessKey"]
        return key["AccessKeyId"], key["SecretAccessKey"]


@contextmanager
def moto_account(region: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[MotoAccount]:
    """moto for the block, with the reservation and quota operations added and emptied afterwards."""
    monkeypatch.setattr(EC2Response, "describe_capacity_reservations", _describe_capacity_reservations, raising=False)
    monkeypatch.setattr(ServiceQuotasResponse, "get_service_quota", _applied_quota)
    monkeypatch.setattr(ServiceQuotasResponse, "get_aws_default_service_quota", _default_quota, raising=False)
    for variable in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE"):
        monkeypatch.delenv(variable, raising=False)
    # moto loads some 1,300 public AMIs into every EC2 backend it starts (a quarter second each); the tests
    # register the images they read.
    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")
    try:
        with mock_aws():
            yield MotoAccount(region)
    finally:
        RESERVATIONS.clear()
        APPLIED.clear()
        DEFAULTS.clear()


def answer_with(session: boto3.Session, operation: str, status: int, code: str, message: str, times: int | None = None) -> list[int]:
    """Make `operation` (`service.Operation`) fail as AWS does with (status, code), `times` times or always.

    For what moto can't stage (throttling, another account's bucket): the answer replaces the request before
    it reaches moto. Returns a list that counts the attempts answered, so a test can see botocore's retries.
    """
    answered: list[int] = []

    def fail(request: Any, **_: Any) -> AWSResponse | None:
        if times is not None and len(answered) >= times:
            return None
        answered.append(1)
        body = b"" if operation.startswith("s3.Head") else _error_body(operation, code, message)
        return AWSResponse(request.url, status, {}, _Raw(body))

    session.events.register(f"before-send.{operation}", fail)
    return answered


def _error_body(operation: str, code: str, message: str) -> bytes:
    if operation.startswith("ec2."):
        return f"<Response><Errors><Error><Code>{code}</Code><Message>{message}</Message></Error></Errors></Response>".encode()
    return json.dumps({"__type": code, "message": message}).encode()


class _Raw:
    """The raw stream botocore reads an HTTP body from."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self._body


@contextmanager
def iam_enforced() -> Iterator[None]:
    """moto checks every request against the caller's IAM policy for the block (as AWS does)."""
    before = moto_settings.INITIAL_NO_AUTH_ACTION_COUNT
    moto_settings.INITIAL_NO_AUTH_ACTION_COUNT = 0
    try:
        yield
    finally:
        moto_settings.INITIAL_NO_AUTH_ACTION_COUNT = before
