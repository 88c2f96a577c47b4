"""The cluster's objects against what was compiled: the EKS cluster and node groups, the DaemonSets the design
places, Kueue's Topologies, and the file systems and claims."""

from __future__ import annotations

from blueprints.findings import Finding, error, warning
from blueprints.models.storage import FsxLustre
from railyard.conform import observed
from railyard.conform.base import Judge, listed, where
from railyard.conform.expected import NODE_MONITORING_AGENT, OPERATOR_HOST_ENGINE, DaemonSetWant
from railyard.online.evidence import CLAIMS, CLUSTER, DAEMONSETS, FILE_SYSTEMS, KUEUE_FLAVORS, KUEUE_TOPOLOGIES, NODES, PODS, VOLUMES, nodegroup_file

CODES = (
    "conform.cluster",
    "conform.nodegroup",
    "conform.daemonset",
    "conform.nma-dcgm-conflict",
    "conform.gate-held",
    "conform.kueue",
    "conform.fsx",
)


def check_cluster(judge: Judge) -> list[Finding]:
    """The EKS cluster is ACTIVE on the blueprint's Kubernetes version."""
    path = ("kubernetes", "version")
    found = judge.not_checked("the EKS cluster", [CLUSTER], path)
    if found:
        return found
    cluster = (judge.evidence.get(CLUSTER) or {}).get("cluster") or {}
    version, status, wanted = cluster.get("version"), cluster.get("status"), judge.expected.blueprint.kubernetes.version
    if status != "ACTIVE":
        found.append(error("conform.cluster", path, f"cluster {judge.expected.cluster} is {status}, not ACTIVE", observed=status))
    if version != wanted:
        found.append(
            error(
                "conform.cluster",
                path,
                f"cluster {judge.expected.cluster} runs Kubernetes {version}, the blueprint says {wanted}",
                "finish or start the upgrade with `pulumi up`",
                expected=wanted,
                observed=version,
            )
        )
    return found


def check_node_groups(judge: Judge) -> list[Finding]:
    """Each managed node group's status, labels, taints, version, capacity type, sizes and node repair as compiled."""
    found: list[Finding] = []
    auto_repair = judge.expected.blueprint.kubernetes.node_auto_repair
    for group in judge.expected.groups:
        if not group.managed:
            continue
        name = nodegroup_file(group.name)
        lacking = judge.not_checked(f"node group {group.name}", [name], judge.expected.path(group.pool))
        if lacking:
            found += lacking
            continue
        answer = (judge.evidence.get(name) or {}).get("nodegroup") or {}
        taints = sorted((taint.key, taint.value, taint.eks_effect) for taint in group.taints)
        compared = {
            "status": ("ACTIVE", answer.get("status")),
            "labels": (dict(group.labels), dict(answer.get("labels") or {})),
            "taints": (taints, sorted((item.get("key"), item.get("value"), item.get("effect")) for item in answer.get("taints") or [])),
            "capacityType": (group.capacity_type, answer.get("capacityType")),
            "nodeRepairConfig.enabled": (auto_repair, bool((answer.get("nodeRepairConfig") or {}).get("enabled"))),
            "scalingConfig.maxSize": (group.max_size, (answer.get("scalingConfig") or {}).get("maxSize")),
        }
        if group.kubernetes_version is not None:
            compared["version"] = (group.kubernetes_version, answer.get("version"))
        for key, (wanted, seen) in compared.items():
            if wanted != seen:
                found.append(
                    error(
                        "conform.nodegroup",
                        judge.expected.path(group.pool),
                        f"node group {group.name} of {where(group)}: {key} is {seen!r}, compiled as {wanted!r}",
                        "the node group drifted from the program: run `pulumi up` (or `pulumi refresh` to see who changed it)",
                        pool=group.pool,
                        node_group=group.name,
                        field=key,
                        expected=wanted,
                        observed=seen,
                    )
                )
    return found


def _daemonsets(judge: Judge) -> list[tuple[str, str, dict]]:
    """(namespace, name, annotations) of every DaemonSet in the folder."""
    found = []
    for item in (judge.evidence.get(DAEMONSETS) or {}).get("items") or []:
        metadata = item.get("metadata") or {}
        found.append((str(metadata.get("namespace") or ""), str(metadata.get("name") or ""), dict(metadata.get("annotations") or {})))
    return found


def check_daemonsets(judge: Judge) -> list[Finding]:
    """Each DaemonSet the design places is Ready on exactly the Ready nodes of its pools; and no NMA beside a GPU Operator host engine."""
    found = judge.not_checked("the DaemonSets", [NODES, DAEMONSETS, PODS], ("kubernetes",))
    if found:
        return found
    present = _daemonsets(judge)
    ready = observed.ready_pods(judge.evidence.get(PODS) or {})
    for want in judge.expected.daemonsets():
        pools = set(want.pools)
        path = judge.expected.path(sorted(pools)[0]) if len(pools) == 1 else ("kubernetes",)
        matched = [(namespace, name) for namespace, name, annotations in present if want.matches(namespace, name, annotations)]
        if not matched:
            message = f"the {want.label} DaemonSet is not in namespace {want.namespace}: pool(s) {_named(pools)} run without it"
            found.append(
                error(
                    "conform.daemonset", path, message, "run `pulumi up` on the Kubernetes layer's stack", daemonset=want.label, pools=sorted(pools)
                )
            )
        for namespace, name in matched:
            found += _placed_on(judge, want, f"{namespace}/{name}", ready.get((namespace, name), set()), path)
    return found + _dcgm_conflict(present)


def _placed_on(judge: Judge, want: DaemonSetWant, daemonset: str, running: set[str], path: tuple[str | int, ...]) -> list[Finding]:
    """One DaemonSet's Ready pods against the Ready nodes of its pools: the nodes it lacks (per pool), and (if exact) those outside."""
    pools = set(want.pools)
    by_pool: dict[str, set[str]] = {}
    for node in judge.nodes.values():
        if node.ready and (group := judge.group_of_node(node)) is not None and group.pool in pools:
            by_pool.setdefault(group.pool, set()).add(node.name)
    nodes = set().union(*by_pool.values())
    extra = (running & set(judge.nodes)) - nodes
    found = []
    # One finding per pool, at that pool's line: a DaemonSet serving several pools still names the pool whose node lacks it.
    for pool, members in sorted(by_pool.items()):
        lacking = members - running
        if lacking:
            found.append(
                error(
                    "conform.daemonset",
                    judge.expected.path(pool),
                    f"DaemonSet {daemonset} ({want.label}) has no Ready pod on {len(lacking)} node(s) of pool '{pool}': {listed(lacking)}",
                    "see the pod's events on those nodes (`kubectl describe pod`); its devices or metrics are missing there",
                    daemonset=daemonset,
                    pool=pool,
                    nodes=sorted(lacking),
                )
            )
    if extra and want.exact:
        found.append(
            warning(
                "conform.daemonset",
                path,
                f"DaemonSet {daemonset} ({want.label}) runs on node(s) outside pool(s) {_named(pools)}: {listed(extra)}",
                "its node affinity is wider than the design's: run `pulumi up` on the Kubernetes layer",
                daemonset=daemonset,
                nodes=sorted(extra),
            )
        )
    return found


def check_gates(judge: Judge) -> list[Finding]:
    """No Ready node of a gated pool still carries a gate's taint: what the gate waits for (LNet over EFA) never came up there."""
    gated = [group for group in judge.expected.groups if group.gates]
    if not gated:
        return []
    found = judge.not_checked("the node gates", [NODES])
    for group in gated if not found else []:
        for node in judge.ready_nodes(group):
            held = sorted(gate.taint_key for gate in group.gates if gate.taint_key in node.taint_keys)
            if held:
                found.append(
                    error(
                        "conform.gate-held",
                        judge.expected.path(group.pool),
                        f"node {node.name} ({node.instance_id}) of {where(group)} is still held behind {', '.join(held)}: no job can run on it",
                        "read the gate's file on the node (/run/railyard/gates/) and the railyard-node-gates pod's log there",
                        node=node.name,
                        gates=held,
                    )
                )
    return found


def _named(pools: set[str]) -> str:
    return ", ".join(f"'{pool}'" for pool in sorted(pools))


def _dcgm_conflict(present: list[tuple[str, str, dict]]) -> list[Finding]:
    """The node monitoring agent beside the GPU Operator's own DCGM host engine (aws/containers-roadmap#2555)."""
    agents = [f"{namespace}/{name}" for namespace, name, _ in present if name == NODE_MONITORING_AGENT]
    engines = [f"{namespace}/{name}" for namespace, name, _ in present if name == OPERATOR_HOST_ENGINE]
    if not (agents and engines):
        return []
    return [
        error(
            "conform.nma-dcgm-conflict",
            ("kubernetes", "addons", "node_monitoring_agent"),
            f"the EKS node monitoring agent ({agents[0]}) runs beside the GPU Operator's DCGM host engine ({engines[0]}): the agent can't reach "
            "DCGM, reports AcceleratedHardwareReady=False, and node auto repair replaces healthy nodes",
            "turn the GPU Operator's standalone DCGM off (`dcgm.enabled: false`) so the exporter uses the agent's, or turn the agent off",
            daemonsets=agents + engines,
        )
    ]


def check_kueue(judge: Judge) -> list[Finding]:
    """Each flavor's Topology exists with the plan's levels, and every level is a label on every Ready node of its pool."""
    kueue = judge.expected.plan.kubernetes.kueue
    if kueue is None:
        return []
    path = ("kubernetes", "topology_aware_scheduling")
    found = judge.not_checked("Kueue's Topologies", [NODES, KUEUE_TOPOLOGIES, KUEUE_FLAVORS], path)
    if found:
        return found
    topologies = {str((item.get("metadata") or {}).get("name")): item for item in (judge.evidence.get(KUEUE_TOPOLOGIES) or {}).get("items") or []}
    flavors = {str((item.get("metadata") or {}).get("name")) for item in (judge.evidence.get(KUEUE_FLAVORS) or {}).get("items") or []}
    for flavor in kueue.flavors:
        where_pool = judge.expected.path(flavor.pool)
        if flavor.name not in flavors:
            found.append(
                error(
                    "conform.kueue",
                    where_pool,
                    f"ResourceFlavor {flavor.name} of pool '{flavor.pool}' is not in the cluster",
                    "run `pulumi up` on the Kubernetes layer's stack",
                    flavor=flavor.name,
                )
            )
        topology = topologies.get(flavor.topology.name)
        levels = [str(level.get("nodeLabel")) for level in ((topology or {}).get("spec") or {}).get("levels") or []]
        if levels != list(flavor.topology.levels):
            found.append(
                error(
                    "conform.kueue",
                    where_pool,
                    f"Topology {flavor.topology.name} of pool '{flavor.pool}' has levels {levels or 'none (absent)'}, "
                    f"the plan {list(flavor.topology.levels)}",
                    "run `pulumi up` on the Kubernetes layer's stack",
                    expected=list(flavor.topology.levels),
                    observed=levels,
                )
            )
        found += _unlabelled(judge, flavor.pool, flavor.topology.name, flavor.topology.levels)
    return found


def _unlabelled(judge: Judge, pool: str, topology: str, levels: tuple[str, ...]) -> list[Finding]:
    """An error for each Ready node of `pool` that lacks one of a Topology's level labels."""
    found = []
    for group in (group for group in judge.expected.groups if group.pool == pool):
        for node in judge.ready_nodes(group):
            absent = [level for level in levels if level not in node.labels]
            if absent:
                found.append(
                    error(
                        "conform.kueue",
                        judge.expected.path(pool),
                        f"node {node.name} of {where(group)} lacks Topology {topology}'s level label(s) {', '.join(absent)}: "
                        "Kueue won't place topology-aware jobs on it",
                        "label the node (or replace it) so every level is set",
                        node=node.name,
                        missing=absent,
                    )
                )
    return found


def check_storage(judge: Judge) -> list[Finding]:
    """Each FSx for Lustre tier the pools mount is AVAILABLE, and every claim in the cluster is Bound."""
    tiers = [tier for tier in judge.expected.blueprint.storage if isinstance(tier, FsxLustre)]
    if not tiers:
        return []
    found = judge.not_checked("the file systems", [FILE_SYSTEMS, CLAIMS, VOLUMES], ("storage",))
    if found:
        return found
    systems = (judge.evidence.get(FILE_SYSTEMS) or {}).get("FileSystems") or []
    for index, tier in enumerate(judge.expected.blueprint.storage):
        if not isinstance(tier, FsxLustre):
            continue
        match = next((system for system in systems if _is_tier(system, tier, judge.expected.cluster)), None)
        if match is None:
            found.append(
                error(
                    "conform.fsx",
                    ("storage", index),
                    f"no FSx file system of tier '{tier.name}' is in the account",
                    "run `pulumi up`, or check the tier's `existing.id`",
                    tier=tier.name,
                )
            )
        elif match.get("Lifecycle") != "AVAILABLE":
            found.append(
                error(
                    "conform.fsx",
                    ("storage", index),
                    f"FSx {match.get('FileSystemId')} of tier '{tier.name}' is {match.get('Lifecycle')}, not AVAILABLE",
                    "see the file system's FailureDetails in the FSx console",
                    tier=tier.name,
                    observed=match.get("Lifecycle"),
                )
            )
    return found + _unbound(judge)


def _unbound(judge: Judge) -> list[Finding]:
    """An error for each claim not Bound and each volume Failed (its file system or its claim is gone)."""
    found = []
    for volume in (judge.evidence.get(VOLUMES) or {}).get("items") or []:
        name, phase = (volume.get("metadata") or {}).get("name"), (volume.get("status") or {}).get("phase")
        if phase == "Failed":
            found.append(
                error(
                    "conform.fsx",
                    ("storage",),
                    f"volume {name} is Failed: its claim can't bind to it",
                    "`kubectl describe pv` names the reason",
                    volume=name,
                    observed=phase,
                )
            )
    for claim in (judge.evidence.get(CLAIMS) or {}).get("items") or []:
        metadata, phase = claim.get("metadata") or {}, (claim.get("status") or {}).get("phase")
        if phase != "Bound":
            name = f"{metadata.get('namespace')}/{metadata.get('name')}"
            found.append(
                error(
                    "conform.fsx",
                    ("storage",),
                    f"claim {name} is {phase}, not Bound: pods that mount it stay Pending",
                    "`kubectl describe pvc` names the reason",
                    claim=name,
                    observed=phase,
                )
            )
    return found


def _is_tier(system: dict, tier: FsxLustre, cluster: str) -> bool:
    """True for the tier's file system: its existing id, else railyard's tags (the cluster's, and a Name ending in the tier)."""
    if tier.existing is not None:
        return bool(system.get("FileSystemId") == tier.existing.id)
    tags = {tag.get("Key"): tag.get("Value") for tag in system.get("Tags") or []}
    return tags.get("railyard:cluster") == cluster and str(tags.get("Name") or "").endswith(f"-{tier.name}")
