"""COR004: no placement group on Capacity Block or capacity-reservation launches, but the reservation's own.

AWS places reserved instances itself: a Capacity Block sits inside an EC2
UltraCluster already, and an on-demand capacity reservation holds capacity
in a zone, not in a placement group. Adding a placement group to such a
launch asks EC2 for capacity the reservation may not have there, a known
cause of InsufficientInstanceCapacity failures (aws-facts.md 2.3 and 4.3).
The one exception is a reservation created in a cluster placement group
(CreateCapacityReservation PlacementGroupArn): only instances launched into
that group use it. railyard tags such a template with the group's name
(`railyard:reservation-placement-group`), and the rule leaves it alone.
"""

from policies.resource_types import LAUNCH_TEMPLATE
from policies.rule import SchemaRule

CAPACITY_BLOCK = {
    "instanceMarketOptions": {
        "type": "dict",
        "required": True,
        "schema": {"marketType": {"required": True, "allowed": ["capacity-block"]}},
    },
}
RESERVATION = {
    "capacityReservationSpecification": {
        "type": "dict",
        "required": True,
        "schema": {"capacityReservationTarget": {"type": "dict", "required": True}},
    },
}
# The template's reservation was not made in a placement group (no tag saying it was).
ZONAL = {"tags": {"type": "dict", "schema": {"railyard:reservation-placement-group": {"absent": True}}}}

RULE = SchemaRule(
    id="COR004",
    name="no-placement-group-on-reserved-capacity",
    title="Capacity Block and reservation launches use no placement group",
    domain="correctness",
    severity="high",
    schemas={
        LAUNCH_TEMPLATE: {
            "placement": {"type": "dict", "schema": {"groupName": {"absent": True}, "groupId": {"absent": True}}},
        },
    },
    applies_when={LAUNCH_TEMPLATE: ({**CAPACITY_BLOCK, **ZONAL}, {**RESERVATION, **ZONAL})},
    not_applicable_reason="the launch template targets no Capacity Block or capacity reservation, or its reservation's own placement group",
    fix="drop placement.group_name/group_id from the launch template; AWS places reserved capacity itself",
)
