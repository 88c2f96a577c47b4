"""SEC014: KMS keys rotate their key material every year.

A customer managed key without rotation keeps the same material for as long
as it exists, so material exposed once protects every later secret and
volume. Checkov's CKV_AWS_7 and cfn-nag's F19 ask for `enableKeyRotation`;
railyard's secrets and volume keys set it.
"""

from policies.resource_types import KMS_KEY
from policies.rule import SchemaRule

RULE = SchemaRule(
    id="SEC014",
    name="kms-key-rotation",
    title="KMS keys rotate their key material (enableKeyRotation = true)",
    domain="security",
    severity="medium",
    schemas={KMS_KEY: {"enableKeyRotation": {"required": True, "allowed": [True]}}},
    fix="set enable_key_rotation=True on the aws.kms.Key",
)
