"""SEC004: no security group admits traffic from the whole internet (0.0.0.0/0 or ::/0).

Node and storage security groups guard kubelets, EFA endpoints and Lustre
servers; none of them is meant to be reached from outside the VPC. railyard
emits no internet-facing load balancer, so the rule covers every security
group in the stack and all three ways pulumi-aws spells an ingress rule:
inline `ingress` blocks, `aws.vpc.SecurityGroupIngressRule` and
`aws.ec2.SecurityGroupRule` of type `ingress`.
"""

from policies.resource_types import INGRESS_RULE, SECURITY_GROUP, SECURITY_GROUP_RULE
from policies.rule import SchemaRule

ANY_IPV4 = "0.0.0.0/0"
ANY_IPV6 = "::/0"
CIDR_LISTS = {
    "cidrBlocks": {"forbidden": [ANY_IPV4]},
    "ipv6CidrBlocks": {"forbidden": [ANY_IPV6]},
}

RULE = SchemaRule(
    id="SEC004",
    name="no-ingress-from-anywhere",
    title="Security groups admit no ingress from 0.0.0.0/0 or ::/0",
    domain="security",
    severity="critical",
    schemas={
        SECURITY_GROUP: {"ingress": {"type": "list", "schema": {"type": "dict", "schema": CIDR_LISTS}}},
        INGRESS_RULE: {"cidrIpv4": {"forbidden": [ANY_IPV4]}, "cidrIpv6": {"forbidden": [ANY_IPV6]}},
        SECURITY_GROUP_RULE: CIDR_LISTS,
    },
    applies_when={SECURITY_GROUP_RULE: {"type": {"allowed": ["ingress"]}}},
    not_applicable_reason="an egress rule admits no inbound traffic",
    fix="allow ingress only from the VPC CIDR, a prefix list or another security group",
)
