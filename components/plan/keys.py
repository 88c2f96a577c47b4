"""KMS key policies the compiler needs, as pure functions of the account.

Node root volumes are encrypted with a customer-managed key. EC2 Auto Scaling
(which launches a managed node group's instances) uses its service-linked role
to attach those volumes, so the key policy must let that role use the key and
create grants for AWS resources; without it, launches fail with
`Client.InvalidKMSKey.InvalidState` (EC2 Auto Scaling user guide, "Required KMS
key policy for use with encrypted volumes").
"""

from __future__ import annotations

import json

KEY_USE = ["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey"]


def volume_key_policy(partition: str, account_id: str) -> str:
    """The JSON key policy of the node-volume key for one account."""
    root = f"arn:{partition}:iam::{account_id}:root"
    autoscaling = f"arn:{partition}:iam::{account_id}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Sid": "AccountAdministers", "Effect": "Allow", "Principal": {"AWS": root}, "Action": "kms:*", "Resource": "*"},
                {"Sid": "AutoScalingUsesTheKey", "Effect": "Allow", "Principal": {"AWS": autoscaling}, "Action": KEY_USE, "Resource": "*"},
                {
                    "Sid": "AutoScalingAttachesVolumes",
                    "Effect": "Allow",
                    "Principal": {"AWS": autoscaling},
                    "Action": "kms:CreateGrant",
                    "Resource": "*",
                    "Condition": {"Bool": {"kms:GrantIsForAWSResource": "true"}},
                },
            ],
        },
        sort_keys=True,
    )
