"""COR003: a launch template's EFA interfaces match the instance type's network cards.

The layout rules are EC2's (aws-facts.md 2.1): the primary interface sits
on card 0, device 0 and is not `efa-only`; (card, device) pairs are unique;
cards exist; an EFA goes only on a card whose `InterfaceTypes` include EFA,
one per card, and no more than `MaximumEfaInterfaces`. And the node should
get every EFA device it has: each EFA card (card 0 only when it has a
second slot beside the primary) carries one, up to the maximum, so no rail
goes unused; where AWS's guide names the cards instead (p6e-gb200: 1, 5, 9
and 13, one per GPU), those. The card facts come from railyard's catalog, i.e. AWS's own
DescribeInstanceTypes data. The instance type is the template's own, else
that of the node groups launching from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from policies.facts import InstanceFacts
from policies.facts import instance_types as catalog_facts
from policies.nodes import EFA_INTERFACE_TYPES, efa_interfaces, templates_with_node_groups
from policies.rule import StackRule
from policies.stack import Stack, items, number, value


def expected_efa_cards(spec: InstanceFacts) -> list[int]:
    """The cards a full EFA layout of `spec` puts an EFA on, in order (railyard's catalog computes them)."""
    return list(spec.efa_layout_cards)


def layout_problems(interfaces: list[Mapping[str, Any]], spec: InstanceFacts) -> list[str]:
    """Everything wrong with `interfaces` as the layout of one `spec` node."""
    slots = [
        (int(number(value(i, "networkCardIndex")) or 0), int(number(value(i, "deviceIndex")) or 0), value(i, "interfaceType") or "interface")
        for i in interfaces
    ]
    efa = [(card, device) for card, device, kind in slots if kind in EFA_INTERFACE_TYPES]
    if efa and not spec.efa_supported:
        return [f"{spec.name} does not support EFA, but {len(efa)} interface(s) are EFA"]
    found = []
    primary = [kind for card, device, kind in slots if (card, device) == (0, 0)]
    if len(primary) != 1 or primary[0] == "efa-only":
        found.append("the primary interface (card 0, device 0) is missing or efa-only")
    pairs = [(card, device) for card, device, _ in slots]
    if len(set(pairs)) != len(pairs):
        found.append(f"(card, device) pairs repeat: {sorted(pair for pair in set(pairs) if pairs.count(pair) > 1)}")
    capable = {card.index for card in spec.network_cards if card.supports_efa}
    cards = [card for card, _ in efa]
    if any(card not in capable for card in cards):
        found.append(f"EFA on card(s) {sorted(set(cards) - capable)}, which carry no EFA on {spec.name} (EFA cards: {sorted(capable)})")
    if len(set(cards)) != len(cards):
        found.append(f"more than one EFA on card(s) {sorted({card for card in cards if cards.count(card) > 1})}")
    if len(cards) > spec.max_efa_interfaces:
        found.append(f"{len(cards)} EFA interfaces; {spec.name} allows {spec.max_efa_interfaces}")
    layout = set(expected_efa_cards(spec))
    missing = sorted(layout - set(cards))
    if missing:
        outside = sorted(set(cards) - layout)
        found.append(
            f"no EFA on card(s) {missing}: nodes would use {len(layout & set(cards))} of {len(layout)} EFA devices"
            + (f" of the layout (card(s) {outside} are outside it)" if outside else "")
        )
    return found


def check(stack: Stack, settings) -> Iterable[tuple[Any, str]]:
    """Each launch template with EFA interfaces, checked against each instance type it launches."""
    catalog = catalog_facts()
    for template, groups in templates_with_node_groups(stack).values():
        if not efa_interfaces(template.props):
            continue
        own = value(template.props, "instanceType")
        names = [own] if own else sorted({name for group in groups for name in items(value(group.props, "instanceTypes"))})
        if not names:
            yield template, "has EFA interfaces but neither it nor a node group names the instance type"
        for name in names:
            spec = catalog.get(name)
            if spec is None:
                yield template, f"instance type {name} is not in railyard's catalog, so its EFA cards are unknown"
                continue
            for problem in layout_problems(items(value(template.props, "networkInterfaces")), spec):
                yield template, f"{name}: {problem}"


RULE = StackRule(
    id="COR003",
    name="efa-interfaces-match-catalog",
    title="Launch-template EFA interfaces match the instance type's network cards",
    domain="correctness",
    severity="high",
    check=check,
    fix="lay out one interface on card 0/device 0, then one efa-only interface on each card of the type's EFA layout "
    "(device 1 on card 0, device 0 elsewhere), as `railyard catalog --json` lists them under efa_layout_cards",
)
