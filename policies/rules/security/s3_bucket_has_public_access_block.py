"""SEC009: every S3 bucket in the stack has its own public access block.

A bucket is private only while nothing makes it public; a public access
block makes "nothing" a guarantee. The block names its bucket by id (the
bucket's name), so a block belongs to a bucket when its `bucket` is that
bucket's id or `bucket` name, or when the engine records the bucket as a
dependency of the block's `bucket` property. SEC008 checks the block's flags.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from policies.resource_types import BUCKET, BUCKET_V2, PUBLIC_ACCESS_BLOCK
from policies.rule import StackRule
from policies.stack import Stack, known


def check(stack: Stack, settings) -> Iterable[tuple[Any, str]]:
    """Buckets that no public access block names."""
    buckets = stack.of_type(BUCKET, BUCKET_V2)
    covered: set[str] = set()
    for block in stack.of_type(PUBLIC_ACCESS_BLOCK):
        covered.update(bucket.urn for bucket in stack.linked(block, "bucket", BUCKET, BUCKET_V2))
        name = known(block.props, "bucket")
        covered.update(bucket.urn for bucket in buckets if name is not None and known(bucket.props, "bucket") == name)
    for bucket in buckets:
        if bucket.urn not in covered:
            yield bucket, "has no aws.s3.BucketPublicAccessBlock"


RULE = StackRule(
    id="SEC009",
    name="s3-bucket-has-public-access-block",
    title="Every S3 bucket has a public access block",
    domain="security",
    severity="critical",
    check=check,
    fix="add an aws.s3.BucketPublicAccessBlock with bucket=<the bucket's id> and all four flags True",
)
