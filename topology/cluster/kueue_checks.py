"""The Kueue side of the cross-layer check: each flavor's quota equals what its nodes hold (`k8s.quota-mismatch`), and
`kueue.flavors` names pools that exist and run jobs (`k8s.unknown-pool`, `k8s.standby-flavor`).

Registered in `topology.cluster.kubernetes_checks.RULES`; each is a pure function of the layout.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from blueprints.findings import Finding, Path, error
from blueprints.models import Blueprint
from topology.cluster.kubernetes import KubernetesLayout
from topology.cluster.kueue import FlavorPlan, KueuePlan
from topology.cluster.scheduling import NodeGroupView


def _selection(views: Sequence[NodeGroupView]) -> Callable[[Mapping[str, str]], list[NodeGroupView]]:
    """A function from a node selector to the views whose nodes it selects, in order, from one label index.

    Built once per check, so many flavors cost one pass over the node groups, not one each.
    """
    holding: dict[tuple[str, str], set[int]] = {}
    for index, view in enumerate(views):
        for item in view.all_labels().items():
            holding.setdefault(item, set()).add(index)

    def selected(node_labels: Mapping[str, str]) -> list[NodeGroupView]:
        chosen = set(range(len(views)))
        for item in node_labels.items():
            chosen &= holding.get(item, set())
        return [views[index] for index in sorted(chosen)]

    return selected


def check_quota(blueprint: Blueprint, layout: KubernetesLayout) -> Iterable[Finding]:
    """Each flavor grants exactly the accelerators of the nodes its labels select."""
    if layout.kueue is None:
        return
    selected = _selection(layout.nodes)
    pools = layout.by_pool()
    for flavor in layout.kueue.flavors:
        chosen = selected(flavor.node_labels)
        picked = {id(view) for view in chosen}
        if not all(id(view) in picked for view in pools.get(flavor.pool, ())):
            continue  # its own pool isn't selected: reported as k8s.label-not-set
        capacity: dict[str, int] = {}
        for view in chosen:
            if view.spec.accelerator_resource:
                capacity[view.spec.accelerator_resource] = (
                    capacity.get(view.spec.accelerator_resource, 0) + view.max_nodes * view.spec.accelerator_count
                )
        declared = {flavor.accelerator_resource} if flavor.accelerator_resource is not None else set()
        for resource in sorted(set(capacity) | declared):
            granted, held = flavor.quotas.get(resource, 0), capacity.get(resource, 0)
            if granted != held:
                yield _quota_finding(layout.kueue, flavor, resource, granted, held, chosen)


def _quota_path(flavor: FlavorPlan, resource: str) -> Path:
    """The declared quota when it is the one off, else the declared labels that select too much, else the pool's nodes."""
    if flavor.entry is not None:  # without an entry nothing is declared
        entry = ("kubernetes", "kueue", "flavors", flavor.entry)
        if resource == flavor.accelerator_resource and "accelerator_quota" in flavor.declared:
            return (*entry, "accelerator_quota")
        if "node_labels" in flavor.declared:
            return (*entry, "node_labels")
    return ("pools", flavor.pool_index, "nodes")


def _quota_finding(kueue: KueuePlan, flavor: FlavorPlan, resource: str, granted: int, held: int, chosen: list[NodeGroupView]) -> Finding:
    pools = list(dict.fromkeys(view.pool for view in chosen))
    effect = (
        f"workloads beyond {held} are admitted and stay Pending" if granted > held else f"Kueue never admits workloads onto {held - granted} of them"
    )
    path = _quota_path(flavor, resource)
    return error(
        "k8s.quota-mismatch",
        path,
        f"ClusterQueue '{kueue.cluster_queue}' grants {granted} {resource} on flavor '{flavor.pool}', but the nodes it selects "
        f"(pools {pools}) hold {held}; {effect}",
        f"set accelerator_quota: {held} for pool '{flavor.pool}', or remove it to derive quota from the node groups"
        if resource == flavor.accelerator_resource
        else f"narrow the flavor's node_labels to pool '{flavor.pool}'",
        flavor=flavor.name,
        resource=resource,
        granted=granted,
        held=held,
    )


def check_flavor_pools(blueprint: Blueprint, layout: KubernetesLayout) -> Iterable[Finding]:
    """`kueue.flavors` entries name pools that exist and run jobs (a standby pool gets no flavor)."""
    names = [pool.name for pool in blueprint.pools]
    standby = {pool.name: pool.standby_for for pool in blueprint.pools if pool.standby_for is not None}
    for index, entry in enumerate(blueprint.kubernetes.kueue.flavors):
        if entry.pool in standby:
            yield error(
                "k8s.standby-flavor",
                ("kubernetes", "kueue", "flavors", index, "pool"),
                f"kueue.flavors[{index}] names pool '{entry.pool}', which stands by for '{standby[entry.pool]}': its nodes are tainted "
                f"railyard.dev/standby-for and Kueue gives them no quota until one is brought into service (docs/spares.md)",
                f"drop the entry, or name '{standby[entry.pool]}'",
                pool=entry.pool,
            )
        elif entry.pool not in names:
            yield error(
                "k8s.unknown-pool",
                ("kubernetes", "kueue", "flavors", index, "pool"),
                f"kueue.flavors[{index}] names pool '{entry.pool}', which the blueprint doesn't have (pools: {names})",
                "use a name from `pools[].name`",
                unknown=entry.pool,
            )
