"""SEC001: launch templates require IMDSv2 session tokens.

With IMDSv1 a single server-side request forgery in any pod reads the node
role's credentials from 169.254.169.254. IMDSv2 (`httpTokens: required`)
needs a PUT first, which such bugs can't make; a hop limit of 2 keeps the
metadata service reachable from pods that legitimately need it.
"""

from policies.resource_types import LAUNCH_TEMPLATE
from policies.rule import SchemaRule

RULE = SchemaRule(
    id="SEC001",
    name="imdsv2-required",
    title="Launch templates require IMDSv2 (metadataOptions.httpTokens = required)",
    domain="security",
    severity="high",
    schemas={
        LAUNCH_TEMPLATE: {
            "metadataOptions": {
                "type": "dict",
                "required": True,
                "schema": {"httpTokens": {"required": True, "allowed": ["required"]}},
            },
        },
    },
    fix="set metadata_options=LaunchTemplateMetadataOptionsArgs(http_tokens='required', "
        "http_put_response_hop_limit=2) on the launch template",
)
