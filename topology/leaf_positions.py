"""Leaf positions, filled: a fabric's hosts in physical order, dealt onto leaves until their ports run out, and grouped into pods.

`topology.layout.plan_fabric` sizes a fabric from these; the rules are in its docstring (Positions, Tiers). Each
function takes `ports`: pool index -> the ports one of its hosts uses on its fullest leaf (`PoolShape.ports_per_leaf`),
for the pools that meet the fabric.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import field

from blueprints.records import record
from topology.placement import Placement

Run = tuple[str, int, int, int]
"""(block, rack, pool index, hosts): a stretch of one pool's hosts in one rack."""


@record(frozen=False)
class RawPosition:
    """A leaf position while it fills: its block, used ports per leaf, [pool index, hosts] in order, and its rack (ToR)."""

    block: str
    ports: int = 0
    hosts: list[list[int]] = field(default_factory=list)
    rack: int | None = None


def runs(placement: Placement, ports: Mapping[int, int]) -> Iterator[Run]:
    """(block, rack, pool index, hosts) of the fabric's hosts in physical order."""
    for site in placement.sites:
        for rack, contents in enumerate(site.racks):
            for pool_index, count in contents:
                if pool_index in ports:
                    yield site.name, rack, pool_index, count


def fill_positions(runs: Iterable[Run], ports: Mapping[int, int], capacity: int, single: bool) -> list[RawPosition]:
    """Fill leaf positions of `capacity` ports in order."""
    positions: list[RawPosition] = []
    for block, _, pool_index, count in runs:
        cost = ports[pool_index]
        while count:
            current = positions[-1] if positions else None
            if current is None or (not single and current.block != block):
                current = RawPosition(block)
                positions.append(current)
            room = count if single else (capacity - current.ports) // cost  # one tier: every host on the one leaf per rail
            if room <= 0 and current.ports > 0:
                positions.append(RawPosition(block))
                continue
            take = min(max(room, 1), count)  # a host bigger than a leaf sits alone and overflows it
            if current.hosts and current.hosts[-1][0] == pool_index:
                current.hosts[-1][1] += take
            else:
                current.hosts.append([pool_index, take])
            current.ports += take * cost
            count -= take
    return positions


def tor_positions(runs: Iterable[Run], ports: Mapping[int, int]) -> list[RawPosition]:
    """One position per rack holding fabric hosts (a ToR per rack)."""
    positions: dict[tuple[str, int], RawPosition] = {}
    for block, rack, pool_index, count in runs:
        current = positions.setdefault((block, rack), RawPosition(block, rack=rack))
        current.ports += count * ports[pool_index]
        current.hosts.append([pool_index, count])
    return list(positions.values())


def pods(raw: list[RawPosition], per_pod: int, zone_of: dict[str, str], blocks_per_pod: int | None = None) -> list[int]:
    """Pod index of each position: whole blocks (leaf groups) while they fit a pod's room, a bigger block split `per_pod` at a time.

    A block that fits in what is left of the current pod (same zone, and fewer than `blocks_per_pod` blocks in it
    when the design fixes its pods) joins it, so a pod of 15 one-position segments is one pod; a block that doesn't
    starts a new pod, and one bigger than a pod fills several.
    """
    sizes = Counter(position.block for position in raw)
    pods: list[int] = []
    pod, in_pod, blocks, block, zone = -1, per_pod, 0, None, None
    for position in raw:
        if position.block != block:
            joins = zone_of.get(position.block) == zone and in_pod + sizes[position.block] <= per_pod
            if not joins or (blocks_per_pod is not None and blocks >= blocks_per_pod):
                pod, in_pod, blocks = pod + 1, 0, 0
            block, zone, blocks = position.block, zone_of.get(position.block), blocks + 1
        elif in_pod == per_pod:
            pod, in_pod, blocks = pod + 1, 0, 1  # the rest of a block bigger than a pod
        pods.append(pod)
        in_pod += 1
    return pods
