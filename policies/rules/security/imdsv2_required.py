"""SEC001: launch templates require IMDSv2 session tokens, within a bounded hop limit.

With IMDSv1 a single server-side request forgery in any pod reads the node
role's credentials from 169.254.169.254. IMDSv2 (`httpTokens: required`)
needs a PUT first, which such bugs can't make. The response hop limit
decides who can reach the service: 1 only the node's own network namespace
(Checkov's CKV_AWS_341, AWS's EKS best-practices guide when pods use IRSA or
Pod Identity), 2 also pods (the EKS user guide's setting for pods that need
it, and railyard's). `maxMetadataHopLimit` (default 2) sets the bound.
"""

from policies.config import MAX_METADATA_HOP_LIMIT
from policies.resource_types import LAUNCH_TEMPLATE
from policies.rule import SchemaRule


def template_schema(settings):
    """IMDSv2 required, and a hop limit (if set) no larger than the pack allows."""
    return {
        "metadataOptions": {
            "type": "dict",
            "required": True,
            "schema": {
                "httpTokens": {"required": True, "allowed": ["required"]},
                "httpPutResponseHopLimit": {"type": "number", "max": settings[MAX_METADATA_HOP_LIMIT.key]},
            },
        },
    }


RULE = SchemaRule(
    id="SEC001",
    name="imdsv2-required",
    title="Launch templates require IMDSv2 (metadataOptions.httpTokens = required) within maxMetadataHopLimit hops",
    domain="security",
    severity="high",
    knobs=(MAX_METADATA_HOP_LIMIT,),
    schemas={LAUNCH_TEMPLATE: template_schema},
    fix="set metadata_options=LaunchTemplateMetadataOptionsArgs(http_tokens='required', http_put_response_hop_limit=2) on the launch template",
)
