"""Node groups and their launch templates, joined: what several stack rules ask of nodes.

An EKS managed node group names its instance types either itself
(`instanceTypes`) or through its launch template (`instanceType`); its EFA
interfaces live only in the launch template. These helpers follow the
node group's `launchTemplate` reference (by id, by name, or by property
dependency) so each rule asks one question instead of re-walking the join.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy import PolicyResource

from policies.facts import EFA_LABEL, POOL_LABEL, ROLE_LABEL  # noqa: F401 - the node-label contract, re-exported to rules
from policies.resource_types import LAUNCH_TEMPLATE, NODE_GROUP
from policies.stack import Stack, items, known, value

EFA_INTERFACE_TYPES = ("efa", "efa-only")


def launch_template_of(stack: Stack, node_group: PolicyResource) -> PolicyResource | None:
    """The launch template a node group launches from, or None when it has none (or it can't be found)."""
    if "launchTemplate" not in node_group.props:
        return None
    linked = stack.linked(node_group, "launchTemplate", LAUNCH_TEMPLATE)
    if linked:
        return linked[0]
    name = known(node_group.props, "launchTemplate.name")
    return next((template for template in stack.of_type(LAUNCH_TEMPLATE) if name is not None and known(template.props, "name") == name), None)


def instance_types(stack: Stack, node_group: PolicyResource) -> list[str]:
    """The node group's instance types: its own list, else its launch template's single type."""
    own = [str(name) for name in items(value(node_group.props, "instanceTypes"))]
    if own:
        return own
    template = launch_template_of(stack, node_group)
    single = value(template.props, "instanceType") if template is not None else None
    return [single] if single else []


def efa_interfaces(template_props: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The launch template's `efa` and `efa-only` network interfaces."""
    return [interface for interface in items(value(template_props, "networkInterfaces")) if value(interface, "interfaceType") in EFA_INTERFACE_TYPES]


def is_efa(stack: Stack, node_group: PolicyResource) -> bool:
    """True when the node group's launch template has an EFA interface (or, without one, its EFA label says so)."""
    template = launch_template_of(stack, node_group)
    if template is not None:
        return bool(efa_interfaces(template.props))
    return label(node_group, EFA_LABEL) == "true"


def label(node_group: PolicyResource, key: str) -> str | None:
    """One Kubernetes label the node group puts on its nodes."""
    return value(node_group.props, "labels", {}).get(key)


def node_groups(stack: Stack) -> list[PolicyResource]:
    """Every EKS managed node group in the stack."""
    return stack.of_type(NODE_GROUP)


def templates_with_node_groups(stack: Stack) -> dict[str, tuple[PolicyResource, list[PolicyResource]]]:
    """Launch templates by URN, each with the node groups that launch from it."""
    joined: dict[str, tuple[PolicyResource, list[PolicyResource]]] = {template.urn: (template, []) for template in stack.of_type(LAUNCH_TEMPLATE)}
    for group in node_groups(stack):
        template = launch_template_of(stack, group)
        if template is not None:
            joined[template.urn][1].append(group)
    return joined


def card_ranges(cards: list[int]) -> str:
    """`[0, 1, 2, 5]` -> `0-2, 5`."""
    runs: list[list[int]] = []
    for card in sorted(cards):
        if runs and card == runs[-1][-1] + 1:
            runs[-1].append(card)
        else:
            runs.append([card])
    return ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)
