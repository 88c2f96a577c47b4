"""What acceptance costs: per gated pool, the wall time a node spends under it and the accelerator-hours and dollars that is.

The time is the level's longest published DCGM duration plus the reads and the burn-in
(`topology.cluster.acceptance.LEVELS`, each figure with its source); the rate is the one the cost
model prices the pool at (`topology.cost_prices.Pricer`: the declared rate, else the table's; a
Capacity Block at its block rate), never a second price lookup. A pool whose rate is unknown gets
its hours and no dollars. r4 on a Capacity Block is a warning: the block's hours are paid whether
the node runs a job or a diagnostic, and r4 takes up to 2.25 h of every node.
"""

from __future__ import annotations

from collections.abc import Sequence

from blueprints.catalog.prices import PriceTable
from blueprints.findings import Finding, info, warning
from blueprints.models import Blueprint
from blueprints.records import record
from topology.cluster.acceptance import LEVELS, AcceptanceGate
from topology.cost_prices import Pricer

CODES = ("acceptance.cost", "acceptance.block-share")


@record
class AcceptanceCost:
    """One gated pool's acceptance: minutes per node, accelerator-hours and USD for the pool at its largest (None: unpriced)."""

    pool: str
    level: str
    minutes_per_node: float
    nodes: int
    accelerator_hours: float
    usd: float | None
    rate_source: str | None


def _instance_rate(blueprint: Blueprint, gate: AcceptanceGate, pricer: Pricer) -> tuple[float | None, str | None]:
    """The pool's USD per instance-hour as the cost model prices it (block rate, spot or On-Demand less the declared discount)."""
    pool = blueprint.pools[gate.pool_index]
    kind = pool.capacity.kind
    if kind == "capacity_block":
        price = pricer.capacity_block_rate(pool.name, pool.instance_type)
        return (price.usd, price.source) if price is not None else (None, None)
    price = pricer.on_demand(pool.instance_type)
    if price is None:
        return None, None
    discount = pricer.cost.spot_discount if kind == "spot" else pricer.cost.on_demand_discount
    if discount is None:
        return None, None
    return price.usd * (1 - discount), price.source


def acceptance_costs(blueprint: Blueprint, gates: Sequence[AcceptanceGate], prices: PriceTable) -> list[AcceptanceCost]:
    """What each gated pool's acceptance costs at its largest size."""
    pricer = Pricer(blueprint, prices)
    costs = []
    for gate in gates:
        usd_per_hour, source = _instance_rate(blueprint, gate, pricer)
        usd = None if usd_per_hour is None else gate.max_nodes * usd_per_hour * gate.minutes / 60
        costs.append(AcceptanceCost(gate.pool, gate.level, gate.minutes, gate.max_nodes, gate.accelerator_hours, usd, source))
    return costs


def _window_hours(blueprint: Blueprint, index: int) -> float | None:
    """A Capacity Block pool's window in hours (None when it states none)."""
    capacity = blueprint.pools[index].capacity
    start, end = getattr(capacity, "start", None), getattr(capacity, "end", None)
    return None if start is None or end is None else (end - start).total_seconds() / 3600


def acceptance_cost_findings(blueprint: Blueprint, gates: Sequence[AcceptanceGate], costs: Sequence[AcceptanceCost]) -> list[Finding]:
    """An info line per gated pool with its time and cost; a warning for r4 on a Capacity Block, with the share of the block it takes."""
    findings = []
    for gate, cost in zip(gates, costs, strict=True):
        path = ("pools", gate.pool_index, "acceptance")
        diagnostic = f"DCGM r{gate.dcgm_level}, " if gate.dcgm_level is not None else ""
        dollars = f", ${cost.usd:,.2f} at the pool's rate" if cost.usd is not None else ", unpriced (no rate for the pool)"
        source = LEVELS[gate.level].source if gate.vendor == "nvidia" else "the reads take seconds; the burn-in as declared"
        findings.append(
            info(
                "acceptance.cost",
                path,
                f"pool '{gate.pool}' acceptance at level {gate.level} ({diagnostic}up to {cost.minutes_per_node:g} min per node): "
                f"{cost.accelerator_hours:,.1f} accelerator-hours for {cost.nodes} nodes{dollars} ({source})",
                "a lower level or a shorter burn-in costs less; the figures are upper bounds from published durations",
                minutes_per_node=cost.minutes_per_node,
                accelerator_hours=round(cost.accelerator_hours, 3),
                usd=None if cost.usd is None else round(cost.usd, 2),
            )
        )
        if gate.dcgm_level == 4 and blueprint.pools[gate.pool_index].capacity.kind == "capacity_block":
            window = _window_hours(blueprint, gate.pool_index)
            share = f", {gate.minutes / 60 / window:.1%} of the block's {window:,.0f} h window" if window else ""
            findings.append(
                warning(
                    "acceptance.block-share",
                    (*path, "level"),
                    f"pool '{gate.pool}' is a Capacity Block and runs DCGM r4 on every node: up to {gate.minutes / 60:.2f} h of each "
                    f"node's paid block hours{share} ({cost.accelerator_hours:,.1f} accelerator-hours)",
                    "use level: standard or long on a block, and keep r4 for nodes under suspicion",
                    share=None if not window else round(gate.minutes / 60 / window, 4),
                )
            )
    return findings
