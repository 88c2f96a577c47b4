"""COR001: every EFA interface has a security group that lets all traffic to and from itself.

"To enable OS-bypass functionality, the EFA must be a member of a security
group that allows all inbound and outbound traffic to and from the security
group itself" (EC2 user guide, create-efa; aws-facts.md 2.2). Both
directions are needed: a default 0.0.0.0/0 egress does not count as egress
*to the group*. pulumi-aws can state a self rule three ways, all accepted:
an inline `ingress`/`egress` block with `self: true`, an
`aws.vpc.SecurityGroupIngressRule`/`EgressRule` whose referenced group is
its own group, or an `aws.ec2.SecurityGroupRule` with `self` or a source
group equal to its own group - each with protocol -1 (all traffic).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pulumi_policy import PolicyResource

from policies.nodes import card_ranges, efa_interfaces
from policies.resource_types import EGRESS_RULE, INGRESS_RULE, LAUNCH_TEMPLATE, SECURITY_GROUP, SECURITY_GROUP_RULE
from policies.rule import StackRule
from policies.stack import Stack, items, number, value

ALL_TRAFFIC = ("-1", "all")


def _inline_directions(group: PolicyResource) -> set[str]:
    """Directions in which the group's inline `ingress`/`egress` blocks let it talk to itself."""
    found = set()
    for direction in ("ingress", "egress"):
        for block in items(value(group.props, direction)):
            if value(block, "self") is True and str(value(block, "protocol")) in ALL_TRAFFIC:
                found.add(direction)
    return found


def _rule_directions(stack: Stack, group: PolicyResource) -> set[str]:
    """Directions in which standalone rule resources let `group` talk to itself."""
    found = set()
    for kind, direction in ((INGRESS_RULE, "ingress"), (EGRESS_RULE, "egress")):
        for rule in stack.of_type(kind):
            owner = stack.linked(rule, "securityGroupId", SECURITY_GROUP)
            peer = stack.linked(rule, "referencedSecurityGroupId", SECURITY_GROUP)
            if owner == [group] and peer == [group] and str(value(rule.props, "ipProtocol")) in ALL_TRAFFIC:
                found.add(direction)
    for rule in stack.of_type(SECURITY_GROUP_RULE):
        owner = stack.linked(rule, "securityGroupId", SECURITY_GROUP)
        peer = stack.linked(rule, "sourceSecurityGroupId", SECURITY_GROUP)
        to_itself = value(rule.props, "self") is True or peer == [group]
        if owner == [group] and to_itself and str(value(rule.props, "protocol")) in ALL_TRAFFIC:
            found.add(value(rule.props, "type"))
    return found


def self_directions(stack: Stack, group: PolicyResource) -> set[str]:
    """{'ingress', 'egress'} or a subset: the directions in which all traffic flows between `group`'s members."""
    return _inline_directions(group) | _rule_directions(stack, group)


def _interface_problem(stack: Stack, template, interface, verdicts: dict) -> str | None:
    """Why one EFA interface lacks a self-referencing group, or None when it has one."""
    groups = stack.linked(template, "networkInterfaces", SECURITY_GROUP, within=interface, key="securityGroups")
    if not groups:
        return "no security group from this stack"
    for group in groups:
        if group.urn not in verdicts:
            verdicts[group.urn] = self_directions(stack, group)
    if any(verdicts[group.urn] == {"ingress", "egress"} for group in groups):
        return None
    found = set().union(*(verdicts[group.urn] for group in groups))
    missing = " and ".join(sorted({"ingress", "egress"} - found)) or "both in one group"
    names = ", ".join(group.name for group in groups)
    return f"security group(s) {names}, none of which allows all traffic from and to itself (missing: {missing})"


def check(stack: Stack, settings) -> Iterable[tuple[Any, str]]:
    """Each launch template's EFA interfaces, grouped by what is wrong with their security groups."""
    verdicts: dict[str, set[str]] = {}
    for template in stack.of_type(LAUNCH_TEMPLATE):
        cards_by_problem: dict[str, list[int]] = {}
        for interface in efa_interfaces(template.props):
            problem = _interface_problem(stack, template, interface, verdicts)
            if problem is not None:
                card = int(number(value(interface, "networkCardIndex")) or 0)
                cards_by_problem.setdefault(problem, []).append(card)
        for problem, cards in cards_by_problem.items():
            yield template, f"the EFA interfaces on card(s) {card_ranges(cards)} have {problem}"


RULE = StackRule(
    id="COR001",
    name="efa-security-group-self-reference",
    title="EFA interfaces carry a security group that allows all traffic to and from itself",
    domain="correctness",
    severity="high",
    check=check,
    fix="give the EFA security group an ingress and an egress rule with protocol -1 and itself as the "
    "peer (self=True), and attach it to every EFA interface",
)
