"""SEC007: EKS envelope-encrypts Kubernetes secrets with a KMS key.

Without `encryptionConfig` secrets sit in etcd protected only by EBS-level
encryption; with it, the API server encrypts each secret with a data key
wrapped by the account's KMS key, so access to the key is access to secrets.
"""

from policies.resource_types import CLUSTER
from policies.rule import SchemaRule

RULE = SchemaRule(
    id="SEC007",
    name="eks-secrets-encrypted",
    title="EKS encrypts Kubernetes secrets with a KMS key",
    domain="security",
    severity="high",
    schemas={
        CLUSTER: {
            "encryptionConfig": {
                "type": "dict",
                "required": True,
                "schema": {
                    "resources": {"type": "list", "required": True, "contains": "secrets"},
                    "provider": {
                        "type": "dict",
                        "required": True,
                        "schema": {"keyArn": {"type": "string", "required": True, "empty": False}},
                    },
                },
            },
        },
    },
    fix="set encryption_config=ClusterEncryptionConfigArgs(resources=['secrets'], "
    "provider=ClusterEncryptionConfigProviderArgs(key_arn=<the cluster's KMS key ARN>))",
)
