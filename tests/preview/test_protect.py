"""What holds data or keys is protected from accidental deletion: the EKS cluster, FSx file systems, S3 buckets and
KMS keys railyard creates carry Pulumi's `protect` (RegisterResourceRequest.protect, as the engine receives it), so
`pulumi destroy` or a replacing change stops at them. Nothing else is protected, and `cloud.protect_stateful: false`
turns it off for throwaway environments.
"""

from __future__ import annotations

import pytest

from railyard.mocked import run_preview
from tests.policies.previews import EXAMPLES, example
from tests.preview.conftest import AT, ROOT
from tests.yaml_text import edited_copy

STATEFUL = {"aws:eks/cluster:Cluster", "aws:fsx/lustreFileSystem:LustreFileSystem", "aws:s3/bucket:Bucket", "aws:kms/key:Key"}
SOUND = sorted(path.stem for path in EXAMPLES.glob("*.yaml") if path.stem != "insecure")


@pytest.mark.parametrize("name", SOUND)
def test_exactly_the_stateful_resources_are_protected(name):
    resources = example(name).resources
    protected = {resource.type for resource in resources if resource.protect}
    assert protected <= STATEFUL
    for resource in resources:
        assert resource.protect == (resource.type in STATEFUL), resource.urn
    assert "aws:eks/cluster:Cluster" in protected and "aws:kms/key:Key" in protected


def test_every_kind_of_stateful_resource_appears_protected_somewhere():
    protected = {resource.type for name in SOUND for resource in example(name).resources if resource.protect}
    assert protected == STATEFUL


def test_a_throwaway_environment_turns_protection_off(tmp_path):
    path = edited_copy(EXAMPLES / "dev-g6e.yaml", tmp_path, ("  vpc_cidr: 10.20.0.0/16\n", "  vpc_cidr: 10.20.0.0/16\n  protect_stateful: false\n"))
    result = run_preview(str(path), project_dir=ROOT, at=AT)
    assert result.ok and not [resource.urn for resource in result.resources if resource.protect]
