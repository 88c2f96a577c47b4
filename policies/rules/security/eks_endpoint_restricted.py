"""SEC006: the EKS API endpoint is private, or public only to the allowed CIDRs.

EKS makes the endpoint public and open to 0.0.0.0/0 unless told otherwise
(`endpointPublicAccess` defaults to true, `publicAccessCidrs` to
["0.0.0.0/0"]), so a cluster that does not say `endpointPublicAccess: false`
must list its public CIDRs, and each must be on the pack's allow-list
(`eksPublicAccessCidrs`, empty by default: public endpoints are refused).
Membership is exact: list the CIDRs as the cluster states them. A public
endpoint must also keep private access on, so nodes and in-VPC runners reach
the API server without leaving the VPC (CIS Amazon EKS 5.4.2; AWS's EKS
best-practices guide, "Consider Public and Private Mode").
"""

from policies.config import EKS_PUBLIC_CIDRS
from policies.resource_types import CLUSTER
from policies.rule import SchemaRule


def cluster_schema(settings):
    """The public CIDRs must be stated and allow-listed."""
    return {
        "vpcConfig": {
            "type": "dict",
            "required": True,
            "schema": {
                "endpointPrivateAccess": {"required": True, "allowed": [True]},
                "publicAccessCidrs": {
                    "type": "list",
                    "required": True,
                    "minlength": 1,
                    "allowed": list(settings[EKS_PUBLIC_CIDRS.key]),
                },
            },
        },
    }


RULE = SchemaRule(
    id="SEC006",
    name="eks-endpoint-restricted",
    title="The EKS API endpoint is private or open only to allow-listed CIDRs",
    domain="security",
    severity="critical",
    knobs=(EKS_PUBLIC_CIDRS,),
    schemas={CLUSTER: cluster_schema},
    # Absent means public (the EKS default); only an explicit false makes the rule moot.
    applies_when={CLUSTER: {"vpcConfig": {"type": "dict", "schema": {"endpointPublicAccess": {"forbidden": [False]}}}}},
    not_applicable_reason="the API endpoint is private (vpcConfig.endpointPublicAccess is false)",
    fix="set vpc_config endpoint_public_access=False and endpoint_private_access=True, or keep private access on and "
    "list only CIDRs from the pack's eksPublicAccessCidrs in public_access_cidrs",
)
