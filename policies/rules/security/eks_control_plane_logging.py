"""SEC011: the EKS control plane sends its audit (and other) logs to CloudWatch.

Without `enabledClusterLogTypes` EKS keeps no control-plane logs at all, so
who changed what in the cluster can't be answered after the fact. The CIS
Amazon EKS Benchmark (2.1.1) asks for audit logs; the pack's default also
asks for `api` and `authenticator` (what railyard enables), and Checkov's
CKV_AWS_37 for all five types, which `requiredClusterLogTypes` can ask.
"""

from policies.config import CLUSTER_LOG_TYPES
from policies.resource_types import CLUSTER
from policies.rule import SchemaRule


def cluster_schema(settings):
    """Every required log type is enabled; with none required, the rule asks for nothing (Cerberus refuses an empty
    `contains`: the rule crashed on `requiredClusterLogTypes: []`, which the pack's config schema accepts)."""
    required = list(settings[CLUSTER_LOG_TYPES.key])
    if not required:
        return {}
    return {"enabledClusterLogTypes": {"type": "list", "required": True, "contains": required}}


RULE = SchemaRule(
    id="SEC011",
    name="eks-control-plane-logging",
    title="The EKS control plane logs api, audit and authenticator events (requiredClusterLogTypes)",
    domain="security",
    severity="medium",
    knobs=(CLUSTER_LOG_TYPES,),
    schemas={CLUSTER: cluster_schema},
    fix="set enabled_cluster_log_types on the cluster to include every type in the pack's requiredClusterLogTypes",
)
