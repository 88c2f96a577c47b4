"""Custom AMIs the pools name, as the account sees them.

A launch template naming an AMI the account can't use fails at the first
launch, after the node group has been created and has waited for nodes that
never join. DescribeImages answers for every image at once: each must exist
for this account in this region (owned, shared or public), be `available`,
and be built for the architecture of the pool's instance type (an x86_64
image can't boot a Graviton node).
"""

from __future__ import annotations

from typing import Any

from blueprints.catalog import Catalog
from blueprints.findings import Finding, Path, error
from blueprints.models import Blueprint
from railyard.online.account import Account, AccountError
from railyard.online.findings import account_finding

CODES = ("online.ami-missing", "online.ami-unusable")
MISSING = ("InvalidAMIID.NotFound", "InvalidAMIID.Malformed", "InvalidAMIID.Unavailable")
# EC2 DescribeInstanceTypes names the architectures the catalog records; DescribeImages names an image's.
ARCHITECTURES = {"x86_64": "x86_64", "arm64": "arm64"}


def check_images(blueprint: Blueprint, catalog: Catalog, account: Account) -> list[Finding]:
    """A finding per pool whose custom AMI doesn't exist here, isn't available, or is for another architecture."""
    named = [(index, pool) for index, pool in enumerate(blueprint.pools) if pool.ami_id is not None]
    if not named:
        return []
    wanted = sorted({pool.ami_id for _, pool in named if pool.ami_id})
    found: dict[str, dict[str, Any]] = {}
    for image_id in wanted:  # one call each: a missing id fails the whole call
        try:
            answer = account.call("ec2", "DescribeImages", ImageIds=[image_id])
        except AccountError as exc:
            if exc.code not in MISSING:
                return [account_finding(exc, ("pools",), "the custom AMIs were not checked")]
            continue
        found.update({image["ImageId"]: image for image in answer.get("Images", [])})
    findings = []
    for index, pool in named:
        path: Path = ("pools", index, "ami_id")
        image = found.get(pool.ami_id or "")
        if image is None:
            findings.append(
                error(
                    "online.ami-missing",
                    path,
                    f"pool '{pool.name}': AMI {pool.ami_id} does not exist in {account.region} for this account (nor is it shared with it)",
                    "check the id and the region (AMIs are regional: copy it with aws ec2 copy-image), or share it with this account",
                    ami=pool.ami_id,
                )
            )
            continue
        spec = catalog.get(pool.instance_type)
        state, architecture = image.get("State", "unknown"), image.get("Architecture")
        problems = []
        if state != "available":
            problems.append(f"it is {state}, not available")
        if spec is not None and architecture is not None and ARCHITECTURES.get(spec.architecture) != architecture:
            problems.append(f"it is built for {architecture}, but {pool.instance_type} is {spec.architecture}")
        if problems:
            findings.append(
                error(
                    "online.ami-unusable",
                    path,
                    f"pool '{pool.name}': AMI {pool.ami_id} ({image.get('Name', 'unnamed')}): {'; '.join(problems)}",
                    f"build the image for {spec.architecture if spec else 'the instance type'} and wait for it to become available",
                    ami=pool.ami_id,
                    state=state,
                    architecture=architecture,
                )
            )
    return findings
