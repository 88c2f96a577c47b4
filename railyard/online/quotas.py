"""The quota plan against the account's applied quota values.

Offline, railyard compares each need with the value the blueprint declares
under `quotas:` or AWS's default. Online, it asks Service Quotas for the value
applied to this account (GetServiceQuota) and, where none was ever applied
(AWS answers NoSuchResourceException), for AWS's default
(GetAWSDefaultServiceQuota). A need over the account's value is an error; a
declared value the account doesn't have is a warning, since the offline check
trusted it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from blueprints.findings import Finding, error, warning
from blueprints.records import record
from railyard.online.account import Account, AccountError
from railyard.online.findings import account_finding
from topology.cluster.quotas import QuotaNeed

CODES = ("online.quota-short", "online.quota-declared-differs")
NEVER_APPLIED = "NoSuchResourceException"


@record
class QuotaFact:
    """The account's value for one quota the design needs, and where the value came from."""

    code: str
    service: str
    name: str
    needed: int
    value: int
    applied: bool

    def as_json(self) -> dict[str, Any]:
        """The `validate --online --json` `online.quotas` entry."""
        return {"code": self.code, "service": self.service, "needed": self.needed, "account": self.value, "applied": self.applied}


def check_quotas(needs: Sequence[QuotaNeed], account: Account) -> tuple[list[QuotaFact], list[Finding]]:
    """Every need against the account's value: the values found and the findings."""
    facts, findings = [], []
    for need in needs:
        try:
            value, applied = _account_value(account, need)
        except AccountError as exc:
            findings.append(account_finding(exc, need.path, f"quota {need.code} was not checked"))
            continue
        facts.append(QuotaFact(need.code, need.service, need.name, need.needed, value, applied))
        findings += _compare(need, value, applied)
    return facts, findings


def _account_value(account: Account, need: QuotaNeed) -> tuple[int, bool]:
    """(value, applied): the account's applied value, else AWS's default with applied False."""
    try:
        answer = account.call("service-quotas", "GetServiceQuota", ServiceCode=need.service, QuotaCode=need.code)
        return int(answer["Quota"]["Value"]), True
    except AccountError as exc:
        if exc.code != NEVER_APPLIED:
            raise
    answer = account.call("service-quotas", "GetAWSDefaultServiceQuota", ServiceCode=need.service, QuotaCode=need.code)
    return int(answer["Quota"]["Value"]), False


def _compare(need: QuotaNeed, value: int, applied: bool) -> list[Finding]:
    has = f"has {value:,}" if applied else f"has AWS's default of {value:,} (no increase applied)"
    findings = []
    if need.needed > value:
        findings.append(
            error(
                "online.quota-short",
                need.path,
                f"{need.name} ({need.code}): the design needs {need.needed:,} ({need.why}), but the account {has}",
                "request the increase: aws service-quotas request-service-quota-increase "
                f"--service-code {need.service} --quota-code {need.code} --desired-value {need.needed}",
                quota=need.code,
                needed=need.needed,
                account=value,
            )
        )
    if need.declared is not None and need.declared != value:
        findings.append(
            warning(
                "online.quota-declared-differs",
                ("quotas", need.code),
                f"the blueprint declares {need.code} = {need.declared:,}, but the account {has}",
                f"declare what the account has: quotas: {{{need.code}: {value}}}",
                quota=need.code,
                declared=need.declared,
                account=value,
            )
        )
    return findings
