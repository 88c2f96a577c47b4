"""The network interfaces of a launch template, generated from the catalog's network cards.

AWS's current guidance for EFA instances (EC2 user guide, "Maximize network
bandwidth on accelerated instance types"; aws-facts.md 2.1):

* the primary interface is a plain `interface` on network card 0, device 0
  (an `efa-only` interface can't be primary);
* where card 0 supports EFA, an `efa-only` interface goes on card 0, device 1;
* every other EFA-capable card gets one `efa-only` interface on device 0.

At most one EFA per card, and no more EFAs than the instance allows. An
instance whose card 0 can't carry EFA (p6-b300) simply gets its EFAs on the
other cards. Where the guide names the cards for a type instead, those are the
ones: p6e-gb200's GPUs each send over a pair of cards at up to 400 Gbps, and
AWS's layout for its full 1,600 Gbps puts one EFA on cards 1, 5, 9 and 13
("EFA configuration for P6e-GB200 instances"). The catalog holds the list
(`InstanceType.efa_layout_cards`, from `accelerator_facts.yaml` `efa_cards`).
`efa-only` interfaces carry no IP address, so they cost no subnet space; only
the primary interface does.
"""

from __future__ import annotations

from typing import Literal

from blueprints.catalog import InstanceType
from blueprints.records import record

InterfaceType = Literal["interface", "efa", "efa-only"]


@record
class InterfaceSpec:
    """One launch-template network interface: where it sits and what kind it is."""

    network_card_index: int
    device_index: int
    interface_type: InterfaceType

    @property
    def is_efa(self) -> bool:
        """True for `efa` and `efa-only` interfaces."""
        return self.interface_type != "interface"


PRIMARY = InterfaceSpec(network_card_index=0, device_index=0, interface_type="interface")


def interface_layout(spec: InstanceType, efa: bool) -> tuple[InterfaceSpec, ...]:
    """The interfaces a node of `spec` launches with: the primary, then its EFAs by card.

    With `efa` false (the pool joins no EFA fabric) the node gets the primary
    interface only. Asking for EFA on an instance type without it raises
    `ValueError`: the blueprint rules report that earlier, so reaching it here
    is a bug in the caller.
    """
    if not efa:
        return (PRIMARY,)
    if not spec.efa_supported:
        raise ValueError(f"{spec.name} does not support EFA; it can't launch EFA interfaces")
    # The primary already sits on device 0 of card 0; an EFA there takes the second slot.
    return (PRIMARY, *(InterfaceSpec(index, 1 if index == 0 else 0, "efa-only") for index in spec.efa_layout_cards))


def efa_count(layout: tuple[InterfaceSpec, ...]) -> int:
    """How many EFA devices a layout gives the node (the `vpc.amazonaws.com/efa` allocatable)."""
    return sum(1 for interface in layout if interface.is_efa)
