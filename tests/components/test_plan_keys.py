"""The node-volume key policy lets the account administer the key and Auto Scaling attach encrypted volumes."""

from __future__ import annotations

import json

from components.plan.keys import KEY_USE, volume_key_policy


def test_policy_grants_autoscaling_use_and_resource_grants_only():
    statements = {s["Sid"]: s for s in json.loads(volume_key_policy("aws", "111122223333"))["Statement"]}
    role = "arn:aws:iam::111122223333:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
    assert statements["AccountAdministers"]["Principal"] == {"AWS": "arn:aws:iam::111122223333:root"}
    assert statements["AutoScalingUsesTheKey"] == {
        "Sid": "AutoScalingUsesTheKey",
        "Effect": "Allow",
        "Principal": {"AWS": role},
        "Action": KEY_USE,
        "Resource": "*",
    }
    grant = statements["AutoScalingAttachesVolumes"]
    assert grant["Action"] == "kms:CreateGrant"
    assert grant["Condition"] == {"Bool": {"kms:GrantIsForAWSResource": "true"}}


def test_policy_follows_the_partition():
    assert "arn:aws-us-gov:iam::1:root" in volume_key_policy("aws-us-gov", "1")
