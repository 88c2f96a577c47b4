"""Secondary VPC blocks for nodes (`cloud.secondary_cidrs`), and the blocks AWS lets a VPC take.

ai-on-eks's base gives its VPC a small primary block (10.1.0.0/21) and puts
the nodes in a secondary 100.64.0.0/16; a node subnet the primary block can't
hold is carved from the next block with room. AssociateVpcCidrBlock refuses
overlapping blocks and blocks from ranges the primary's range excludes
(Amazon VPC User Guide, IPv4 CIDR block association restrictions).
"""

from __future__ import annotations

from ipaddress import IPv4Network

import pytest

from blueprints.rules.vpc_blocks import refused_ranges
from railyard.pipeline import validate
from tests.preview.conftest import ROOT, preview_of
from tests.yaml_text import edited_copy

EXAMPLE = ROOT / "blueprints" / "examples" / "ai-on-eks.yaml"
BLOCKS = ("  vpc_cidr: 10.1.0.0/21\n  secondary_cidrs: [100.64.0.0/16]\n",)


@pytest.fixture(scope="module")
def ai_on_eks():
    result = preview_of("ai-on-eks")
    assert result.ok
    return result


def test_subnets_the_primary_block_can_not_hold_are_carved_from_the_secondary_block(ai_on_eks):
    cidrs = {subnet.name.rsplit("-network-", 1)[1]: IPv4Network(subnet.inputs["cidrBlock"]) for subnet in ai_on_eks.of_type("aws:ec2/subnet:Subnet")}
    primary, secondary = IPv4Network("10.1.0.0/21"), IPv4Network("100.64.0.0/16")
    assert all(cidr.subnet_of(primary) or cidr.subnet_of(secondary) for cidr in cidrs.values())
    # The inference pools' zone subnets outgrow the /21 and go to 100.64.0.0/16; the public /27s stay in the primary.
    assert cidrs["private-us-west-2a"].subnet_of(secondary) and cidrs["private-us-west-2b"].subnet_of(secondary)
    assert cidrs["public-us-west-2a"].subnet_of(primary) and cidrs["public-us-west-2b"].subnet_of(primary)
    assert not any(a.overlaps(b) for a in cidrs.values() for b in cidrs.values() if a is not b)


def test_the_block_is_associated_before_its_subnets_are_made(ai_on_eks):
    [association] = ai_on_eks.of_type("aws:ec2/vpcIpv4CidrBlockAssociation:VpcIpv4CidrBlockAssociation")
    assert association.inputs["cidrBlock"] == "100.64.0.0/16"
    in_block = [s for s in ai_on_eks.of_type("aws:ec2/subnet:Subnet") if IPv4Network(s.inputs["cidrBlock"]).subnet_of(IPv4Network("100.64.0.0/16"))]
    assert in_block and all(association.urn in subnet.dependencies for subnet in in_block)


def test_the_quota_plan_counts_the_secondary_block():
    validation = validate(str(EXAMPLE))
    [need] = [need for need in validation.quotas if need.code == "L-83CA0A9D"]
    assert need.needed == 2


def test_without_the_secondary_block_the_design_does_not_fit_and_says_where_to_add_one(tmp_path):
    path = edited_copy(EXAMPLE, tmp_path, (BLOCKS[0], "  vpc_cidr: 10.1.0.0/21\n"))
    [finding] = [f for f in validate(str(path)).findings if f.code == "compile.plan"]
    assert "10.1.0.0/21" in finding.message and "blocks in cloud.secondary_cidrs" in finding.message


def test_a_secondary_block_too_small_for_a_subnet_is_a_plan_error_at_secondary_cidrs(tmp_path):
    path = edited_copy(EXAMPLE, tmp_path, (BLOCKS[0], "  vpc_cidr: 10.1.0.0/21\n  secondary_cidrs: [100.64.0.0/24]\n"))
    [finding] = [f for f in validate(str(path)).findings if f.code == "compile.plan"]
    assert finding.path_text == "cloud.secondary_cidrs" and "cloud.secondary_cidrs" in finding.hint + finding.message


@pytest.mark.parametrize(
    ("secondary", "code"),
    [
        ("10.1.4.0/24", "network.cidr-overlap"),  # inside the primary block
        ("172.16.0.0/16", "network.cidr-restricted"),  # another RFC 1918 range than the primary's 10.0.0.0/8
        ("198.19.0.0/16", "network.cidr-restricted"),
        ("10.0.0.0/16", "network.cidr-restricted"),  # the primary is in 10.0.0.0/15
    ],
)
def test_a_block_aws_would_refuse_is_an_error_at_its_line(tmp_path, secondary, code):
    path = edited_copy(EXAMPLE, tmp_path, (BLOCKS[0], f"  vpc_cidr: 10.1.0.0/21\n  secondary_cidrs: [{secondary}]\n"))
    found = [f for f in validate(str(path)).findings if f.code.startswith("network.cidr")]
    assert [(f.code, f.path_text) for f in found] == [(code, "cloud.secondary_cidrs[0]")]


def test_the_restriction_table_by_primary_range():
    assert IPv4Network("100.64.0.0/10") not in refused_ranges(IPv4Network("10.1.0.0/21"))
    assert IPv4Network("172.31.0.0/16") in refused_ranges(IPv4Network("172.20.0.0/16"))
    assert set(refused_ranges(IPv4Network("198.19.0.0/16"))) == {IPv4Network(b) for b in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")}
    public = refused_ranges(IPv4Network("100.64.0.0/16"))
    assert IPv4Network("198.19.0.0/16") in public and IPv4Network("10.0.0.0/8") in public
