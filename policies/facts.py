"""What the pack knows of railyard: the node labels it sets and the instance types it can launch.

The pack runs from its own folder, in its own virtualenv, so it can't import
railyard's catalog or label contract. Both travel with it in
`data/railyard_facts.json`, generated from that one source of truth by
`python -m railyard.pack_facts` (a test fails when the file is stale). This
module reads the file once and gives the rules small, frozen views of it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

FACTS_FILE = Path(__file__).resolve().parent / "data" / "railyard_facts.json"


@dataclass(frozen=True)
class AcceleratorFacts:
    """An instance type's accelerators: how many, and which model."""

    count: int
    model: str


@dataclass(frozen=True)
class CardFacts:
    """One network card: its index, whether it carries EFA, and how many interfaces it takes."""

    index: int
    supports_efa: bool
    max_interfaces: int


@dataclass(frozen=True)
class InstanceFacts:
    """What the rules need of one instance type (from AWS's DescribeInstanceTypes, through railyard's catalog)."""

    name: str
    ami_type: str
    accelerator: AcceleratorFacts | None
    efa_supported: bool
    max_efa_interfaces: int
    network_cards: tuple[CardFacts, ...]
    # The cards railyard's layout puts an EFA on (every EFA card, or the ones AWS's guide names: 1, 5, 9, 13 on p6e-gb200).
    efa_layout_cards: tuple[int, ...] = ()

    @property
    def accelerator_count(self) -> int:
        """Accelerators per instance (0 without any)."""
        return self.accelerator.count if self.accelerator else 0


@functools.cache
def _document() -> dict:
    return json.loads(FACTS_FILE.read_text(encoding="utf-8"))


@functools.cache
def instance_types() -> Mapping[str, InstanceFacts]:
    """Every instance type railyard's catalog holds, by name (read once per process)."""
    found = {}
    for name, entry in _document()["instance_types"].items():
        accelerator = entry["accelerator"]
        found[name] = InstanceFacts(
            name=name,
            ami_type=entry["ami_type"],
            accelerator=AcceleratorFacts(**accelerator) if accelerator else None,
            efa_supported=entry["efa_supported"],
            max_efa_interfaces=entry["max_efa_interfaces"],
            network_cards=tuple(CardFacts(**card) for card in entry["network_cards"]),
            efa_layout_cards=tuple(entry["efa_layout_cards"]),
        )
    return MappingProxyType(found)


def hourly_price(region: str, instance_type: str, capacity_type: str) -> float | None:
    """USD per instance-hour for a node group's type and capacity type in `region` (None: railyard has no price).

    A Capacity Block is priced at its block rate; On-Demand and spot at the On-Demand rate (spot never bills
    above it, so a ceiling held at it holds for spot too).
    """
    prices = _document()["prices"]
    table = prices["capacity_block"] if capacity_type == "CAPACITY_BLOCK" else prices["on_demand"]
    return table.get(region, {}).get(instance_type)


def label(role: str) -> str:
    """The node-label key railyard sets for `role` (`pool`, `role`, `efa`)."""
    return _document()["labels"][role]


POOL_LABEL = label("pool")
ROLE_LABEL = label("role")
EFA_LABEL = label("efa")
