"""SEC002: node volumes are EBS volumes encrypted with a customer-managed KMS key.

A launch template with no block-device mapping boots from the AMI's snapshot
as is, unencrypted unless the account happens to enable EBS encryption by
default; so the root volume must be mapped, and every mapped EBS volume must
be encrypted with a key the account controls (`kmsKeyId`), which is what
lets a key policy or a key deletion cut access. The launch template's
`encrypted` is a string in pulumi-aws ("true"); a bool is accepted too.
"""

from policies.resource_types import EBS_VOLUME, LAUNCH_TEMPLATE
from policies.rule import SchemaRule

ENCRYPTED = {"required": True, "allowed": ["true", True]}
KMS_KEY = {"required": True, "type": "string", "empty": False}

RULE = SchemaRule(
    id="SEC002",
    name="ebs-encrypted-with-kms",
    title="EBS volumes are encrypted with a customer-managed KMS key",
    domain="security",
    severity="high",
    schemas={
        LAUNCH_TEMPLATE: {
            "blockDeviceMappings": {
                "type": "list",
                "required": True,
                "minlength": 1,
                "schema": {
                    "type": "dict",
                    "schema": {
                        "ebs": {"type": "dict", "required": True, "schema": {"encrypted": ENCRYPTED, "kmsKeyId": KMS_KEY}},
                    },
                },
            },
        },
        EBS_VOLUME: {"encrypted": ENCRYPTED, "kmsKeyId": KMS_KEY},
    },
    fix="map the root volume in block_device_mappings with ebs encrypted='true' and kms_key_id set to the cluster's KMS key",
)
