"""SEC020: every VPC's default security group allows no traffic.

AWS gives each VPC a default security group that lets its members talk to
each other and reach anywhere; anything launched without a group lands in it.
Checkov's CKV2_AWS_12 (and the CIS AWS Foundations Benchmark) ask for it to be
emptied. railyard takes it over with an `aws.ec2.DefaultSecurityGroup` that
has no rules; the rule checks that each VPC has one, and that it states no
ingress and no egress.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from policies.resource_types import DEFAULT_SECURITY_GROUP, VPC
from policies.rule import StackRule
from policies.stack import Stack, items, value


def check(stack: Stack, settings) -> Iterable[tuple[Any, str]]:
    """VPCs whose default group is not managed, and managed default groups that still allow traffic."""
    managed = set()
    for group in stack.of_type(DEFAULT_SECURITY_GROUP):
        managed |= {vpc.urn for vpc in stack.linked(group, "vpcId", VPC)}
        for direction in ("ingress", "egress"):
            rules = items(value(group.props, direction))
            if rules:
                yield group, f"{direction} has {len(rules)} rule(s); the default group must allow nothing"
    for vpc in stack.of_type(VPC):
        if vpc.urn not in managed:
            yield vpc, "has no aws.ec2.DefaultSecurityGroup emptying its default security group"


RULE = StackRule(
    id="SEC020",
    name="vpc-default-security-group-closed",
    title="Every VPC's default security group allows no traffic",
    domain="security",
    severity="medium",
    check=check,
    fix="add aws.ec2.DefaultSecurityGroup(vpc_id=<the VPC's id>) with no ingress and no egress (railyard's Network does)",
)
