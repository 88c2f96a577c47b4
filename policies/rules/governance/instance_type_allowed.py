"""GOV001: node groups and launch templates use only allow-listed instance types.

The allow-list (`allowedInstanceTypes`) is where an organisation says which
accelerators it buys: current generations by default (see
`policies.config.DEFAULT_INSTANCE_TYPES`), plus the general-purpose type of
railyard's system node group. Both places an instance type can be named are
checked: a node group's `instanceTypes` and a launch template's `instanceType`.
"""

from policies.config import ALLOWED_INSTANCE_TYPES
from policies.resource_types import LAUNCH_TEMPLATE, NODE_GROUP
from policies.rule import SchemaRule


def _allowed(settings):
    return {"allowed": list(settings[ALLOWED_INSTANCE_TYPES.key])}


RULE = SchemaRule(
    id="GOV001",
    name="instance-type-allowed",
    title="Instance types come from the pack's allow-list",
    domain="governance",
    severity="medium",
    knobs=(ALLOWED_INSTANCE_TYPES,),
    schemas={
        NODE_GROUP: lambda settings: {"instanceTypes": {"type": "list", **_allowed(settings)}},
        LAUNCH_TEMPLATE: lambda settings: {"instanceType": {"type": "string", **_allowed(settings)}},
    },
    fix="pick an allow-listed instance type, or add this one to allowedInstanceTypes in the policy config",
)
