"""Scheduler topology from the design graph: Slurm's topology.conf (tree and block plugins) and a topograph model.

Slurm and Kubernetes users then schedule on the topology the checker reasons
about. The node names are the design's own, `{pool}-{index}` with the index
zero-padded to the pool's size and counted in fabric order (leaf position by
leaf position); rename them to the hosts' real names with the same order.

* **Tree** (`TopologyPlugin=topology/tree`): a logical leaf per leaf position,
  that is the hosts one set of rail leaves serves (one leaf per rack in a ToR
  Clos), because Slurm's tree wants each node under one leaf and all of a
  position's rail leaves have the same hosts (NVIDIA topograph merges rail
  leaves the same way). Above them: each pod's spines as one switch and the
  cores as the root (three tiers), or the spines as the root (two tiers). Each
  fabric is a tree of its own; its switches are prefixed with its name.
* **Block** (`TopologyPlugin=topology/block`): a block per scale-up domain that
  spans hosts (an NVL72 rack, a Trn2 UltraServer), else per leaf position, in
  fabric order (Slurm aggregates adjacent blocks by file order), with
  `BlockSizes` the smallest block times the powers of two that fit.
* **topograph** (`tests/models/*.yaml` of NVIDIA topograph): `switches` (each
  with its child switches) and `blocks` of nodes attached to their leaf, with
  the scale-up domain as `accelerator.topology.test/domain`.

Pools on no designed fabric (AWS's `aws_efa` network, or none) have no switch
to place them under: the tree leaves them out, and the blocks and the
topograph model hold them only for their multi-host scale-up domains (a Trn2
UltraServer's four instances); `exported_pools` says which are in. On AWS
the switches above them are EC2's, which topograph's AWS provider reads from
DescribeInstanceTopology at run time.
"""

from __future__ import annotations

from collections.abc import Iterator

import yaml

from blueprints.records import record
from blueprints.rules.context import Context
from topology.design import Design, FabricDesign

__all__ = ["ExportedNode", "exported_nodes", "exported_pools", "hostlist", "slurm_tree", "slurm_block", "topograph_model"]

FORMATS = ("slurm-tree", "slurm-block", "topograph")
TOPOGRAPH_DOMAIN = "accelerator.topology.test/domain"


@record
class ExportedNode:
    """One host as exported: its name, fabric, leaf position, pod, and scale-up domain (None when it is the host alone)."""

    name: str
    pool: str
    index: int
    fabric: str | None
    position: int | None
    pod: int | None
    domain: str | None


def _width(count: int) -> int:
    return max(1, len(str(count - 1)))


def exported_nodes(design: Design) -> list[ExportedNode]:
    """Every host on a designed fabric, in fabric order, with its name and place; then, in placement order, the hosts of
    pools on no designed fabric whose scale-up domain spans hosts (a Trn2 UltraServer on AWS's network: no switches)."""
    ctx = Context(design.blueprint, design.catalog)
    nodes: list[ExportedNode] = []
    for fabric in design.fabrics:
        next_index: dict[int, int] = {}
        for position in fabric.plan.positions:
            for pool_index, hosts in position.hosts:
                pool = design.blueprint.pools[pool_index]
                _, unit = ctx.scale_up_domain(pool)
                width = _width(design.placement.placed.get(pool_index, 0))
                for _ in range(hosts):
                    index = next_index.get(pool_index, 0)
                    next_index[pool_index] = index + 1
                    domain = _domain(pool.name, index, unit, design.placement.placed.get(pool_index, 0)) if unit > 1 else None
                    nodes.append(
                        ExportedNode(f"{pool.name}-{index:0{width}d}", pool.name, index, fabric.plan.name, position.index, position.pod, domain)
                    )
    on_fabric = {node.pool for node in nodes}
    for pool_index, pool in enumerate(design.blueprint.pools):
        _, unit = ctx.scale_up_domain(pool)
        placed = design.placement.placed.get(pool_index, 0)
        if pool.name in on_fabric or unit == 1 or not placed:
            continue
        width = _width(placed)
        for index in range(placed):
            nodes.append(ExportedNode(f"{pool.name}-{index:0{width}d}", pool.name, index, None, None, None, _domain(pool.name, index, unit, placed)))
    return nodes


def _domain(pool: str, index: int, unit: int, placed: int) -> str:
    """The scale-up domain of a pool's host `index`: `pool-domain-N`, counted in the same order as the hosts."""
    return f"{pool}-domain-{index // unit:0{_width(-(-placed // unit))}d}"


def exported_pools(design: Design, kind: str) -> list[str]:
    """The pools an export covers: those on a designed fabric, and for blocks also those with multi-host scale-up domains."""
    return sorted({node.pool for node in exported_nodes(design) if node.fabric is not None or kind != "slurm-tree"})


def hostlist(names: list[str]) -> str:
    """Slurm's compact form of `pool-0003`-style names: runs of consecutive indexes become `pool-[0000-0031,0040]`."""
    by_prefix: dict[tuple[str, int], list[int]] = {}
    for name in names:
        prefix, _, digits = name.rpartition("-")
        by_prefix.setdefault((prefix, len(digits)), []).append(int(digits))
    parts: list[str] = []
    for (prefix, width), indexes in by_prefix.items():
        runs: list[str] = []
        for first, last in _runs(sorted(indexes)):
            runs.append(f"{first:0{width}d}" if first == last else f"{first:0{width}d}-{last:0{width}d}")
        parts.append(f"{prefix}-{runs[0]}" if len(runs) == 1 and "-" not in runs[0] else f"{prefix}-[{','.join(runs)}]")
    return ",".join(parts)


def _runs(indexes: list[int]) -> Iterator[tuple[int, int]]:
    first = previous = indexes[0]
    for index in indexes[1:]:
        if index != previous + 1:
            yield first, previous
            first = index
        previous = index
    yield first, previous


def _leaf(fabric: str, position: int) -> str:
    return f"{fabric}-leaf-{position:05d}"


def _by_position(nodes: list[ExportedNode], fabric: str) -> dict[int, list[ExportedNode]]:
    """A fabric's nodes by leaf position, positions in order (one pass, so the export stays linear in hosts)."""
    found: dict[int, list[ExportedNode]] = {}
    for node in nodes:
        if node.fabric == fabric and node.position is not None:
            found.setdefault(node.position, []).append(node)
    return dict(sorted(found.items()))


def _upper_switches(fabric: FabricDesign, positions: dict[int, list[ExportedNode]]) -> dict[str, list[str]]:
    """Each switch above the leaves and its children: pods' spines under the cores (three tiers), or the spines."""
    name, tiers = fabric.plan.name, fabric.plan.tiers
    if tiers == 3:
        pods: dict[int, list[str]] = {}
        for position, members in positions.items():
            pods.setdefault(members[0].pod or 0, []).append(_leaf(name, position))
        upper = {f"{name}-core": [f"{name}-pod-{pod:04d}" for pod in sorted(pods)]}
        upper.update({f"{name}-pod-{pod:04d}": leaves for pod, leaves in sorted(pods.items())})
        return upper
    if tiers == 2:
        return {f"{name}-spine": [_leaf(name, position) for position in positions]}
    return {}


def _tree_lines(fabric: FabricDesign, nodes: list[ExportedNode]) -> list[str]:
    name, plan = fabric.plan.name, fabric.plan
    positions = _by_position(nodes, name)
    lines = [f"# fabric {name}: {plan.fabric.kind}, {plan.tiers} tier(s), {len(positions)} leaf position(s)"]
    lines += [f"SwitchName={switch} Switches={','.join(children)}" for switch, children in _upper_switches(fabric, positions).items()]
    lines += [f"SwitchName={_leaf(name, position)} Nodes={hostlist([node.name for node in members])}" for position, members in positions.items()]
    return lines


def slurm_tree(design: Design) -> str:
    """topology.conf for `TopologyPlugin=topology/tree`: each fabric's leaf positions, pods and root."""
    nodes = exported_nodes(design)
    lines = ["# railyard: Slurm tree topology (TopologyPlugin=topology/tree), from the design graph"]
    for fabric in design.fabrics:
        lines += _tree_lines(fabric, nodes)
    return "\n".join(lines) + "\n"


def blocks(design: Design) -> list[tuple[str, list[str]]]:
    """(block name, node names) in fabric order: scale-up domains that span hosts, else leaf positions."""
    found: dict[str, list[str]] = {}
    for node in exported_nodes(design):
        key = node.domain if node.domain is not None else _leaf(str(node.fabric), node.position or 0)
        found.setdefault(key, []).append(node.name)
    return list(found.items())


def block_sizes(sizes: list[int]) -> list[int]:
    """The smallest block's size, then that times 2, 4, ... while as many blocks exist (Slurm wants powers of two)."""
    base, count = min(sizes), len(sizes)
    result, factor = [base], 2
    while factor <= count:
        result.append(base * factor)
        factor *= 2
    return result


def slurm_block(design: Design) -> str:
    """topology.conf for `TopologyPlugin=topology/block`: a block per multi-host scale-up domain, else per leaf position."""
    found = blocks(design)
    lines = ["# railyard: Slurm block topology (TopologyPlugin=topology/block), from the design graph, in fabric order"]
    lines += [f"BlockName={name} Nodes={hostlist(members)}" for name, members in found]
    if found:
        lines.append(f"BlockSizes={','.join(str(size) for size in block_sizes([len(members) for _, members in found]))}")
    return "\n".join(lines) + "\n"


def topograph_model(design: Design) -> str:
    """A topograph model (its `tests/models` YAML): the switch tree and the nodes under their leaves, with their domains."""
    nodes = exported_nodes(design)
    switches: dict[str, dict[str, list[str]]] = {}
    model_blocks: list[dict[str, object]] = []
    for fabric in design.fabrics:
        name = fabric.plan.name
        positions = _by_position(nodes, name)
        upper = _upper_switches(fabric, positions)
        switches.update({switch: {"switches": children} for switch, children in upper.items()})
        if not upper and positions:
            switches[_leaf(name, next(iter(positions)))] = {"switches": []}  # one tier: the leaf is the whole tree
        model_blocks += _topograph_blocks([node for members in positions.values() for node in members], name)
    model_blocks += _topograph_blocks([node for node in nodes if node.fabric is None], None)
    return yaml.safe_dump({"switches": switches, "blocks": model_blocks}, sort_keys=False)


def _topograph_blocks(nodes: list[ExportedNode], fabric: str | None) -> list[dict[str, object]]:
    """A topograph block per (leaf position, scale-up domain); on no designed fabric, a block per domain with no switch."""
    groups: dict[tuple[int | None, str | None], list[str]] = {}
    for node in nodes:
        groups.setdefault((node.position, node.domain), []).append(node.name)
    found: list[dict[str, object]] = []
    for (position, domain), members in groups.items():
        block: dict[str, object] = {"switch": _leaf(fabric, position or 0)} if fabric is not None else {}
        block["nodes"] = [hostlist(members)]
        if domain is not None:
            block["annotations"] = {TOPOGRAPH_DOMAIN: domain}
        found.append(block)
    return found


def export(design: Design, kind: str) -> str:
    """The export of one of `FORMATS`."""
    return {"slurm-tree": slurm_tree, "slurm-block": slurm_block, "topograph": topograph_model}[kind](design)
