"""SEC008: every S3 public access block blocks all four kinds of public access.

A public access block with any flag off lets a later ACL or bucket policy
publish datasets or checkpoints; all four on makes that impossible whatever
else is attached. That each bucket *has* a block is SEC009's job.
"""

from policies.resource_types import PUBLIC_ACCESS_BLOCK
from policies.rule import SchemaRule

ON = {"required": True, "allowed": [True]}

RULE = SchemaRule(
    id="SEC008",
    name="s3-public-access-blocked",
    title="S3 public access blocks turn on all four protections",
    domain="security",
    severity="critical",
    schemas={
        PUBLIC_ACCESS_BLOCK: {
            "blockPublicAcls": ON,
            "blockPublicPolicy": ON,
            "ignorePublicAcls": ON,
            "restrictPublicBuckets": ON,
        },
    },
    fix="set block_public_acls, block_public_policy, ignore_public_acls and restrict_public_buckets to True",
)
