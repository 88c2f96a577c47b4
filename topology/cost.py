"""What a design costs: dollars per hour and per month beside its accelerators, every figure with its price's source.

`cost_report(blueprint, node_groups, control_plane_tier, prices, today)` prices what the plan makes:

* **pools**, by where their instances come from: On-Demand at the table's rate less the declared
  `cost.on_demand_discount`; a capacity reservation at that rate for every reserved instance, used or
  not; spot at On-Demand less the declared `cost.spot_discount`; a Capacity Block at its
  instance-hour rate while it runs, and its whole window paid upfront;
* **nodes' root volumes** (gp3), the **system node group**, **FSx for Lustre** file systems railyard
  makes, one **NAT gateway** per zone, and the **EKS control plane** (extended support once the
  version's standard support has ended, plus a provisioned tier).

A price the tables lack is never zero: its line says what is unknown and how to declare it, totals
count only what is known, and `cost.price-unknown` names each gap. Usage (data processed, transfer,
requests), support plans and taxes are left out (docs/cost.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from blueprints.catalog.pins import load_pins
from blueprints.catalog.prices import Price, PriceTable
from blueprints.findings import Finding, info
from blueprints.models import Blueprint
from blueprints.models.pools import Pool
from blueprints.models.storage import FsxLustre
from blueprints.records import record
from topology.cluster.node_groups import NodeGroupPlan

CODES = ("cost.price-unknown",)
KINDS = ("on_demand", "capacity_reservation", "spot", "capacity_block", "system", "storage", "network", "control_plane")
_GP3 = "ebs_gp3_storage"


@record
class CostLine:
    """One priced thing: USD per hour as planned (desired nodes) and at its largest, what it is paid upfront, and why.

    `hourly_usd` is None when a price is unknown (`unknown` says which and how to declare it).
    """

    key: str
    item: str
    kind: str
    path: tuple[str | int, ...]
    hourly_usd: float | None
    hourly_at_max_usd: float | None
    basis: str
    source: str = ""
    upfront_usd: float | None = None
    unknown: str = ""

    def as_json(self) -> dict[str, Any]:
        """The line for `validate --json`."""
        return {
            "key": self.key,
            "item": self.item,
            "kind": self.kind,
            "path": ".".join(str(part) for part in self.path),
            "hourly_usd": cents(self.hourly_usd),
            "hourly_at_max_usd": cents(self.hourly_at_max_usd),
            "upfront_usd": cents(self.upfront_usd),
            "basis": self.basis,
            "source": self.source,
            "unknown": self.unknown or None,
        }


@record
class CostReport:
    """Every line of a design's cost, with totals over the known lines."""

    region: str
    hours_per_month: int
    lines: tuple[CostLine, ...]

    @property
    def hourly_usd(self) -> float:
        """USD per hour as planned, over the lines whose price is known."""
        return sum(line.hourly_usd or 0.0 for line in self.lines)

    @property
    def hourly_at_max_usd(self) -> float:
        """USD per hour with every pool at its largest, over the known lines."""
        return sum(line.hourly_at_max_usd or 0.0 for line in self.lines)

    @property
    def monthly_usd(self) -> float:
        """USD a month as planned, running all month: the known lines but Capacity Blocks (paid upfront for their window)."""
        return sum(line.hourly_usd or 0.0 for line in self.lines if line.kind != "capacity_block") * self.hours_per_month

    @property
    def upfront_usd(self) -> float:
        """What Capacity Blocks cost upfront, over the known lines."""
        return sum(line.upfront_usd or 0.0 for line in self.lines)

    @property
    def unknown(self) -> tuple[CostLine, ...]:
        """The lines with no price."""
        return tuple(line for line in self.lines if line.unknown)

    def by_kind(self) -> dict[str, float]:
        """Known USD per hour as planned, per kind (in KINDS order, kinds with nothing left out)."""
        present = {line.kind for line in self.lines}
        totals = {kind: 0.0 for kind in KINDS if kind in present}
        for line in self.lines:
            totals[line.kind] += line.hourly_usd or 0.0
        return totals

    def as_json(self) -> dict[str, Any]:
        """The `cost` section of `validate --json`."""
        return {
            "region": self.region,
            "currency": "USD",
            "hours_per_month": self.hours_per_month,
            "hourly_usd": cents(self.hourly_usd),
            "monthly_usd": cents(self.monthly_usd),
            "hourly_at_max_usd": cents(self.hourly_at_max_usd),
            "upfront_usd": cents(self.upfront_usd),
            "by_kind_hourly_usd": {kind: cents(usd) for kind, usd in self.by_kind().items()},
            "unknown": [line.item for line in self.unknown],
            "lines": [line.as_json() for line in self.lines],
        }

    def table(self) -> tuple[str, list[str], list[list[str]]]:
        """The cost as a human table: (title, headers, rows), totals last."""
        rows = [
            [
                line.item,
                line.kind,
                _money(line.hourly_usd),
                _money(line.hourly_at_max_usd),
                _money(line.upfront_usd, blank=True),
                line.unknown or line.basis,
            ]
            for line in self.lines
        ]
        rows.append(
            [
                f"total ({_money(self.monthly_usd)} a month of {self.hours_per_month} h, blocks upfront)",
                "",
                _money(self.hourly_usd),
                _money(self.hourly_at_max_usd),
                _money(self.upfront_usd, blank=True),
                f"{len(self.unknown)} unpriced: not in the totals" if self.unknown else "every line priced",
            ]
        )
        return f"cost, {self.region} (USD)", ["item", "kind", "per hour", "at max", "upfront", "basis"], rows


def cents(usd: float | None) -> float | None:
    """Dollars rounded to the cent for JSON; None (unknown) stays None."""
    return None if usd is None else round(usd, 2)


def _money(usd: float | None, blank: bool = False) -> str:
    if usd is None:
        return "" if blank else "unknown"
    return f"${usd:,.2f}"


def _rate(price: Price, discount: float = 0.0) -> str:
    off = f" less {discount:.0%}" if discount else ""
    usd = f"{price.usd:,.4f}".rstrip("0").rstrip(".")
    return f"${usd}/{price.unit}{off}"


class _Pricer:
    """Looks prices up for one blueprint: its region, its declared prices and discounts."""

    def __init__(self, blueprint: Blueprint, prices: PriceTable) -> None:
        self.region = blueprint.cloud.region
        self.cost = blueprint.cost
        self.prices = prices

    def on_demand(self, instance_type: str) -> Price | None:
        declared = self.cost.instance_hourly_usd.get(instance_type)
        if declared is not None:
            return Price(declared, "instance-hour", "declared in the blueprint (cost.instance_hourly_usd)", "declared", "declared")
        return self.prices.on_demand(self.region, instance_type)

    def on_demand_gap(self, instance_type: str) -> str:
        covered = ", ".join(self.prices.on_demand_regions)
        return (
            f"no On-Demand price for {instance_type} in {self.region} (railyard's table covers {covered}); "
            f"declare cost.instance_hourly_usd.{instance_type}"
        )


def _pool_line(pool: Pool, index: int, groups: Sequence[NodeGroupPlan], pricer: _Pricer) -> CostLine:
    """One pool's instances, priced by where they come from."""
    desired = sum(group.desired_size for group in groups)
    largest = sum(group.max_size for group in groups)
    path: tuple[str | int, ...] = ("pools", index, "capacity")
    key, item = f"pool:{pool.name}", f"pool {pool.name}: {pool.instance_type}"
    capacity = pool.capacity
    discount = pricer.cost.on_demand_discount
    if capacity.kind == "capacity_block":
        return _block_line(pool, key, item, path, pricer)
    price = pricer.on_demand(pool.instance_type)
    if capacity.kind == "spot":
        if price is None or pricer.cost.spot_discount is None:
            why = pricer.on_demand_gap(pool.instance_type) if price is None else "spot prices are the account's: declare cost.spot_discount"
            return CostLine(key, item, "spot", path, None, None, f"{desired}-{largest} spot", unknown=why)
        rate = price.usd * (1 - pricer.cost.spot_discount)
        basis = f"{desired} × {_rate(price, pricer.cost.spot_discount)} (declared spot discount)"
        return CostLine(key, item, "spot", path, desired * rate, largest * rate, basis, price.source)
    kind = "on_demand" if capacity.kind == "on_demand" else "capacity_reservation"
    if price is None:
        return CostLine(key, item, kind, path, None, None, f"{desired}-{largest} nodes", unknown=pricer.on_demand_gap(pool.instance_type))
    rate = price.usd * (1 - discount)
    if kind == "on_demand":
        return CostLine(key, item, kind, path, desired * rate, largest * rate, f"{desired} × {_rate(price, discount)}", price.source)
    reserved = getattr(capacity, "instance_count", None) or largest
    basis = f"{reserved} reserved × {_rate(price, discount)}, billed used or not"
    return CostLine(key, item, kind, path, max(reserved, desired) * rate, max(reserved, largest) * rate, basis, price.source)


def _block_line(pool: Pool, key: str, item: str, path: tuple[str | int, ...], pricer: _Pricer) -> CostLine:
    """A Capacity Block pool: its instance-hour rate while the block runs, and the window paid upfront."""
    capacity = pool.capacity
    count = getattr(capacity, "instance_count", None) or pool.max_nodes
    price = pricer.prices.capacity_block(pricer.region, pool.instance_type)
    if price is None:
        why = f"no Capacity Block price for {pool.instance_type} in {pricer.region} in railyard's table (AWS prices blocks when offered)"
        return CostLine(key, item, "capacity_block", path, None, None, f"{count} in the block", unknown=why)
    hourly = count * price.usd
    start, end = getattr(capacity, "start", None), getattr(capacity, "end", None)
    hours = None if start is None or end is None else (end - start).total_seconds() / 3600
    upfront = None if hours is None else hourly * hours
    window = "window read online" if hours is None else f"{hours:,.0f} h window paid upfront"
    return CostLine(key, item, "capacity_block", path, hourly, hourly, f"{count} × {_rate(price)}; {window}", price.source, upfront)


def _system_line(groups: Sequence[NodeGroupPlan], pricer: _Pricer) -> CostLine | None:
    """The system node groups (one per zone with a zonal layout), On-Demand, as one line."""
    if not groups:
        return None
    types = sorted({group.instance_type for group in groups})
    desired = sum(group.desired_size for group in groups)
    key, item, path = "system-nodes", f"system nodes: {', '.join(types)}", ("kubernetes", "system_nodes")
    found = {name: pricer.on_demand(name) for name in types}
    missing = [name for name, price in found.items() if price is None]
    if missing:
        return CostLine(key, item, "system", path, None, None, f"{desired} nodes", unknown=pricer.on_demand_gap(missing[0]))
    discount = pricer.cost.on_demand_discount
    rate = {name: price.usd * (1 - discount) for name, price in found.items() if price is not None}
    hourly = sum(group.desired_size * rate[group.instance_type] for group in groups)
    at_max = sum(group.max_size * rate[group.instance_type] for group in groups)
    first = found[types[0]]
    assert first is not None
    basis = f"{desired} × {_rate(first, discount)}" if len(types) == 1 else f"{desired} nodes of {len(types)} types"
    return CostLine(key, item, "system", path, hourly, at_max, basis, first.source)


def _root_volume_line(groups: Sequence[NodeGroupPlan], pricer: _Pricer, hours: int) -> CostLine | None:
    """Every node's gp3 root volume (storage only: IOPS and throughput above the baseline are left out)."""
    if not groups:
        return None
    desired = sum(group.desired_size * group.root_volume_gib for group in groups)
    largest = sum(group.max_size * group.root_volume_gib for group in groups)
    price = pricer.prices.service(_GP3, pricer.region)
    key, item, path = "root-volumes", "root volumes (gp3)", ("pools",)
    if price is None:
        return CostLine(key, item, "storage", path, None, None, f"{desired:,} GiB", unknown=f"no gp3 price for {pricer.region} in railyard's table")
    per_hour = price.usd / hours
    return CostLine(key, item, "storage", path, desired * per_hour, largest * per_hour, f"{desired:,} GiB × {_rate(price)}", price.source)


def _lustre_lines(blueprint: Blueprint, pricer: _Pricer, hours: int) -> list[CostLine]:
    """The FSx for Lustre file systems railyard makes (an existing one is billed to whoever made it)."""
    lines = []
    for index, tier in enumerate(blueprint.storage):
        if not isinstance(tier, FsxLustre) or tier.existing is not None:
            continue
        key, item, path = f"storage:{tier.name}", f"storage {tier.name}: FSx for Lustre {tier.deployment_type}", ("storage", index)
        price = pricer.prices.lustre(pricer.region, tier.deployment_type, tier.throughput_mbps_per_tib, tier.storage_type)
        if price is None:
            tier_name = f"{tier.deployment_type} {tier.storage_type}" + (
                f" {tier.throughput_mbps_per_tib} MB/s/TiB" if tier.throughput_mbps_per_tib else ""
            )
            why = f"no FSx for Lustre price for {tier_name} in {pricer.region} in railyard's table"
            lines.append(CostLine(key, item, "storage", path, None, None, f"{tier.capacity_gib:,} GiB", unknown=why))
            continue
        hourly = tier.capacity_gib * price.usd / hours
        lines.append(CostLine(key, item, "storage", path, hourly, hourly, f"{tier.capacity_gib:,} GiB × {_rate(price)}", price.source))
    return lines


def _nat_line(blueprint: Blueprint, pricer: _Pricer) -> CostLine | None:
    """One NAT gateway per zone, unless the VPC exists already (its gateways aren't railyard's)."""
    if blueprint.cloud.existing_vpc is not None:
        return None
    zones = len(blueprint.cloud.availability_zones)
    price = pricer.prices.service("nat_gateway_hour", pricer.region)
    key, item, path = "nat-gateways", f"NAT gateways ({zones}, one per zone)", ("cloud", "availability_zones")
    if price is None:
        return CostLine(
            key, item, "network", path, None, None, f"{zones} gateways", unknown=f"no NAT gateway price for {pricer.region} in railyard's table"
        )
    return CostLine(
        key, item, "network", path, zones * price.usd, zones * price.usd, f"{zones} × {_rate(price)} (data processed left out)", price.source
    )


def _control_plane_line(blueprint: Blueprint, tier: str, pricer: _Pricer, today: date) -> CostLine:
    """The EKS control plane: standard or extended support for the version today, and its provisioned tier."""
    version = blueprint.kubernetes.version
    entry = load_pins().eks_version(version)
    support = "extended" if entry is not None and today > entry.end_of_standard else "standard"
    key, item, path = "control-plane", f"EKS control plane (Kubernetes {version}, {support} support, {tier})", ("kubernetes", "version")
    base = pricer.prices.control_plane(pricer.region, support)
    extra = pricer.prices.provisioned_control_plane(pricer.region, tier)
    if base is None or extra is None:
        return CostLine(key, item, "control_plane", path, None, None, "1 cluster", unknown=f"no EKS price for {support} support and tier {tier}")
    hourly = base.usd + extra.usd
    basis = f"{_rate(base)} {support} support" + (f" + {_rate(extra)} {tier}" if extra.usd else "")
    return CostLine(key, item, "control_plane", path, hourly, hourly, basis, base.source if not extra.usd else f"{base.source}; {extra.source}")


def cost_report(blueprint: Blueprint, node_groups: Sequence[NodeGroupPlan], control_plane_tier: str, prices: PriceTable, today: date) -> CostReport:
    """Price a checked design's plan (its node groups) as of `today` (which decides the control plane's support)."""
    pricer = _Pricer(blueprint, prices)
    hours = prices.hours_per_month
    by_pool: dict[str, list[NodeGroupPlan]] = {}
    for group in node_groups:
        if not group.system:
            by_pool.setdefault(group.pool, []).append(group)
    lines = [_pool_line(pool, index, by_pool.get(pool.name, []), pricer) for index, pool in enumerate(blueprint.pools)]
    system = _system_line([group for group in node_groups if group.system], pricer)
    lines += [system] if system else []
    volumes = _root_volume_line(node_groups, pricer, hours)
    lines += [volumes] if volumes else []
    lines += _lustre_lines(blueprint, pricer, hours)
    nat = _nat_line(blueprint, pricer)
    lines += [nat] if nat else []
    lines.append(_control_plane_line(blueprint, control_plane_tier, pricer, today))
    return CostReport(pricer.region, hours, tuple(lines))


def cost_findings(report: CostReport) -> list[Finding]:
    """`cost.price-unknown` for each line railyard could not price (info: the design is fine, its cost is incomplete)."""
    return [
        info(
            "cost.price-unknown",
            line.path,
            f"{line.item}: {line.unknown}; the cost totals leave it out",
            "declare the price under cost, or read it from AWS",
        )
        for line in report.unknown
    ]
