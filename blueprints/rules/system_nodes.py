"""The system node group's instance type is one railyard has network facts for.

Address planning needs the type's interfaces and addresses per interface, and
the AMI type follows its architecture; both come from `system_types.json`,
generated from DescribeInstanceTypes (`blueprints/catalog/system_types.py`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from blueprints.catalog.system_types import SYSTEM_FAMILIES, load_system_types
from blueprints.findings import Finding, error
from blueprints.rules.context import Context

CODES = ("k8s.system-type-unknown", "k8s.system-max-below-zones")
EXPLAIN = {
    "k8s.system-max-below-zones": {
        "meaning": "with custom networking, the system nodes' max is below the blueprint's availability zones",
        "why": "custom networking gives the system nodes one node group per zone (a node's pod subnet is in its own zone), and "
        "EKS holds every node group's max to at least 1 (botocore's eks model: NodegroupScalingConfig maxSize, min 1): the "
        "groups together could grow past the stated max",
        "fix": "raise kubernetes.system_nodes.max to at least the number of availability zones",
    },
}


def check(ctx: Context) -> Iterable[Finding]:
    """An error when kubernetes.system_nodes names a type outside the system families, or (custom networking: a group
    per zone) has a max below the availability zones."""
    yield from _max_below_zones(ctx)
    name = ctx.blueprint.kubernetes.system_nodes.instance_type
    known = load_system_types()
    if name in known:
        return
    close = difflib.get_close_matches(name, list(known), n=3)
    yield error(
        "k8s.system-type-unknown",
        ("kubernetes", "system_nodes", "instance_type"),
        f"'{name}' is not a system node type railyard knows (families {', '.join(SYSTEM_FAMILIES)})"
        + (f"; did you mean {', '.join(close)}?" if close else ""),
        "use a size of one of those families, such as m7i.xlarge",
    )


def _max_below_zones(ctx: Context) -> Iterable[Finding]:
    """An error when custom networking splits the system nodes into more zone groups than their max: each group's max
    is at least 1."""
    kubernetes = ctx.blueprint.kubernetes
    zones = len(ctx.blueprint.cloud.availability_zones)
    if kubernetes.pod_networking.mode != "custom_networking" or kubernetes.system_nodes.max >= zones:
        return
    yield error(
        "k8s.system-max-below-zones",
        ("kubernetes", "system_nodes", "max"),
        f"system nodes max {kubernetes.system_nodes.max} is below the {zones} availability zones: custom networking gives "
        f"each zone a system node group of its own, whose max EKS holds to at least 1, so together they could grow to {zones} nodes",
        f"set kubernetes.system_nodes.max to at least {zones}",
    )
