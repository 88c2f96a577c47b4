"""What Capacity Blocks cost, however a pool holds them: one way of pricing a block, whoever holds it and how.

A pool holds Capacity Blocks through a `capacity_block` (one block, its window stated or read online) or a
`reservation_group` with `capacity_blocks: true` (several blocks used as one: an UltraServer's, for one).
Either way the block is bought for a window and paid upfront, at one rate per instance-hour: the pool's line
is a `capacity_block` line, priced from `cost.capacity_block_quotes` (keyed by any pool on the block) or the
indicative Capacity Block table, with the window's upfront, or the upfront named unknown where no window is
stated (a group states none: its blocks' windows are EC2's).

A block is paid once however many pools share it: a hot spare on its served pool's block (`standby_for`,
same reservation) gets a line of its own that says it is on that block and priced on the served pool's
line, at nothing more, so no block is counted twice and none is dropped from the report.
"""

from __future__ import annotations

from collections.abc import Sequence

from blueprints.models import Blueprint
from blueprints.models.capacity import CapacityBlock, holds_capacity_blocks
from blueprints.models.pools import Pool
from topology.cost_prices import Gap, Pricer, rate
from topology.cost_report import CostLine

KIND = "capacity_block"
Path = tuple[str | int, ...]


def block_identity(pool: Pool) -> tuple[str, str] | None:
    """(capacity kind, reservation id or group) of the Capacity Blocks a pool holds; None for capacity that is not blocks."""
    capacity = pool.capacity
    if not holds_capacity_blocks(capacity):
        return None
    return (capacity.kind, getattr(capacity, "reservation_id", ""))


def block_holders(blueprint: Blueprint) -> dict[tuple[str, str], list[Pool]]:
    """Each block (or group of blocks) the blueprint uses and the pools on it, the pool that pays for it first: the first
    pool that runs jobs (a spare stands in for another pool, so the served pool pays), else the first that holds it."""
    holders: dict[tuple[str, str], list[Pool]] = {}
    for pool in blueprint.pools:
        identity = block_identity(pool)
        if identity is not None:
            holders.setdefault(identity, []).append(pool)
    return {identity: sorted(pools, key=lambda pool: pool.standby_for is not None) for identity, pools in holders.items()}


def _what(pool: Pool) -> str:
    """How a line names the capacity: `Capacity Block cr-…` or `reservation group of Capacity Blocks cr-…+cr-…`."""
    capacity = pool.capacity
    noun = "Capacity Block" if isinstance(capacity, CapacityBlock) else "reservation group of Capacity Blocks"
    return f"{noun} {getattr(capacity, 'reservation_id', '')}"


def _no_window(pool: Pool, field: str) -> Gap:
    """Why a block's upfront is unknown, and the fix, worded for how the pool holds it."""
    if isinstance(pool.capacity, CapacityBlock):
        return Gap(
            "the block states no start/end window, so what it costs for its window is unknown",
            f"set capacity.start and capacity.end (the block's window, as EC2 gives it), or declare {field}.total_usd (the total AWS quoted)",
        )
    return Gap(
        "a reservation group states no window (each of its blocks has its own, which EC2 holds), so what its blocks cost upfront is unknown",
        f"declare {field}.total_usd (the sum AWS quoted for the group's blocks)",
    )


def _total_without_window(pool: Pool, field: str) -> Gap:
    """Why a quoted total has no hourly figure (no window to spread it over), and the fix."""
    if isinstance(pool.capacity, CapacityBlock):
        return Gap(
            "the block states no start/end window, so the quoted total's hourly rate is unknown",
            "set capacity.start and capacity.end (the block's window, as EC2 gives it)",
        )
    return Gap(
        "a reservation group states no window, so the quoted total's hourly rate is unknown",
        f"declare {field}.usd_per_instance_hour (the rate AWS quoted) instead, which prices the hour; the upfront is then unknown",
    )


def _container(pool: Pool) -> str:
    """`block` for one Capacity Block (as its lines always read), the group named for a reservation group of blocks."""
    return "block" if isinstance(pool.capacity, CapacityBlock) else _what(pool)


def _held(pool: Pool, count: int) -> str:
    """How the basis counts the instances: `64` for a block (as it always read), `16 in the reservation group … ` for a group."""
    return str(count) if isinstance(pool.capacity, CapacityBlock) else f"{count} in the {_what(pool)}"


def shared_block_line(pool: Pool, path: Path, payer: Pool) -> CostLine:
    """A pool on a block another pool pays for (a spare on its served pool's block): nothing more per hour or upfront."""
    key, item = f"pool:{pool.name}", f"pool {pool.name}: {pool.instance_type}"
    basis = f"on {_what(pool)} with pool {payer.name}, priced once on pool {payer.name}'s line"
    return CostLine(key, item, KIND, path, 0.0, 0.0, basis, upfront_usd=0.0, shared_with=payer.name)


def block_line(holders: Sequence[Pool], path: Path, pricer: Pricer) -> CostLine:
    """The block (or group of blocks) `holders[0]` pays for: its rate while it runs, its window paid upfront; a missing window is
    an unknown upfront, a missing rate an unknown line, each with the `cost:` field that gives it."""
    pool = holders[0]
    capacity = pool.capacity
    key, item = f"pool:{pool.name}", f"pool {pool.name}: {pool.instance_type}"
    count = getattr(capacity, "instance_count", None) or sum(holder.max_nodes for holder in holders)
    start, end = getattr(capacity, "start", None), getattr(capacity, "end", None)
    hours = None if start is None or end is None else (end - start).total_seconds() / 3600
    quoted_as, quote = pricer.block_quote([holder.name for holder in holders])
    field = f"cost.capacity_block_quotes.{quoted_as}"
    no_window = _no_window(pool, field)
    if quote is not None and quote.total_usd is not None:
        source = f"declared in the blueprint ({field}.total_usd)"
        if hours is None:
            basis = f"{count} in the {_container(pool)}, ${quote.total_usd:,.2f} quoted for the whole window"
            gap = _total_without_window(pool, field)
            return CostLine(key, item, KIND, path, None, None, basis, source, quote.total_usd, unknown=gap.why, hint=gap.hint)
        hourly = quote.total_usd / hours
        basis = f"${quote.total_usd:,.2f} quoted for the {hours:,.0f} h window, paid upfront"
        return CostLine(key, item, KIND, path, hourly, hourly, basis, source, quote.total_usd)
    price = pricer.capacity_block_rate(quoted_as, pool.instance_type)
    if price is None:
        gap = Gap(
            f"no Capacity Block rate published for it: {pricer.prices.capacity_block_page()} gives no per-instance rate "
            f"for {pool.instance_type} in {pricer.region} (AWS prices a block when it offers it)",
            f"declare what AWS quoted: {field}.usd_per_instance_hour or {field}.total_usd",
        )
        counted = f"{count} in the {_container(pool)}"
        return CostLine(key, item, KIND, path, None, None, counted, unknown=gap.why, hint=gap.hint)
    hourly = count * price.usd
    indicative = "" if price.confidence == "declared" else f" (indicative: the rate of {price.date}; AWS prices a block when it offers it)"
    if hours is None:
        basis = f"{_held(pool, count)} × {rate(price)}{indicative}"
        return CostLine(key, item, KIND, path, hourly, hourly, basis, price.source, None, upfront_unknown=no_window.why, hint=no_window.hint)
    basis = f"{_held(pool, count)} × {rate(price)}{indicative}; {hours:,.0f} h window paid upfront"
    return CostLine(key, item, KIND, path, hourly, hourly, basis, price.source, hourly * hours)
