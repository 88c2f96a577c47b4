"""Names railyard would create that the account (or, for buckets, all of S3) may already hold.

`pulumi up` creates the EKS cluster and the S3 buckets under fixed names; if
the name is taken, the create fails after the VPC and IAM roles are already
up. DescribeCluster answers for the cluster; HeadBucket for each bucket,
whose names are global across all accounts: 404 means free, 200 means this
account owns it, 403 means another account does (or this identity may not
list it).
"""

from __future__ import annotations

from blueprints.findings import Finding, error, warning
from blueprints.models import Blueprint
from blueprints.models.storage import S3Bucket
from blueprints.rules.names import bucket_name, cluster_name
from railyard.online.account import Account, AccountError
from railyard.online.findings import account_finding

CODES = ("online.cluster-exists", "online.bucket-exists", "online.bucket-taken")
CLUSTER_MISSING = "ResourceNotFoundException"
BUCKET_MISSING = ("404", "NoSuchBucket", "NotFound")
BUCKET_NOT_OURS = ("403", "Forbidden")


def check_names(blueprint: Blueprint, account: Account) -> list[Finding]:
    """Findings for the cluster name and every bucket name railyard would create, if taken."""
    findings = []
    name = cluster_name(blueprint)
    try:
        answer = account.call("eks", "DescribeCluster", name=name)
        findings.append(
            warning(
                "online.cluster-exists",
                ("metadata", "name"),
                f"an EKS cluster named {name} already exists in {account.region} (created {answer['cluster'].get('createdAt', '?')})",
                "if this stack doesn't manage it, pulumi up will fail to create it: change metadata.name or metadata.environment",
                cluster=name,
            )
        )
    except AccountError as exc:
        if exc.code != CLUSTER_MISSING:
            findings.append(account_finding(exc, ("metadata", "name"), f"whether cluster {name} exists was not checked"))
    for index, tier in enumerate(blueprint.storage):
        if isinstance(tier, S3Bucket) and not tier.existing:  # an existing bucket is meant to exist (railyard.online.existing)
            findings += _bucket(account, bucket_name(name, tier), ("storage", index, "bucket_name" if tier.bucket_name else "name"))
    return findings


def _bucket(account: Account, bucket: str, path: tuple[str | int, ...]) -> list[Finding]:
    try:
        account.call("s3", "HeadBucket", Bucket=bucket)
    except AccountError as exc:
        if exc.code in BUCKET_MISSING:
            return []
        if exc.code in BUCKET_NOT_OURS:
            return [
                error(
                    "online.bucket-taken",
                    path,
                    f"S3 bucket {bucket} already exists and this identity can't list it: another account owns it "
                    "(or this identity lacks s3:ListBucket on it)",
                    "set the tier's bucket_name to a name that is free (bucket names are global across all accounts)",
                    bucket=bucket,
                )
            ]
        return [account_finding(exc, path, f"whether bucket {bucket} is free was not checked")]
    return [
        warning(
            "online.bucket-exists",
            path,
            f"S3 bucket {bucket} already exists in this account",
            "if this stack doesn't manage it, pulumi up will fail to create it: choose another bucket_name",
            bucket=bucket,
        )
    ]
