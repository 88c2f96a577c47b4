"""SEC003: FSx for Lustre file systems are encrypted with a customer-managed KMS key.

Only the persistent deployment types accept `kmsKeyId`; without it FSx uses
an AWS-managed key the account can't restrict or revoke. Scratch file
systems can't take a customer key at all, so they fail this rule too: the
fix is PERSISTENT_2 (aws-facts.md 3.1; pulumi-aws `kms_key_id` docstring).
"""

from policies.resource_types import LUSTRE
from policies.rule import SchemaRule

RULE = SchemaRule(
    id="SEC003",
    name="fsx-encrypted-with-kms",
    title="FSx for Lustre is encrypted with a customer-managed KMS key",
    domain="security",
    severity="high",
    schemas={
        LUSTRE: {
            "deploymentType": {"required": True, "allowed": ["PERSISTENT_1", "PERSISTENT_2"]},
            "kmsKeyId": {"required": True, "type": "string", "empty": False},
        },
    },
    fix="use deployment_type PERSISTENT_2 and set kms_key_id to the cluster's KMS key",
)
