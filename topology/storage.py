"""Storage: each tier's throughput against the read demand of the pools it serves, and checkpoint time.

The storage network is a small networkx DiGraph: one node per tier with its
aggregate throughput, one per pool with its hosts' NIC bandwidth (placed hosts
x the catalog's `network_gbps`, 125 MB/s per Gb/s) and its read demand. Reads
flow tier -> pool; the served rate is the max-flow from a source feeding the
tiers to a sink drawing each pool's demand, and the minimum cut names what
limits it (the tier, or a pool's NICs). A checkpoint writes at the max-flow
from the one pool into the tier alone.

Units. FSx throughput is capacity (TiB) x `throughput_mbps_per_tib` in MB/s per
TiB (AWS's PerUnitStorageThroughput); scratch file systems have no setting and
give about 200 MB/s per TiB (../shared/research/aws-facts.md 3.2). A pool's
`read_mbps_per_accelerator` is in megabytes per second, the unit of the FSx
throughput it is compared with (storage figures are MB/s throughout; only
network links are in Gb/s). Local NVMe and S3 have no throughput figure here
and are not checked.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import networkx as nx

from blueprints.catalog import Catalog
from blueprints.findings import Finding, error
from blueprints.models import Blueprint
from blueprints.models.storage import FsxLustre, StorageTier
from blueprints.records import record
from topology.placement import Placement

__all__ = ["tier_throughput", "storage_network", "read_flow", "checkpoint_rate", "storage_report", "SCRATCH_MB_PER_TIB"]

SCRATCH_MB_PER_TIB = 200
MEGABYTES_PER_GIB = 1073.741824
MEGABYTES_PER_GIGABIT = 125.0

StorageNode: TypeAlias = tuple[str, str]
"""("tier", tier name) or ("pool", pool name)."""
StorageGraph: TypeAlias = "nx.DiGraph[StorageNode]"
FlowGraph: TypeAlias = "nx.DiGraph[StorageNode | str]"
"""A max-flow network over the storage network's nodes, with "source" and "sink"."""


def tier_throughput(tier: StorageTier) -> float | None:
    """A tier's aggregate throughput in MB/s, or None when railyard has no figure for it (NVMe, S3)."""
    if not isinstance(tier, FsxLustre):
        return None
    per_tib = SCRATCH_MB_PER_TIB if tier.deployment_type.startswith("SCRATCH") else tier.throughput_mbps_per_tib
    return tier.capacity_gib / 1024 * per_tib if per_tib else None


def storage_network(blueprint: Blueprint, catalog: Catalog, placement: Placement) -> StorageGraph:
    """Tiers and the pools that use them, with throughput, NIC bandwidth and read demand (MB/s)."""
    network: StorageGraph = nx.DiGraph()
    for index, tier in enumerate(blueprint.storage):
        network.add_node(("tier", tier.name), index=index, kind=tier.kind, throughput=tier_throughput(tier))
    for pool_index, pool in enumerate(blueprint.pools):
        spec = catalog.get(pool.instance_type)
        hosts = placement.placed.get(pool_index, 0)
        if spec is None or not hosts:
            continue
        accelerators = hosts * spec.accelerator_count
        for use_index, use in enumerate(pool.storage):
            if ("tier", use.tier) not in network:
                continue
            network.add_node(
                ("pool", pool.name),
                index=pool_index,
                hosts=hosts,
                accelerators=accelerators,
                nic_mb_per_s=hosts * spec.network_gbps * MEGABYTES_PER_GIGABIT,
            )
            network.add_edge(
                ("tier", use.tier), ("pool", pool.name), use=use_index, demand=accelerators * use.read_mbps_per_accelerator, checkpoint=use.checkpoint
            )
    return network


@record
class ReadFlow:
    """What a tier serves its readers at once: demand, served rate and the minimum cut's limits."""

    demand: float
    served: float
    limits: tuple[str, ...]


def read_flow(network: StorageGraph, tier: str) -> ReadFlow:
    """Max-flow of reads from one tier to every pool reading it, with the cut that limits it."""
    tier_node = ("tier", tier)
    flow: FlowGraph = nx.DiGraph()
    flow.add_edge("source", tier_node, capacity=network.nodes[tier_node]["throughput"])
    demand = 0.0
    for pool_node, use in network[tier_node].items():
        if use["demand"] > 0:
            flow.add_edge(tier_node, pool_node, capacity=network.nodes[pool_node]["nic_mb_per_s"])
            flow.add_edge(pool_node, "sink", capacity=use["demand"])
            demand += use["demand"]
    if demand == 0:
        return ReadFlow(0.0, 0.0, ())
    served, (reachable, _) = nx.minimum_cut(flow, "source", "sink")
    limits: list[str] = []
    for u in sorted(reachable, key=str):
        for v in flow[u]:
            if v not in reachable and v != "sink":
                limits.append(f"{v[1]}'s NICs" if v[0] == "pool" else f"tier {v[1]}'s throughput")
    return ReadFlow(demand, served, tuple(limits))


def checkpoint_rate(network: StorageGraph, tier: str, pool: str) -> float:
    """Max-flow of one pool's checkpoint into one tier (MB/s): its NICs, then the tier's throughput."""
    flow: FlowGraph = nx.DiGraph()
    flow.add_edge(("pool", pool), ("tier", tier), capacity=network.nodes[("pool", pool)]["nic_mb_per_s"])
    flow.add_edge(("tier", tier), "sink", capacity=network.nodes[("tier", tier)]["throughput"])
    return nx.maximum_flow_value(flow, ("pool", pool), "sink")


def _throughput_finding(network: StorageGraph, tier: StorageTier, index: int, flow: ReadFlow) -> Finding:
    readers = [
        f"'{pool[1]}' ({network.nodes[pool]['accelerators']} accelerators, {use['demand']:,.0f} MB/s)"
        for pool, use in network[("tier", tier.name)].items()
        if use["demand"] > 0
    ]
    return error(
        "storage.throughput",
        ("storage", index, "capacity_gib"),
        f"tier '{tier.name}' can serve {flow.served:,.0f} MB/s, but its pools read {flow.demand:,.0f} MB/s: {', '.join(readers)}; "
        f"the limit is {' and '.join(flow.limits)}",
        "raise capacity_gib or throughput_mbps_per_tib, or lower the pools' read demand",
        tier=tier.name,
        served_mb_per_s=round(flow.served, 1),
        demand_mb_per_s=round(flow.demand, 1),
        cut=list(flow.limits),
    )


def _checkpoint_finding(network: StorageGraph, tier: str, pool_node: StorageNode, use: dict[str, Any], rate: float, seconds: float) -> Finding:
    checkpoint = use["checkpoint"]
    return error(
        "storage.checkpoint-time",
        ("pools", network.nodes[pool_node]["index"], "storage", use["use"], "checkpoint", "max_write_seconds"),
        f"pool '{pool_node[1]}' writes a {checkpoint.size_gib:g} GiB checkpoint to '{tier}' at {rate:,.0f} MB/s in {seconds:,.0f} s; "
        f"max_write_seconds is {checkpoint.max_write_seconds:g}",
        "raise the tier's throughput (capacity or throughput per TiB), shard the checkpoint, or allow more time",
        tier=tier,
        seconds=round(seconds, 1),
        write_mb_per_s=round(rate, 1),
        limit_seconds=checkpoint.max_write_seconds,
    )


def _tier_report(network: StorageGraph, tier: StorageTier, index: int) -> tuple[dict[str, Any], list[Finding]]:
    node = ("tier", tier.name)
    findings: list[Finding] = []
    throughput = network.nodes[node]["throughput"]
    flow = read_flow(network, tier.name) if throughput is not None else None
    if flow is not None and flow.served < flow.demand - 1e-6:
        findings.append(_throughput_finding(network, tier, index, flow))
    checkpoints: list[dict[str, Any]] = []
    for pool_node, use in sorted(network[node].items()):
        if use["checkpoint"] is None or throughput is None:
            continue
        rate = checkpoint_rate(network, tier.name, pool_node[1])
        seconds = use["checkpoint"].size_gib * MEGABYTES_PER_GIB / rate
        checkpoints.append(
            {
                "pool": pool_node[1],
                "size_gib": use["checkpoint"].size_gib,
                "write_mb_per_s": round(rate, 1),
                "seconds": round(seconds, 1),
                "max_write_seconds": use["checkpoint"].max_write_seconds,
            }
        )
        if seconds > use["checkpoint"].max_write_seconds + 1e-9:
            findings.append(_checkpoint_finding(network, tier.name, pool_node, use, rate, seconds))
    figures = {
        "name": tier.name,
        "kind": tier.kind,
        "throughput_mb_per_s": None if throughput is None else round(throughput, 1),
        "read_demand_mb_per_s": round(sum(use["demand"] for use in network[node].values()), 1),
        "served_mb_per_s": round(flow.served, 1) if flow else None,
        "pools": sorted(pool[1] for pool in network[node]),
        "checkpoints": checkpoints,
    }
    return figures, findings


def storage_report(blueprint: Blueprint, network: StorageGraph) -> tuple[list[dict[str, Any]], list[Finding]]:
    """Per tier (sorted by name): throughput, read demand, what is served, and each checkpoint's rate and time; with the findings.

    `storage.throughput` for a tier whose readers want more than the max-flow
    serves, `storage.checkpoint-time` for a checkpoint slower than its limit.
    """
    tiers: list[dict[str, Any]] = []
    findings: list[Finding] = []
    for index, tier in enumerate(blueprint.storage):
        figures, problems = _tier_report(network, tier, index)
        tiers.append(figures)
        findings += problems
    return sorted(tiers, key=lambda tier: tier["name"]), findings
