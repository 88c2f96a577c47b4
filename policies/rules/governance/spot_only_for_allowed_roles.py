"""GOV002: spot capacity only for the pool roles the pack allows.

A spot interruption kills a node with two minutes' notice: tolerable for a
dev box, costly for a multi-day training job that must restart from its
last checkpoint with every other node idle meanwhile. A node group's role is
its `railyard.dev/role` label; `spotAllowedRoles` (default: dev) lists the
roles that may use `capacityType: SPOT`.
"""

from policies.config import SPOT_ALLOWED_ROLES
from policies.nodes import ROLE_LABEL
from policies.resource_types import NODE_GROUP
from policies.rule import SchemaRule


def node_group_schema(settings):
    """A spot node group must carry an allowed role label."""
    return {
        "labels": {
            "type": "dict",
            "required": True,
            "schema": {ROLE_LABEL: {"required": True, "allowed": list(settings[SPOT_ALLOWED_ROLES.key])}},
        },
    }


RULE = SchemaRule(
    id="GOV002",
    name="spot-only-for-allowed-roles",
    title="Spot capacity is used only by the roles the pack allows",
    domain="governance",
    severity="medium",
    knobs=(SPOT_ALLOWED_ROLES,),
    schemas={NODE_GROUP: node_group_schema},
    applies_when={NODE_GROUP: {"capacityType": {"required": True, "allowed": ["SPOT"]}}},
    not_applicable_reason="the node group does not run on spot capacity",
    fix="use on-demand capacity, a reservation or a Capacity Block for this pool, or add its role to spotAllowedRoles in the policy config",
)
