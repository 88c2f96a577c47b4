"""Where the nodes sit in AWS's network, against the design: topology labels, placement and UltraServer domains.

DescribeInstanceTopology gives each running instance the network nodes above it, top layer first
(`NetworkNodes[0]` is layer 1; the AWS cloud provider copies `NetworkNodes[i-1]` into the node label
`topology.k8s.aws/network-node-layer-i`). Read as a tree, two instances whose deepest shared network
node is at layer `d` of `n` are `2 * (n - d) + 1` switches apart (1 under the same bottom node; 2n + 1
when they share none): the shallowest layer at which a pool's instances differ gives its worst pair.
"""

from __future__ import annotations

from collections.abc import Sequence

from blueprints.findings import Finding, error, warning
from railyard.conform import observed
from railyard.conform.base import Judge, listed, where
from railyard.online.evidence import BLOCK_STATUS, INSTANCES, NODES, TOPOLOGY
from topology.cluster.labels import NETWORK_LAYER_LABEL

CODES = ("conform.topology-labels", "conform.placement", "conform.ultraserver")


def worst_hops(placed: Sequence[observed.Placed]) -> tuple[int, tuple[str, str] | None]:
    """The most switches between two of these instances, and a pair that far apart (None: fewer than two).

    The layers compared are those every instance reports; the pair is the first two (by id) that differ
    at the shallowest layer where any differ.
    """
    ordered = sorted(placed, key=lambda item: item.instance_id)
    if len(ordered) < 2:
        return (1 if ordered else 0), None
    layers = min(len(item.network_nodes) for item in ordered)
    for layer in range(layers):
        first = ordered[0]
        other = next((item for item in ordered[1:] if item.network_nodes[layer] != first.network_nodes[layer]), None)
        if other is not None:
            return 2 * (layers - layer) + 1, (first.instance_id, other.instance_id)
    return 1, (ordered[0].instance_id, ordered[1].instance_id)


def check_labels(judge: Judge) -> list[Finding]:
    """Every Ready node of a type with network layers carries each layer's label, equal to the topology API's node."""
    found = judge.not_checked("the topology labels", [NODES, TOPOLOGY])
    if found:
        return found
    for group in judge.expected.groups:
        spec = judge.expected.catalog.get(group.instance_type)
        layers = spec.topology_layers if spec is not None else 0
        for node in judge.ready_nodes(group) if layers else []:
            keys = [NETWORK_LAYER_LABEL.format(layer) for layer in range(1, layers + 1)]
            absent = [key for key in keys if key not in node.labels]
            facts = {"pool": group.pool, "node": node.name, "instance": node.instance_id}
            path = judge.expected.path(group.pool)
            if absent:
                found.append(
                    error(
                        "conform.topology-labels",
                        path,
                        f"node {node.name} ({node.instance_id}) of {where(group)} lacks {', '.join(absent)}; "
                        f"a {group.instance_type} has {layers} layers",
                        "the AWS cloud controller didn't label it (kubernetes/cloud-provider-aws#1100): cordon it, and upgrade the "
                        "cloud controller; topology-aware placement ignores unlabelled nodes",
                        missing=absent,
                        **facts,
                    )
                )
                continue
            placed = judge.placed.get(node.instance_id or "")
            if placed is None or not placed.network_nodes:
                continue
            labelled = tuple(node.labels[key] for key in keys)
            if labelled != placed.network_nodes[:layers]:
                found.append(
                    error(
                        "conform.topology-labels",
                        path,
                        f"node {node.name} ({node.instance_id}) of {where(group)} is labelled {', '.join(labelled)}, "
                        f"DescribeInstanceTopology says {', '.join(placed.network_nodes)}",
                        "stale labels steer topology-aware jobs to the wrong place: relabel the node from the topology API, or replace it",
                        expected=list(placed.network_nodes),
                        observed=list(labelled),
                        **facts,
                    )
                )
    return found


def _pool_placements(judge: Judge) -> dict[str, list[observed.Placed]]:
    """Each pool's running instances that the topology API places, by pool."""
    pools: dict[str, list[observed.Placed]] = {}
    for instance, group in judge.running():
        placed = judge.placed.get(instance.instance_id)
        if placed is not None and placed.network_nodes:
            pools.setdefault(group.pool, []).append(placed)
    return pools


def check_placement(judge: Judge) -> list[Finding]:
    """Each pool's worst switch hops, as its observed network tree implies, against its fabric's bound."""
    found = judge.not_checked("the placement", [INSTANCES, TOPOLOGY])
    if found:
        return found
    for pool, placed in sorted(_pool_placements(judge).items()):
        bound = judge.expected.hop_bound(pool)
        hops, pair = worst_hops(placed)
        if bound is None or hops <= bound or pair is None:
            continue
        layers = len(placed[0].network_nodes)
        distinct = {f"layer-{layer + 1}": len({item.network_nodes[layer] for item in placed}) for layer in range(layers)}
        spread = ", ".join(f"{count} at {layer}" for layer, count in distinct.items())
        found.append(
            error(
                "conform.placement",
                judge.expected.path(pool),
                f"pool '{pool}' spans network nodes {spread}: instances {pair[0]} and {pair[1]} are {hops} switches apart, the fabric allows {bound}",
                "the instances landed under more network nodes than the design assumes; relaunch the stragglers in the pool's "
                "placement group or Capacity Block, or raise the fabric's max_switch_hops",
                pool=pool,
                instances=list(pair),
                expected=bound,
                observed=hops,
                distinct=distinct,
            )
        )
    return found


def check_ultraservers(judge: Judge) -> list[Finding]:
    """Pools of UltraServer types: whole domains (instances per CapacityBlockId) and each domain's interconnect `ok`."""
    groups = [
        group
        for group in judge.expected.groups
        if (spec := judge.expected.catalog.get(group.instance_type)) and spec.scale_up and spec.scale_up.instances_per_domain > 1
    ]
    if not groups:
        return []
    found = judge.not_checked("the UltraServer domains", [INSTANCES, TOPOLOGY, BLOCK_STATUS])
    if found:
        return found
    statuses = {item.get("CapacityBlockId"): item for item in (judge.evidence.get(BLOCK_STATUS) or {}).get("CapacityBlockStatuses") or []}
    for pool in dict.fromkeys(group.pool for group in groups):
        size = next(judge.expected.catalog.get(group.instance_type) for group in groups if group.pool == pool).scale_up.instances_per_domain  # type: ignore[union-attr]
        path = judge.expected.path(pool)
        domains: dict[str | None, list[str]] = {}
        for instance, group in judge.running():
            if group.pool == pool:
                placed = judge.placed.get(instance.instance_id)
                domains.setdefault(placed.capacity_block_id if placed else None, []).append(instance.instance_id)
        for block, members in sorted(domains.items(), key=lambda item: str(item[0])):
            found += _domain(pool, path, block, sorted(members), size, statuses.get(block))
    return found


def _domain(pool: str, path: tuple, block: str | None, members: list[str], size: int, status: dict | None) -> list[Finding]:
    """The findings of one UltraServer domain of a pool."""
    facts = {"pool": pool, "capacity_block": block, "instances": members}
    if block is None:
        return [
            warning(
                "conform.ultraserver",
                path,
                f"pool '{pool}': instances {listed(members)} have no CapacityBlockId yet (it appears shortly after launch)",
                "record again in a few minutes",
                **facts,
            )
        ]
    found = []
    if len(members) != size:
        found.append(
            error(
                "conform.ultraserver",
                path,
                f"pool '{pool}': UltraServer {block} holds {len(members)} of the pool's instances ({listed(members)}), "
                f"the design fills it with {size}",
                "a partial domain splits the scale-up ring: bring the missing instances back into the block",
                expected=size,
                observed=len(members),
                **facts,
            )
        )
    return found + _interconnect(pool, path, block, members, (status or {}).get("InterconnectStatus"))


def _interconnect(pool: str, path: tuple, block: str, members: list[str], interconnect: str | None) -> list[Finding]:
    """The finding on an UltraServer's interconnect: none when `ok`, an error when `impaired`, else a warning."""
    facts = {"pool": pool, "capacity_block": block, "instances": members}
    if interconnect == "ok":
        return []
    if interconnect is None:
        message = f"pool '{pool}': DescribeCapacityBlockStatus gives no interconnect status for UltraServer {block}"
        return [warning("conform.ultraserver", path, message, "record again; the block may be new", **facts)]
    severity = error if interconnect == "impaired" else warning
    return [
        severity(
            "conform.ultraserver",
            path,
            f"pool '{pool}': UltraServer {block}'s accelerator interconnect is {interconnect} (instances {listed(members)})",
            "open a case with AWS for the block; jobs across the domain will run slowly or fail",
            observed=interconnect,
            **facts,
        )
    ]
