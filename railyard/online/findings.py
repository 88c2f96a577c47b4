"""A refused call as a finding: what wasn't checked, and why, said once per check."""

from __future__ import annotations

from blueprints.findings import Finding, Path, error, warning
from railyard.online.account import AccountError, AccountUnreachable

CODES = ("online.unavailable", "online.access-denied", "online.throttled", "online.call-failed")


def account_finding(exc: AccountError, path: Path, skipped: str) -> Finding:
    """A warning for one refused call: the IAM action, AWS's code and message, and what went unchecked."""
    if exc.kind == "access-denied":
        return warning(
            "online.access-denied",
            path,
            f"{exc.action} was denied ({exc.code}), so {skipped}",
            f"grant {exc.action} to the identity running railyard (docs/online.md has the whole read-only policy)",
            action=exc.action,
        )
    if exc.kind == "throttled":
        return warning(
            "online.throttled",
            path,
            f"{exc.action} was throttled ({exc.code}) after 5 attempts, so {skipped}",
            "run again later; nothing was changed in the account",
            action=exc.action,
        )
    return warning(
        "online.call-failed",
        path,
        f"{exc.action} failed ({exc.code}: {exc.message}), so {skipped}",
        "run again; if it persists, the message above is AWS's own",
        action=exc.action,
        aws_code=exc.code,
    )


def unreachable_finding(exc: AccountUnreachable, region: str) -> Finding:
    """The one error when no call can succeed: nothing was checked against the account."""
    return error(
        "online.unavailable",
        ("cloud", "region"),
        f"the account could not be reached in {region} ({exc.code}: {exc.message}); nothing was checked online",
        "give railyard credentials for the account (AWS_PROFILE, --profile, or the environment's role), or run without --online",
        aws_code=exc.code,
    )
