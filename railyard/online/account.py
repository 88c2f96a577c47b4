"""The account, read-only: the only door `validate --online` has to AWS.

Every call goes through `Account.call`, which accepts only the operations in
`READ_ONLY_CALLS`, a table from (service, operation) to the IAM action it
needs. The table is the whole contract: a write can't be sent because it isn't
in it (the refusal happens before botocore signs anything), and the IAM policy
a user grants (`docs/online.md`) is the table's actions, checked by a test.

AWS's failures come back in two kinds. `AccountError` is one call refused
(access denied, throttled after botocore's standard retries, or any other API
error with its code): the check that made it reports it and the others go on.
`AccountUnreachable` means no call can succeed (no credentials, refused
credentials, no endpoint): `validate --online` stops checking and says so once.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal

from blueprints.records import record
from railyard import __version__

# (client service name, operation) -> the IAM action a caller needs for it.
READ_ONLY_CALLS: dict[tuple[str, str], str] = {
    ("ec2", "DescribeCapacityReservations"): "ec2:DescribeCapacityReservations",
    ("ec2", "DescribeInstanceTypeOfferings"): "ec2:DescribeInstanceTypeOfferings",
    ("ec2", "DescribeVpcs"): "ec2:DescribeVpcs",
    ("ec2", "DescribeSubnets"): "ec2:DescribeSubnets",
    ("ec2", "DescribeImages"): "ec2:DescribeImages",
    ("ec2", "DescribeSecurityGroups"): "ec2:DescribeSecurityGroups",
    ("ec2", "DescribeNetworkInterfaces"): "ec2:DescribeNetworkInterfaces",
    # `railyard conform` (railyard.online.cluster): the running instances, where they sit, their Capacity Blocks.
    ("ec2", "DescribeInstances"): "ec2:DescribeInstances",
    ("ec2", "DescribeInstanceTopology"): "ec2:DescribeInstanceTopology",
    ("ec2", "DescribeCapacityBlockStatus"): "ec2:DescribeCapacityBlockStatus",
    ("eks", "DescribeNodegroup"): "eks:DescribeNodegroup",
    ("fsx", "DescribeFileSystems"): "fsx:DescribeFileSystems",
    ("service-quotas", "GetServiceQuota"): "servicequotas:GetServiceQuota",
    ("service-quotas", "GetAWSDefaultServiceQuota"): "servicequotas:GetAWSDefaultServiceQuota",
    ("eks", "DescribeCluster"): "eks:DescribeCluster",
    # `railyard plan --online` (railyard.online.capacity_blocks): the Capacity Block offerings for sale; reading them buys nothing.
    ("ec2", "DescribeCapacityBlockOfferings"): "ec2:DescribeCapacityBlockOfferings",
    # HeadBucket is authorised by s3:ListBucket on the bucket.
    ("s3", "HeadBucket"): "s3:ListBucket",
}

Kind = Literal["access-denied", "throttled", "failed"]
# HeadBucket answers a bare 403 both for "not yours" and "not allowed": its caller reads that one itself.
ACCESS_DENIED = frozenset({"AccessDenied", "AccessDeniedException", "UnauthorizedOperation"})
THROTTLED = frozenset({"Throttling", "ThrottlingException", "RequestLimitExceeded", "TooManyRequestsException", "RequestThrottled", "SlowDown"})
# The credentials themselves are refused: nothing else will work either.
UNAUTHENTICATED = frozenset(
    {"AuthFailure", "InvalidClientTokenId", "UnrecognizedClientException", "ExpiredToken", "ExpiredTokenException", "SignatureDoesNotMatch"}
)
# botocore's standard retry mode: 5 attempts in all (the first and 4 retries), backing off exponentially on throttling.
ATTEMPTS = 5


class ReadOnlyViolation(RuntimeError):
    """A check asked for an operation outside `READ_ONLY_CALLS`: a bug in railyard, refused before it is sent."""


@record
class AccountError(Exception):
    """One refused call: what kind of refusal, the IAM action, AWS's error code and message."""

    kind: Kind
    action: str
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.action}: {self.code}: {self.message}"


@record
class AccountUnreachable(Exception):
    """No call can succeed: the credentials are missing or refused, or AWS's endpoint can't be reached."""

    action: str
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


@record(frozen=False)
class Account:
    """A boto3 session bound to the blueprint's region, that can only read."""

    session: Any
    region: str
    _clients: dict[str, Any] = field(default_factory=dict, repr=False)

    def call(self, service: str, operation: str, **params: Any) -> dict[str, Any]:
        """Call one read-only operation; raises `AccountError` for a refused call, `AccountUnreachable` when none can succeed."""
        action = _allowed(service, operation)
        return self._guarded(action, lambda: getattr(self._client(service), _snake(operation))(**params))

    def pages(self, service: str, operation: str, **params: Any) -> dict[str, Any]:
        """Every page of one read-only operation joined into one answer, by botocore's own paginator (as the AWS CLI joins them)."""
        action = _allowed(service, operation)
        return self._guarded(action, lambda: self._client(service).get_paginator(_snake(operation)).paginate(**params).build_full_result())

    def _guarded(self, action: str, send: Any) -> dict[str, Any]:
        """`send()`'s answer, with botocore's failures turned into `AccountError` or `AccountUnreachable`."""
        from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, PartialCredentialsError

        try:
            response: dict[str, Any] = send()
            return response
        except ClientError as exc:
            raise _classify(action, dict(exc.response)) from None
        except (NoCredentialsError, PartialCredentialsError) as exc:
            raise AccountUnreachable(action, "NoCredentials", str(exc)) from None
        except BotoCoreError as exc:
            # Endpoint unreachable, timeouts, a profile that doesn't exist: the account can't be reached.
            raise AccountUnreachable(action, type(exc).__name__, str(exc)) from None

    def _client(self, service: str) -> Any:
        if service not in self._clients:
            from botocore.config import Config

            config = Config(
                retries={"mode": "standard", "total_max_attempts": ATTEMPTS},
                connect_timeout=10,
                read_timeout=30,
                user_agent_extra=f"railyard/{__version__} validate-online",
            )
            self._clients[service] = self.session.client(service, region_name=self.region, config=config)
        return self._clients[service]


def _allowed(service: str, operation: str) -> str:
    """The IAM action of a read-only operation; `ReadOnlyViolation` for any other."""
    action = READ_ONLY_CALLS.get((service, operation))
    if action is None:
        raise ReadOnlyViolation(f"{service}:{operation} is not a read-only call railyard makes")
    return action


def open_account(region: str, profile: str | None = None, session: Any = None) -> Account:
    """An `Account` for a region, from a given boto3 session or a new one (with a named profile); raises `AccountUnreachable`."""
    if session is None:
        import boto3
        from botocore.exceptions import BotoCoreError

        try:
            session = boto3.Session(profile_name=profile)
        except BotoCoreError as exc:
            raise AccountUnreachable("(session)", type(exc).__name__, str(exc)) from None
    return Account(session, region)


def _classify(action: str, response: dict[str, Any]) -> AccountError | AccountUnreachable:
    error = response.get("Error", {})
    code = str(error.get("Code") or response.get("ResponseMetadata", {}).get("HTTPStatusCode", "unknown"))
    message = str(error.get("Message") or "")
    if code in ACCESS_DENIED:
        return AccountError("access-denied", action, code, message)
    if code in THROTTLED:
        return AccountError("throttled", action, code, message)
    if code in UNAUTHENTICATED:
        return AccountUnreachable(action, code, message)
    return AccountError("failed", action, code, message)


def _snake(operation: str) -> str:
    """botocore's method name for an operation: `GetAWSDefaultServiceQuota` -> `get_aws_default_service_quota`."""
    from botocore import xform_name

    name: str = xform_name(operation)
    return name
