"""Where each of a blueprint's prices comes from: what it declares under `cost:`, else railyard's tables, else a named gap.

A gap is never zero and never vague: it says why the price is missing, as a fact of the world (AWS doesn't sell the
type On-Demand in the region, per its DescribeInstanceTypeOfferings as moto ships it; the source of the region's rows
has no rate for it; or no source railyard may ship prices it there, as of the day that was last searched for), and the
hint names the `cost:` field that would give it, in that field's unit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from blueprints.catalog.offerings import load_offerings
from blueprints.catalog.prices import Price, PriceTable
from blueprints.findings import Finding, warning
from blueprints.models import Blueprint
from blueprints.models.capacity import holds_capacity_blocks
from blueprints.models.cost import CapacityBlockQuote
from blueprints.models.storage import FsxLustre
from blueprints.records import record
from topology.cluster.node_groups import NodeGroupPlan

DECLARED = "declared"
# The day railyard last searched for an openly licensed, current copy of AWS's prices for what its tables lack (docs/cost.md,
# "What railyard does not know": what was examined, with each one's licence, coverage and date).
SEARCHED = "2026-11-29"
# The fix `railyard explain` gives for a declared price nothing uses (each finding words it for its entry).
EXPLAIN = {
    "cost.declared-unused": {
        "fix": "correct the entry's name (instance type, Capacity Block pool, or FSx tier's deployment and storage type) to one "
        "the design uses, or drop it",
    },
}


@record
class Gap:
    """Why a price is unknown, and the fix: the `cost:` field to declare, or what else to do."""

    why: str
    hint: str


def declared(usd: float, unit: str, field: str) -> Price:
    """A price the blueprint gives, with the field it came from as its source."""
    return Price(usd, unit, f"declared in the blueprint (cost.{field})", DECLARED, DECLARED)


def unsourced(what: str, region: str) -> str:
    """Why a price is unknown where no source railyard may ship has it: true of the world, and dated."""
    return (
        f"no source prices it: AWS publishes {what} for {region} in its Price List, and no openly licensed, current copy of "
        f'that could be found to ship with railyard (searched {SEARCHED}; docs/cost.md, "What railyard does not know")'
    )


def rate(price: Price, discount: float = 0.0) -> str:
    """`$41.528/instance-hour`, with the discount taken off where there is one."""
    off = f" less {discount:.0%}" if discount else ""
    usd = f"{price.usd:,.4f}".rstrip("0").rstrip(".")
    return f"${usd}/{price.unit}{off}"


class Pricer:
    """Looks prices up for one blueprint: its region, its declared prices and discounts, then the tables."""

    def __init__(self, blueprint: Blueprint, prices: PriceTable) -> None:
        self.region = blueprint.cloud.region
        self.cost = blueprint.cost
        self.prices = prices

    def on_demand(self, instance_type: str) -> Price | None:
        """An instance type's On-Demand rate: declared, else the table's."""
        usd = self.cost.instance_usd_per_hour.get(instance_type)
        if usd is not None:
            return declared(usd, "instance-hour", "instance_usd_per_hour")
        return self.prices.on_demand(self.region, instance_type)

    def on_demand_gap(self, instance_type: str) -> Gap:
        """Why `instance_type` has no On-Demand rate here: not sold in the region, not in the region's source, or no source."""
        field = f"cost.instance_usd_per_hour.{instance_type} (USD per instance-hour)"
        offerings = load_offerings()
        if offerings.offered(instance_type, self.region) is False:
            version = re.search(r"moto (\S+):", offerings.source)
            where = f"moto {version.group(1)}'s dump" if version else "moto's dump"
            elsewhere = ", ".join(offerings.regions_of(instance_type)) or "none of the regions recorded"
            return Gap(
                f"not sold On-Demand in {self.region}: AWS offers no {instance_type} there "
                f"(EC2 DescribeInstanceTypeOfferings for {self.region}, {where}; blueprints/catalog/offerings.json)",
                f"AWS sells {instance_type} in {elsewhere}: choose one of those regions, or, if the account has it in "
                f"{self.region} after all, declare {field}",
            )
        source = self.prices.on_demand_source(self.region)
        if source is not None:
            return Gap(f"its source lists no rate: {source} has no On-Demand rate for {instance_type} in {self.region}", f"declare {field}")
        why = unsourced(f"{instance_type}'s On-Demand rate", self.region)
        return Gap(why, f"declare {field}, or add AWS's EC2 offer file for {self.region} (see 'Refreshing the tables')")

    def lustre(self, deployment_type: str, storage_type: str, throughput: int | None) -> Price | None:
        """An FSx for Lustre tier's per GB-month price: declared, else the table's."""
        wanted = (deployment_type, storage_type, throughput)
        for entry in self.cost.fsx_lustre:
            if entry.tier == wanted:
                return declared(entry.usd_per_gb_month, "GB-month", "fsx_lustre")
        return self.prices.lustre(self.region, deployment_type, throughput, storage_type)

    def lustre_gap(self, deployment_type: str, storage_type: str, throughput: int | None) -> Gap:
        """Why an FSx for Lustre tier is unpriced, and the `cost.fsx_lustre` entry that would price it."""
        entry = f"deployment_type: {deployment_type}, storage_type: {storage_type}" + (
            f", throughput_mbps_per_tib: {throughput}" if throughput else ""
        )
        tier = f"{deployment_type} {storage_type}" + (f" {throughput} MB/s/TiB" if throughput else "")
        return Gap(
            unsourced(f"FSx for Lustre {tier}'s rate", self.region),
            f"add to cost.fsx_lustre: {{{entry}, usd_per_gb_month: <USD per GB-month>}}",
        )

    def gp3(self) -> Price | None:
        """gp3 storage per GB-month: declared, else the table's."""
        if self.cost.ebs_gp3_usd_per_gb_month is not None:
            return declared(self.cost.ebs_gp3_usd_per_gb_month, "GB-month", "ebs_gp3_usd_per_gb_month")
        return self.prices.service("ebs_gp3_storage", self.region)

    def gp3_gap(self) -> Gap:
        """Why gp3 storage is unpriced in the region, and the field that prices it."""
        return Gap(unsourced("EBS gp3 storage's rate", self.region), "declare cost.ebs_gp3_usd_per_gb_month (USD per GB-month)")

    def nat_gap(self) -> Gap:
        """Why a NAT gateway hour is unpriced in the region, and the field that prices it."""
        return Gap(unsourced("the NAT gateway-hour rate", self.region), "declare cost.nat_gateway_usd_per_hour (USD per gateway-hour)")

    def ipv4_gap(self) -> Gap:
        """Why a public IPv4 address hour (each NAT gateway's Elastic IP) is unpriced in the region; no `cost:` field prices it."""
        return Gap(unsourced("the public IPv4 address-hour rate", self.region), "add it to blueprints/catalog/service_prices.yaml")

    def nat_gateway(self) -> Price | None:
        """One NAT gateway per hour: declared, else the table's."""
        if self.cost.nat_gateway_usd_per_hour is not None:
            return declared(self.cost.nat_gateway_usd_per_hour, "gateway-hour", "nat_gateway_usd_per_hour")
        return self.prices.service("nat_gateway_hour", self.region)

    def block_quote(self, pool_names: Sequence[str]) -> tuple[str, CapacityBlockQuote | None]:
        """(the pool name a block's quote is keyed by, the quote): the first of the pools on the block that has one, else the
        first pool (the one that pays) and None. A block shared by a spare may be quoted under either pool's name."""
        for name in pool_names:
            quote = self.cost.capacity_block_quotes.get(name)
            if quote is not None:
                return name, quote
        return pool_names[0], None

    def capacity_block_rate(self, pool_name: str, instance_type: str) -> Price | None:
        """A block's per instance-hour rate: the quoted one, else the table's (indicative: AWS prices a block when it offers it)."""
        quote = self.cost.capacity_block_quotes.get(pool_name)
        if quote is not None and quote.usd_per_instance_hour is not None:
            return declared(quote.usd_per_instance_hour, "instance-hour", f"capacity_block_quotes.{pool_name}")
        return self.prices.capacity_block(self.region, instance_type)


def _quoted_twice(blueprint: Blueprint, blocks: set[str]) -> list[tuple[tuple[str | int, ...], str, str]]:
    """(path, message, hint) of each quote for a block another pool on it is quoted for already: a block is priced once."""
    quotes = blueprint.cost.capacity_block_quotes
    quoted: dict[tuple[str, str], str] = {}  # each block (kind, reservation) and the pool its quote is used under
    found: list[tuple[tuple[str | int, ...], str, str]] = []
    for pool in sorted(blueprint.pools, key=lambda pool: pool.standby_for is not None):  # the order a block's quote is looked up in
        if pool.name not in quotes or pool.name not in blocks:
            continue
        block = (pool.capacity.kind, str(getattr(pool.capacity, "reservation_id", "")))
        if block in quoted:
            message = (
                f"cost.capacity_block_quotes quotes pool {pool.name!r}, whose Capacity Block {block[1]} is quoted already under "
                f"{quoted[block]!r}: a block is priced once, with its first quote"
            )
            found.append((("cost", "capacity_block_quotes", pool.name), message, f"keep one quote for {block[1]}, under {quoted[block]!r}"))
        quoted.setdefault(block, pool.name)
    return found


def declared_findings(blueprint: Blueprint, node_groups: Sequence[NodeGroupPlan]) -> list[Finding]:
    """`cost.declared-unused` for each declared price nothing in the design uses: a typo'd name or a stale entry prices nothing."""
    cost = blueprint.cost
    blocks = {pool.name for pool in blueprint.pools if holds_capacity_blocks(pool.capacity)}
    types = {group.instance_type for group in node_groups} | {pool.instance_type for pool in blueprint.pools}
    tiers = {
        (tier.deployment_type, tier.storage_type, tier.throughput_mbps_per_tib)
        for tier in blueprint.storage
        if isinstance(tier, FsxLustre) and tier.existing is None
    }
    unused: list[tuple[tuple[str | int, ...], str, str]] = []  # (path, message, hint) of each declaration nothing uses
    pools = f"its Capacity Block pools: {', '.join(sorted(blocks))}" if blocks else "the blueprint has none"
    for name in cost.capacity_block_quotes:
        if name not in blocks:
            message = f"cost.capacity_block_quotes names {name!r}, which is not a Capacity Block pool ({pools})"
            unused.append((("cost", "capacity_block_quotes", name), message, "key each quote by the name of the pool whose capacity is the block"))
    unused += _quoted_twice(blueprint, blocks)
    for name in cost.instance_usd_per_hour:
        if name not in types:
            message = f"cost.instance_usd_per_hour prices {name}, which no pool or system node group runs"
            unused.append(
                (
                    ("cost", "instance_usd_per_hour", name),
                    message,
                    f"drop it, or check the name against the types the design runs: {', '.join(sorted(types))}",
                )
            )
    for index, price in enumerate(cost.fsx_lustre):
        if price.tier not in tiers:
            throughput = f" {price.throughput_mbps_per_tib} MB/s/TiB" if price.throughput_mbps_per_tib else ""
            tier = f"{price.deployment_type} {price.storage_type}{throughput}"
            message = f"cost.fsx_lustre prices {tier}, which no FSx for Lustre file system railyard makes uses"
            unused.append(
                (
                    ("cost", "fsx_lustre", index),
                    message,
                    "match deployment_type, storage_type and throughput_mbps_per_tib to a storage tier's, or drop it",
                )
            )
    return [warning("cost.declared-unused", path, message, hint) for path, message, hint in unused]
