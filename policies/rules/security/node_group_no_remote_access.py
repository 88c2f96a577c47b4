"""SEC013: managed node groups open no SSH access.

A node group's `remoteAccess` puts an EC2 key pair on every node and, without
source security groups, opens port 22 to the internet; either gives shell on
accelerator nodes outside Kubernetes' audit trail. AWS's EKS best-practices
guide (infrastructure security) says to use SSM Session Manager instead, and
Checkov's CKV_AWS_100 refuses it.
"""

from policies.resource_types import NODE_GROUP
from policies.rule import SchemaRule

RULE = SchemaRule(
    id="SEC013",
    name="node-group-no-remote-access",
    title="Managed node groups set no remoteAccess (no SSH key, no port 22)",
    domain="security",
    severity="high",
    schemas={NODE_GROUP: {"remoteAccess": {"absent": True}}},
    fix="remove remote_access from the node group; reach nodes with SSM Session Manager",
)
