"""What a design costs: dollars per hour and per month beside its accelerators, every figure with its price's source.

`cost_report(blueprint, node_groups, control_plane_tier, prices, today)` prices what the plan makes:

* **pools**, by where their instances come from: On-Demand at the table's rate less the declared
  `cost.on_demand_discount`; a capacity reservation at that rate for every reserved instance, used or
  not; spot at On-Demand less the declared `cost.spot_discount`; a Capacity Block at its
  instance-hour rate while it runs, and its whole window paid upfront;
* **nodes' root volumes** (gp3), the **system node group**, **FSx for Lustre** file systems railyard
  makes, one **NAT gateway** per zone, and the **EKS control plane** (extended support once the
  version's standard support has ended, plus a provisioned tier).

A price the tables lack is never zero: its line says what is unknown and which `cost:` field would
give it, totals count only what is known and say what each leaves out and why (`left_out()`), and
`cost.price-unknown` names each gap. Usage (data processed, transfer, requests), support plans and
taxes are left out (docs/cost.md). Where each price comes from is `topology.cost_prices`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from blueprints.catalog.pins import load_pins
from blueprints.catalog.prices import PriceTable
from blueprints.findings import Finding, info
from blueprints.models import Blueprint
from blueprints.models.pools import Pool
from blueprints.models.storage import FsxLustre
from topology.cluster.node_groups import NodeGroupPlan
from topology.cost_blocks import block_holders, block_identity, block_line, shared_block_line
from topology.cost_prices import Gap, Pricer, rate
from topology.cost_report import CostLine, CostReport

CODES = ("cost.price-unknown", "cost.declared-unused")  # the second from declared_findings (topology.cost_prices)
# The fix `railyard explain` gives for an unpriced line, whose hint each line words for the price it lacks.
EXPLAIN = {
    "cost.price-unknown": {
        "fix": "declare the price under the `cost:` field the finding's hint names (instance_usd_per_hour, capacity_block_quotes, "
        "fsx_lustre, ebs_gp3_usd_per_gb_month, nat_gateway_usd_per_hour), or leave the line out of the totals knowingly",
    },
}


def _unpriced(key: str, item: str, kind: str, path: tuple[str | int, ...], basis: str, gap: Gap) -> CostLine:
    """A line whose hourly price is unknown, with why and the fix."""
    return CostLine(key, item, kind, path, None, None, basis, unknown=gap.why, hint=gap.hint)


def _pool_line(pool: Pool, index: int, groups: Sequence[NodeGroupPlan], pricer: Pricer, blocks: dict[tuple[str, str], list[Pool]]) -> CostLine:
    """One pool's instances, priced by where they come from (Capacity Blocks by `topology.cost_blocks`, however held)."""
    desired = sum(group.desired_size for group in groups)
    largest = sum(group.max_size for group in groups)
    path: tuple[str | int, ...] = ("pools", index, "capacity")
    key, item = f"pool:{pool.name}", f"pool {pool.name}: {pool.instance_type}"
    capacity = pool.capacity
    discount = pricer.cost.on_demand_discount
    identity = block_identity(pool)
    if identity is not None:
        holders = blocks[identity]
        return block_line(holders, path, pricer) if holders[0] is pool else shared_block_line(pool, path, holders[0])
    price = pricer.on_demand(pool.instance_type)
    if capacity.kind == "spot":
        if price is None or pricer.cost.spot_discount is None:
            gap = pricer.on_demand_gap(pool.instance_type) if price is None else Gap("spot prices are the account's", "declare cost.spot_discount")
            return _unpriced(key, item, "spot", path, f"{desired}-{largest} spot", gap)
        spot = price.usd * (1 - pricer.cost.spot_discount)
        basis = f"{desired} × {rate(price, pricer.cost.spot_discount)} (declared spot discount)"
        return CostLine(key, item, "spot", path, desired * spot, largest * spot, basis, price.source)
    kind = "on_demand" if capacity.kind == "on_demand" else "capacity_reservation"
    if price is None:
        return _unpriced(key, item, kind, path, f"{desired}-{largest} nodes", pricer.on_demand_gap(pool.instance_type))
    hourly = price.usd * (1 - discount)
    if kind == "on_demand":
        return CostLine(key, item, kind, path, desired * hourly, largest * hourly, f"{desired} × {rate(price, discount)}", price.source)
    reserved = getattr(capacity, "instance_count", None) or largest
    basis = f"{reserved} reserved × {rate(price, discount)}, billed used or not"
    return CostLine(key, item, kind, path, max(reserved, desired) * hourly, max(reserved, largest) * hourly, basis, price.source)


def _system_line(groups: Sequence[NodeGroupPlan], pricer: Pricer) -> CostLine | None:
    """The system node groups (one per zone with a zonal layout), On-Demand, as one line."""
    if not groups:
        return None
    types = sorted({group.instance_type for group in groups})
    desired = sum(group.desired_size for group in groups)
    key, item, path = "system-nodes", f"system nodes: {', '.join(types)}", ("kubernetes", "system_nodes")
    found = {name: pricer.on_demand(name) for name in types}
    missing = [name for name, price in found.items() if price is None]
    if missing:
        return _unpriced(key, item, "system", path, f"{desired} nodes", pricer.on_demand_gap(missing[0]))
    discount = pricer.cost.on_demand_discount
    hourly_of = {name: price.usd * (1 - discount) for name, price in found.items() if price is not None}
    hourly = sum(group.desired_size * hourly_of[group.instance_type] for group in groups)
    at_max = sum(group.max_size * hourly_of[group.instance_type] for group in groups)
    first = found[types[0]]
    assert first is not None
    basis = f"{desired} × {rate(first, discount)}" if len(types) == 1 else f"{desired} nodes of {len(types)} types"
    return CostLine(key, item, "system", path, hourly, at_max, basis, first.source)


def _root_volume_line(groups: Sequence[NodeGroupPlan], pricer: Pricer, hours: int) -> CostLine | None:
    """Every node's gp3 root volume (storage only: IOPS and throughput above the baseline are left out)."""
    if not groups:
        return None
    desired = sum(group.desired_size * group.root_volume_gib for group in groups)
    largest = sum(group.max_size * group.root_volume_gib for group in groups)
    price = pricer.gp3()
    key, item, path = "root-volumes", "root volumes (gp3)", ("pools",)
    if price is None:
        return _unpriced(key, item, "storage", path, f"{desired:,} GiB", pricer.gp3_gap())
    per_hour = price.usd / hours
    return CostLine(key, item, "storage", path, desired * per_hour, largest * per_hour, f"{desired:,} GiB × {rate(price)}", price.source)


def _lustre_lines(blueprint: Blueprint, pricer: Pricer, hours: int) -> list[CostLine]:
    """The FSx for Lustre file systems railyard makes (an existing one is billed to whoever made it)."""
    lines = []
    for index, tier in enumerate(blueprint.storage):
        if not isinstance(tier, FsxLustre) or tier.existing is not None:
            continue
        key, item, path = f"storage:{tier.name}", f"storage {tier.name}: FSx for Lustre {tier.deployment_type}", ("storage", index)
        wanted = (tier.deployment_type, tier.storage_type, tier.throughput_mbps_per_tib)
        price = pricer.lustre(*wanted)
        if price is None:
            lines.append(_unpriced(key, item, "storage", path, f"{tier.capacity_gib:,} GiB", pricer.lustre_gap(*wanted)))
            continue
        hourly = tier.capacity_gib * price.usd / hours
        lines.append(CostLine(key, item, "storage", path, hourly, hourly, f"{tier.capacity_gib:,} GiB × {rate(price)}", price.source))
    return lines


def _nat_line(blueprint: Blueprint, pricer: Pricer) -> CostLine | None:
    """One NAT gateway per zone with its public IPv4 address, unless the VPC exists already (its gateways aren't railyard's)."""
    if blueprint.cloud.existing_vpc is not None:
        return None
    zones = len(blueprint.cloud.availability_zones)
    price = pricer.nat_gateway()
    key, item, path = "nat-gateways", f"NAT gateways ({zones}, one per zone)", ("cloud", "availability_zones")
    if price is None:
        return _unpriced(key, item, "network", path, f"{zones} gateways", pricer.nat_gap())
    address = pricer.prices.service("public_ipv4_address_hour", pricer.region)
    if address is None:
        return _unpriced(key, item, "network", path, f"{zones} gateways", pricer.ipv4_gap())
    # Each gateway holds one Elastic IP (components/network.py), billed per public IPv4 address-hour since 2024-02-01.
    hourly = zones * (price.usd + address.usd)
    basis = f"{zones} × {rate(price)} + {zones} public IPv4 × {rate(address)} (data processed left out)"
    return CostLine(key, item, "network", path, hourly, hourly, basis, f"{price.source}; {address.source}")


def _control_plane_line(blueprint: Blueprint, tier: str, pricer: Pricer, today: date) -> CostLine:
    """The EKS control plane: standard or extended support for the version today, and its provisioned tier."""
    version = blueprint.kubernetes.version
    entry = load_pins().eks_version(version)
    support = "extended" if entry is not None and today > entry.end_of_standard else "standard"
    # The date that decided it, so a figure that differs on another day (validate --at) says why.
    until = "" if entry is None else f" (until {entry.end_of_standard})"
    until = f" (standard support ended {entry.end_of_standard})" if entry is not None and support == "extended" else until
    key, item, path = "control-plane", f"EKS control plane (Kubernetes {version}, {support} support, {tier})", ("kubernetes", "version")
    base = pricer.prices.control_plane(pricer.region, support)
    extra = pricer.prices.provisioned_control_plane(pricer.region, tier)
    if base is None or extra is None:
        gap = Gap(f"no EKS price for {support} support and tier {tier}", "add the price to blueprints/catalog/service_prices.yaml (docs/cost.md)")
        return _unpriced(key, item, "control_plane", path, "1 cluster", gap)
    hourly = base.usd + extra.usd
    basis = f"{rate(base)} {support} support{until}" + (f" + {rate(extra)} {tier}" if extra.usd else "")
    return CostLine(key, item, "control_plane", path, hourly, hourly, basis, base.source if not extra.usd else f"{base.source}; {extra.source}")


def cost_report(blueprint: Blueprint, node_groups: Sequence[NodeGroupPlan], control_plane_tier: str, prices: PriceTable, today: date) -> CostReport:
    """Price a checked design's plan (its node groups) as of `today` (which decides the control plane's support; `validate --at`
    sets it, so the same blueprint and day give the same figures)."""
    pricer = Pricer(blueprint, prices)
    hours = prices.hours_per_month
    by_pool: dict[str, list[NodeGroupPlan]] = {}
    for group in node_groups:
        if not group.system:
            by_pool.setdefault(group.pool, []).append(group)
    blocks = block_holders(blueprint)
    lines = [_pool_line(pool, index, by_pool.get(pool.name, []), pricer, blocks) for index, pool in enumerate(blueprint.pools)]
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
    """`cost.price-unknown` for each line with a figure railyard could not price (info: the design is fine, its cost is incomplete)."""
    findings = []
    for line in report.unpriced:
        what = line.unknown or line.upfront_unknown
        total = "the cost totals leave it out" if line.unknown else "the upfront total leaves it out"
        findings.append(info("cost.price-unknown", line.path, f"{line.item}: {what}; {total}", line.hint))
    return findings
