"""SEC012: EKS authenticates through access entries, not the aws-auth ConfigMap.

With `authenticationMode: CONFIG_MAP` (the default of clusters made before
access entries) who may act in the cluster lives in a ConfigMap that any
cluster admin can edit and a typo can lock everyone out of; with `API` it
lives in EKS access entries, managed through IAM and CloudTrail. The CIS
Amazon EKS Benchmark (5.5.1) and AWS's EKS best-practices guide (identity and
access management) ask for access entries.
"""

from policies.resource_types import CLUSTER
from policies.rule import SchemaRule

RULE = SchemaRule(
    id="SEC012",
    name="eks-access-entries",
    title="EKS authenticates with access entries (accessConfig.authenticationMode = API)",
    domain="security",
    severity="medium",
    schemas={
        CLUSTER: {
            "accessConfig": {
                "type": "dict",
                "required": True,
                "schema": {"authenticationMode": {"required": True, "allowed": ["API"]}},
            },
        },
    },
    fix="set access_config=ClusterAccessConfigArgs(authentication_mode='API') and grant access with aws.eks.AccessEntry",
)
