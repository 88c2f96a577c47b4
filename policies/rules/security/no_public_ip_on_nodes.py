"""SEC005: accelerator nodes get no public IP address.

Accelerator nodes reach AWS through the VPC's NAT and endpoints; a public
address makes every port the security group lets through reachable from the
internet, and EC2 also refuses `associatePublicIpAddress` on a launch with
more than one network interface, which every EFA node has (aws-facts.md 2.1,
rule 7). pulumi-aws types the flag as a string ("true"); a bool is caught too.
"""

from policies.resource_types import LAUNCH_TEMPLATE
from policies.rule import SchemaRule

RULE = SchemaRule(
    id="SEC005",
    name="no-public-ip-on-nodes",
    title="Launch templates give nodes no public IP address",
    domain="security",
    severity="high",
    schemas={
        LAUNCH_TEMPLATE: {
            "networkInterfaces": {
                "type": "list",
                "schema": {
                    "type": "dict",
                    "schema": {"associatePublicIpAddress": {"forbidden": ["true", True]}},
                },
            },
        },
    },
    fix="leave associate_public_ip_address unset on every network interface and place nodes in private subnets",
)
