"""Where pools land: a deterministic placement of every pool's hosts into racks.

Pools are placed in blueprint order, each into the free slots its failure
domains still have (`placement.domains`: zones expand to their blocks, in the
order listed). Within a rack, hosts take the lowest free slots, so a rack's
contents read as runs of (pool, hosts) in slot order. The `spread` setting
decides how a pool's hosts are dealt:

* ``packed``: racks are filled in order, each before the next (best locality);
* ``racks``: hosts are dealt round-robin across every rack, skipping full ones;
* ``blocks`` / ``zones``: hosts are dealt round-robin across the blocks (zones),
  and inside each block (zone) fill its racks in order.

A block that states no racks (`racks` left out, or a zone without blocks) is
one slot pool that holds any number of hosts; `spread` deals to it as to a
single rack, and nothing is reported per rack for it.

A pool whose scale-up domain spans several hosts (an NVL72 rack, a Trn2
UltraServer) is dealt in whole domains: a block takes whole domains and fills
its racks in order, so racks that hold whole domains (an NVL72 rack: 18) never
split one; `spread: racks` puts each domain in one rack.

A pool is placed at its largest size (`Pool.max_nodes`), the size the fabric,
power and blast-radius checks must hold. Hosts that find no free slot are
reported as a ``topology.placement`` finding; the rest are still placed, so the
other checks run on what fits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field

from blueprints.catalog import Catalog
from blueprints.findings import Finding, Path, error
from blueprints.models import Blueprint
from blueprints.models.domains import Block, Zone
from blueprints.models.pools import Pool
from blueprints.records import record
from blueprints.rules.context import Context

__all__ = ["BlockSite", "Placement", "place_pools", "round_robin", "fill_in_order"]


@record(frozen=False)
class BlockSite:
    """One block of the site: its racks' free slots and, per rack, the (pool index, hosts) runs in slot order."""

    zone_index: int
    block_index: int
    zone: Zone
    block: Block
    free: list[int]
    racks: list[list[tuple[int, int]]]
    free_total: int = 0
    first_free: int = 0  # no rack before this one has a free slot (slots are only ever taken)

    def take(self, rack_index: int, pool_index: int, hosts: int) -> None:
        """Put `hosts` of a pool into the lowest free slots of a rack."""
        self.free[rack_index] -= hosts
        self.free_total -= hosts
        self.racks[rack_index].append((pool_index, hosts))
        while self.first_free < len(self.free) and not self.free[self.first_free]:
            self.first_free += 1

    def open_racks(self) -> Iterator[tuple[int, int]]:
        """(rack index, free slots) of every rack with a free slot, in order."""
        for index in range(self.first_free, len(self.free)):
            if self.free[index]:
                yield index, self.free[index]

    @property
    def name(self) -> str:
        """The block's name."""
        return self.block.name

    @property
    def racked(self) -> bool:
        """True when the block states its racks; an unracked block is one slot pool with no rack figures."""
        return self.block.racked

    @property
    def path(self) -> Path:
        """The block's path in the blueprint (the zone's, for a zone without blocks)."""
        zone: Path = ("failure_domains", "zones", self.zone_index)
        return zone + ("blocks", self.block_index) if self.zone.blocks else zone


@record(frozen=False)
class Placement:
    """Every block's racks with the pools placed in them, and how many hosts of each pool found a slot."""

    sites: list[BlockSite]
    requested: dict[int, int] = field(default_factory=dict)
    placed: dict[int, int] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    _index: dict[int, list[tuple[BlockSite, int, int]]] | None = field(default=None, repr=False, compare=False)

    def site(self, block_name: str) -> BlockSite | None:
        """The site of the block called `block_name`."""
        return next((site for site in self.sites if site.name == block_name), None)

    def hosts_by(self, pool_index: int, level: str) -> dict[str, int]:
        """Hosts of a pool per zone, block or rack (`level`), keyed by name, in site order; empty units left out.

        Read from an index of every pool's racks, built once on first use (placing is finished by then).
        """
        counts: dict[str, int] = {}
        for site, rack_index, hosts in self._racks_of().get(pool_index, ()):
            if level == "rack" and not site.racked:
                continue  # racks not stated: no rack to count in
            key = {"zone": site.zone.name, "block": site.name}.get(level) or rack_name(site.name, rack_index)
            counts[key] = counts.get(key, 0) + hosts
        return counts

    def _racks_of(self) -> dict[int, list[tuple[BlockSite, int, int]]]:
        """Per pool index, (site, rack index, hosts) of every rack holding its hosts, in site order."""
        if self._index is None:
            index: dict[int, list[tuple[BlockSite, int, int]]] = {}
            for site in self.sites:
                for rack_index, contents in enumerate(site.racks):
                    held: dict[int, int] = {}
                    for pool, count in contents:
                        held[pool] = held.get(pool, 0) + count
                    for pool, hosts in held.items():
                        index.setdefault(pool, []).append((site, rack_index, hosts))
            self._index = index
        return self._index


def rack_name(block_name: str, rack_index: int) -> str:
    """How racks are named in messages and JSON: `b01/rack-0007`."""
    return f"{block_name}/rack-{rack_index:04d}"


def fill_in_order(hosts: int, capacities: list[int]) -> list[int]:
    """Deal `hosts` into units in order, filling each before the next; returns the count per unit."""
    counts = []
    for capacity in capacities:
        take = min(capacity, hosts)
        counts.append(take)
        hosts -= take
    return counts


def round_robin(hosts: int, capacities: list[int]) -> list[int]:
    """Deal `hosts` one at a time to the units in order, skipping full ones; returns the count per unit.

    Computed without dealing: after t full rounds unit u holds min(c_u, t), so
    t is the largest level with sum(min(c_u, t)) <= hosts, and the remaining
    hosts go one each to the first units in order that still have room.
    """
    hosts = min(hosts, sum(capacities))
    low, high = 0, max(capacities, default=0)
    while low < high:  # largest t with dealt(t) <= hosts
        middle = (low + high + 1) // 2
        if sum(min(capacity, middle) for capacity in capacities) <= hosts:
            low = middle
        else:
            high = middle - 1
    counts = [min(capacity, low) for capacity in capacities]
    remaining = hosts - sum(counts)
    for unit, capacity in enumerate(capacities):
        if remaining == 0:
            break
        if capacity > low:
            counts[unit] += 1
            remaining -= 1
    return counts


def _sites(blueprint: Blueprint) -> list[BlockSite]:
    """A site per block; an unracked block is one slot pool (its only "rack") big enough for every pool at its largest."""
    unbounded = sum(pool.max_nodes for pool in blueprint.pools)
    sites: list[BlockSite] = []
    for zone_index, zone in enumerate(blueprint.failure_domains.zones):
        for block_index, block in enumerate(zone.sites):
            free = [unbounded] if block.racks is None or block.hosts_per_rack is None else [block.hosts_per_rack] * block.racks
            sites.append(BlockSite(zone_index, block_index, zone, block, free, [[] for _ in free], sum(free)))
    return sites


def _deal_in_order(hosts: int, sites: list[BlockSite], unit: int = 1) -> list[tuple[BlockSite, int, int]]:
    """`fill_in_order` over the sites' racks, visiting only racks with free slots until the hosts run out.

    A site takes whole units of `unit` hosts (scale-up domains), so no domain crosses a block; inside it the
    racks fill in order, so a domain straddles two racks only where the racks don't hold whole domains.
    """
    dealt: list[tuple[BlockSite, int, int]] = []
    for site in sites:
        here = min(site.free_total // unit, hosts // unit) * unit
        hosts -= here
        for index, free in site.open_racks():
            if here == 0:
                break
            take = min(free, here)
            dealt.append((site, index, take))
            here -= take
        if hosts < unit or hosts == 0:
            break
    return dealt


def _deal_round_robin(hosts: int, sites: list[BlockSite], unit: int = 1) -> list[tuple[BlockSite, int, int]]:
    """`round_robin` over the sites' racks, in whole units of `unit` hosts.

    When at least `hosts / unit` racks have room for a unit, the first round
    already places every host, one unit each in the first of those racks, so
    only those are visited; otherwise every rack is dealt to.
    """
    units = hosts // unit
    if units <= 0:
        return []
    first_round: list[tuple[BlockSite, int, int]] = []
    for site in sites:
        for index, free in site.open_racks():
            if free >= unit:
                first_round.append((site, index, unit))
                if len(first_round) == units:
                    return first_round
    racks = [(site, index) for site in sites for index in range(len(site.free))]
    counts = round_robin(units, [site.free[index] // unit for site, index in racks])
    return [(site, index, count * unit) for (site, index), count in zip(racks, counts, strict=True) if count]


def _free_units(sites: list[BlockSite], unit: int) -> int:
    """Whole units of `unit` hosts the sites have room for (a unit never crosses a block)."""
    return sum(site.free_total // unit for site in sites)


def _deal(pool: Pool, hosts: int, sites: list[BlockSite], unit: int = 1) -> list[tuple[BlockSite, int, int]]:
    """(site, rack index, hosts) for one pool, following its `spread`, in whole scale-up domains of `unit` hosts."""
    spread = pool.placement.spread
    if spread == "packed":
        return _deal_in_order(hosts, sites, unit)
    if spread == "racks":
        return _deal_round_robin(hosts, sites, unit)
    unit_of: Callable[[BlockSite], str] = (lambda site: site.zone.name) if spread == "zones" else (lambda site: site.name)
    groups: dict[str, list[BlockSite]] = {}
    for site in sites:
        groups.setdefault(unit_of(site), []).append(site)
    shares = round_robin(hosts // unit, [_free_units(group, unit) for group in groups.values()])
    dealt: list[tuple[BlockSite, int, int]] = []
    for group, share in zip(groups.values(), shares, strict=True):
        dealt += _deal_in_order(share * unit, group, unit)
    return dealt


def place_pools(blueprint: Blueprint, catalog: Catalog) -> Placement:
    """Place every pool's hosts (at their largest size) into racks, in blueprint order.

    Pools whose domains name no known zone or block are left out (the
    references rule reports those). Returns the `Placement`, with a
    ``topology.placement`` finding per pool that did not fit.
    """
    ctx = Context(blueprint, catalog)
    sites = _sites(blueprint)
    by_key = {(site.zone.name, site.name): site for site in sites}
    placement = Placement(sites)
    for pool_index, pool in enumerate(blueprint.pools):
        pool_sites = [by_key[(zone.name, block.name)] for zone, block in ctx.pool_blocks(pool)]
        if not pool_sites:
            continue
        wanted = pool.max_nodes
        _, unit = ctx.scale_up_domain(pool)
        # A domain of several hosts (NVL72 rack, UltraServer) sits in one rack; a pool of partial domains is a rule error
        # (pool.scale-up-partial) and is placed host by host.
        dealt = _deal(pool, wanted, pool_sites, unit if wanted % unit == 0 else 1)
        for site, rack_index, count in dealt:
            site.take(rack_index, pool_index, count)
        placed = sum(count for _, _, count in dealt)
        placement.requested[pool_index] = wanted
        placement.placed[pool_index] = placed
        if placed < wanted:
            placement.findings.append(_unplaced(blueprint, pool_index, pool_sites, wanted, placed))
    return placement


def _unplaced(blueprint: Blueprint, pool_index: int, sites: list[BlockSite], wanted: int, placed: int) -> Finding:
    pool = blueprint.pools[pool_index]
    earlier = sorted({blueprint.pools[other].name for site in sites for rack in site.racks for other, _ in rack if other < pool_index})
    taken = f", after pools {earlier} took their slots" if earlier else ""
    return error(
        "topology.placement",
        ("pools", pool_index, "nodes"),
        f"pool '{pool.name}' needs {wanted} hosts, but only {placed} free slots are left in "
        f"{pool.placement.domains}{taken}; {wanted - placed} hosts have no rack",
        "add racks to those domains, place the pool in more domains, or shrink it",
        requested=wanted,
        placed=placed,
        domains=list(pool.placement.domains),
        sharing_with=earlier,
    )
