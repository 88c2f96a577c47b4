"""The node-volume key's policy names Auto Scaling's service-linked role, which must exist before the key.

KMS refuses a key policy naming a principal that does not exist
(MalformedPolicyDocumentException), and Auto Scaling creates its role only
with an account's first Auto Scaling group. The program looks the role up:
in a fresh account it creates the role and the key waits for it; in an
account that has it, nothing is created, so no run fights an existing role.
"""

from __future__ import annotations

import json

from components.cluster import AUTOSCALING_ROLE
from railyard.mocked import run_preview
from tests.preview.conftest import ROOT, preview_of

EXAMPLE = str(ROOT / "blueprints" / "examples" / "dev-g6e.yaml")
SERVICE_LINKED_ROLE = "aws:iam/serviceLinkedRole:ServiceLinkedRole"
KEY = "aws:kms/key:Key"


def _volume_key(result):
    return next(resource for resource in result.of_type(KEY) if resource.name.endswith("-eks-volumes"))


def test_fresh_account_gets_the_role_before_the_key():
    result = preview_of("dev-g6e")  # the session's preview: a fresh account, no roles
    roles = result.of_type(SERVICE_LINKED_ROLE)
    assert [role.inputs["awsServiceName"] for role in roles] == ["autoscaling.amazonaws.com"]
    assert roles[0].urn in _volume_key(result).dependencies


def test_account_with_the_role_creates_none_and_the_key_waits_for_nothing_extra():
    result = run_preview(EXAMPLE, project_dir=ROOT, account_roles=(AUTOSCALING_ROLE, "SomeOtherRole"))
    assert result.of_type(SERVICE_LINKED_ROLE) == []
    assert not any("autoscaling-role" in urn for urn in _volume_key(result).dependencies)


def test_the_key_policy_names_the_role_either_way():
    for roles in ((), (AUTOSCALING_ROLE,)):
        policy = json.loads(_volume_key(run_preview(EXAMPLE, project_dir=ROOT, account_roles=roles)).inputs["policy"])
        principals = {statement["Principal"]["AWS"] for statement in policy["Statement"]}
        assert f"arn:aws:iam::123456789012:role/aws-service-role/autoscaling.amazonaws.com/{AUTOSCALING_ROLE}" in principals


def test_a_role_that_only_looks_alike_does_not_count():
    result = run_preview(EXAMPLE, project_dir=ROOT, account_roles=(f"{AUTOSCALING_ROLE}_custom",))
    assert len(result.of_type(SERVICE_LINKED_ROLE)) == 1
