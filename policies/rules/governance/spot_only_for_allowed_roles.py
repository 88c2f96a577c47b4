"""GOV002: spot capacity only for the pool roles the pack allows.

A spot interruption kills a node with two minutes' notice: tolerable for a
dev box, costly for a multi-day training job that must restart from its
last checkpoint with every other node idle meanwhile. A node group's role is
its `railyard.dev/role` label; `spotAllowedRoles` (default: dev) lists the
roles that may use `capacityType: SPOT`. A Karpenter NodePool is held to the
same rule: its template's role label, when its requirements let it launch
spot (`karpenter.sh/capacity-type` In a list holding `spot`).
"""

from policies.config import SPOT_ALLOWED_ROLES
from policies.nodes import ROLE_LABEL
from policies.resource_types import KARPENTER_NODE_POOL, NODE_GROUP
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


def node_pool_schema(settings):
    """A Karpenter NodePool that may launch spot must carry an allowed role label on its nodes."""
    labels = {
        "labels": {"type": "dict", "required": True, "schema": {ROLE_LABEL: {"required": True, "allowed": list(settings[SPOT_ALLOWED_ROLES.key])}}}
    }
    template = {"metadata": {"type": "dict", "required": True, "schema": labels}}
    return {"spec": {"type": "dict", "required": True, "schema": {"template": {"type": "dict", "required": True, "schema": template}}}}


# Spot is allowed by a requirement on the capacity-type label whose values hold `spot` (karpenter.sh_nodepools.yaml).
SPOT_REQUIREMENT = {
    "key": {"required": True, "allowed": ["karpenter.sh/capacity-type"]},
    "values": {"type": "list", "required": True, "contains": "spot"},
}
MAY_LAUNCH_SPOT = {
    "spec": {
        "type": "dict",
        "required": True,
        "schema": {
            "template": {
                "type": "dict",
                "required": True,
                "schema": {"spec": {"type": "dict", "required": True, "schema": {"requirements": {"type": "list", "any_item": SPOT_REQUIREMENT}}}},
            }
        },
    }
}

RULE = SchemaRule(
    id="GOV002",
    name="spot-only-for-allowed-roles",
    title="Spot capacity is used only by the roles the pack allows",
    domain="governance",
    severity="medium",
    knobs=(SPOT_ALLOWED_ROLES,),
    schemas={NODE_GROUP: node_group_schema, KARPENTER_NODE_POOL: node_pool_schema},
    applies_when={NODE_GROUP: {"capacityType": {"required": True, "allowed": ["SPOT"]}}, KARPENTER_NODE_POOL: MAY_LAUNCH_SPOT},
    not_applicable_reason="the node group or NodePool does not run on spot capacity",
    fix="use on-demand capacity, a reservation or a Capacity Block for this pool, or add its role to spotAllowedRoles in the policy config",
)
