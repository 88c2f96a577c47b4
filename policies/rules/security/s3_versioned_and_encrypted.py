"""SEC017: every S3 bucket keeps versions and encrypts at rest, through the resources that say so.

pulumi-aws 7 configures a bucket's versioning and default encryption with
resources of their own (`BucketVersioning`, `BucketServerSideEncryptionConfiguration`),
each naming its bucket. A dataset or checkpoint bucket without versioning
loses data to one wrong overwrite; one without default encryption relies on
every writer. Checkov's CKV_AWS_21 (versioning) and CKV_AWS_19 / CKV_AWS_145
(encryption, with KMS) and cfn-nag's W41 ask for both. A block belongs to a
bucket as SEC009's does: by the bucket's id or name, or the engine's
recorded dependency.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from policies.resource_types import (
    BUCKET,
    BUCKET_ENCRYPTION,
    BUCKET_ENCRYPTION_V2,
    BUCKET_V2,
    BUCKET_VERSIONING,
    BUCKET_VERSIONING_V2,
)
from policies.rule import StackRule
from policies.stack import Stack, items, known, value

ALGORITHMS = ("aws:kms", "aws:kms:dsse", "AES256")


def _covered(stack: Stack, types: tuple[str, ...], buckets: list, accepts) -> set[str]:
    """The URNs of the buckets that a configuration resource of `types` names and `accepts`."""
    found: set[str] = set()
    for configuration in stack.of_type(*types):
        name = known(configuration.props, "bucket")
        owners = {bucket.urn for bucket in stack.linked(configuration, "bucket", BUCKET, BUCKET_V2)}
        owners |= {bucket.urn for bucket in buckets if name is not None and known(bucket.props, "bucket") == name}
        if accepts(configuration.props):
            found |= owners
    return found


def _versioned(props) -> bool:
    return value(props, "versioningConfiguration.status") == "Enabled"


def _encrypted(props) -> bool:
    return any(value(rule, "applyServerSideEncryptionByDefault.sseAlgorithm") in ALGORITHMS for rule in items(value(props, "rules")))


def check(stack: Stack, settings) -> Iterable[tuple[Any, str]]:
    """Buckets without an enabled versioning resource, or without a default-encryption resource."""
    buckets = stack.of_type(BUCKET, BUCKET_V2)
    versioned = _covered(stack, (BUCKET_VERSIONING, BUCKET_VERSIONING_V2), buckets, _versioned)
    encrypted = _covered(stack, (BUCKET_ENCRYPTION, BUCKET_ENCRYPTION_V2), buckets, _encrypted)
    for bucket in buckets:
        if bucket.urn not in versioned:
            yield bucket, "has no aws.s3.BucketVersioning with status Enabled"
        if bucket.urn not in encrypted:
            yield bucket, f"has no aws.s3.BucketServerSideEncryptionConfiguration with an algorithm of {', '.join(ALGORITHMS)}"


RULE = StackRule(
    id="SEC017",
    name="s3-versioned-and-encrypted",
    title="Every S3 bucket has versioning enabled and default encryption",
    domain="security",
    severity="high",
    check=check,
    fix="add aws.s3.BucketVersioning(bucket=<id>, versioning_configuration={'status': 'Enabled'}) and "
    "aws.s3.BucketServerSideEncryptionConfiguration(bucket=<id>) with sse_algorithm 'aws:kms'",
)
