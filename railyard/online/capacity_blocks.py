"""`railyard plan --online`: Capacity Block offerings read from the account, read-only, and recorded as the AWS CLI prints them.

One DescribeCapacityBlockOfferings call per region, instance type, count and duration (pages followed by
botocore's own paginator), through `validate --online`'s `Account`: the same read-only table, the same
credentials path and error classes. Each answer is one document named for its query
(`ec2-describe-capacity-block-offerings-<region>-<type>-<count>-<hours>.json`), which `--record DIR`
writes and `--offerings DIR` reads back, so a live search and its recording are judged the same way
(the documents pass through JSON either way). Buying is not in the table: `PurchaseCapacityBlock` is
refused before anything is signed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime, time, timedelta
from typing import Any

from blueprints.models.needs import Needs
from railyard.online.account import AccountError, AccountUnreachable, open_account
from railyard.online.evidence import dumps, write_document
from railyard.plan.expand import Expansion

OPERATION = ("ec2", "DescribeCapacityBlockOfferings")


def file_name(region: str, query: Mapping[str, Any], hours: int) -> str:
    """The document one query's answer is kept in."""
    what = query.get("UltraserverType") or query["InstanceType"]
    count = query.get("UltraserverCount") or query.get("InstanceCount")
    subject = f"{query['InstanceType']}-{what}" if query.get("UltraserverType") else str(what)
    return f"ec2-describe-capacity-block-offerings-{region}-{subject}-{count}-{hours}.json"


def queries(needs: Needs, expansion: Expansion) -> list[tuple[str, dict[str, Any]]]:
    """Every (region, request) the search makes: each region x type x count, for the block duration, within the window."""
    start = datetime.combine(needs.window.earliest_start, time(), UTC)
    end = datetime.combine(needs.window.latest_end + timedelta(days=1), time(), UTC)
    found = []
    for region in needs.regions:
        for need in expansion.types:
            for query in need.queries():
                request = {**query, "StartDateRange": start, "EndDateRange": end, "CapacityDurationHours": expansion.hours}
                found.append((region, request))
    return found


def search(
    needs: Needs, expansion: Expansion, profile: str | None = None, session: Any = None, record: str | None = None
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The answers by file name (as JSON reads them back) and the calls that failed (with AWS's code); raises `AccountUnreachable`."""
    documents: dict[str, dict[str, Any]] = {}
    failed: list[str] = []
    accounts: dict[str, Any] = {}
    for region, request in queries(needs, expansion):
        account = accounts.get(region) or accounts.setdefault(region, open_account(region, profile, session))
        name = file_name(region, request, expansion.hours)
        try:
            answer = account.pages(*OPERATION, **request)
        except AccountError as exc:
            failed.append(f"{name}: {exc}")
            continue
        document = {"CapacityBlockOfferings": answer.get("CapacityBlockOfferings", [])}
        documents[name] = json.loads(dumps(document))
        if record is not None:
            write_document(record, name, document)
    return documents, failed


__all__ = ["AccountUnreachable", "file_name", "queries", "search"]
