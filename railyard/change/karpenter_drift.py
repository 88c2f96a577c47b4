"""Karpenter pools in a diff: a change Karpenter sees as drift replaces the pool's nodes, a budget at a time.

pulumi-kubernetes updates a NodePool or an EC2NodeClass in place, but Karpenter
then finds the nodes it made from them drifted and replaces them, at most the
NodePool's disruption budget at a time (`nodes: 10%` in railyard's pools, of
the nodes the pool has, rounded up). What drifts, from Karpenter's source:

* a NodePool's `spec.template`, hashed with `hash:"ignore"` on
  `spec.requirements` (which drift only when nodes no longer meet them, as
  railyard's single-valued requirements never do after a change) and
  `spec.resources` (kubernetes-sigs/karpenter `pkg/apis/v1/nodepool.go`,
  `nodeclaim.go`, `pkg/controllers/nodeclaim/disruption/drift.go`);
* an EC2NodeClass's `spec`, hashed with `hash:"ignore"` on the selector terms
  (checked instead against what they resolve to: AMI, subnet, security group,
  capacity reservation drift), `kubelet`, `ipPrefixCount` and `amiFamily`, none
  of which drift on their own (aws/karpenter-provider-aws
  `pkg/apis/v1/ec2nodeclass.go`, `pkg/cloudprovider/drift.go`).

A pool's node count isn't fixed under Karpenter, so the figures are for the
pool at its limit (`spec.limits.cpu` over the instance type's vCPUs).

Two changes drift nodes without touching the NodePool or EC2NodeClass:

* **The control plane's Kubernetes version.** An `amiSelectorTerms` alias
  (`al2023@v20260724`) resolves through the SSM parameter of the *cluster's*
  version: `/aws/service/eks/optimized-ami/<k8sVersion>/amazon-linux-2023/...`
  (aws/karpenter-provider-aws v1.14.1, bde00654,
  `pkg/providers/amifamily/al2023.go` `resolvePath`, with `k8sVersion` from
  `versionProvider.Get`, the API server's version, in `amifamily/ami.go`
  `DescribeImageQueries`). An upgrade gives the alias another AMI, and a node
  whose image is not among the class's AMIs is drifted (`AMIDrift`,
  `pkg/cloudprovider/drift.go` `isAMIDrifted`): every node of the pool is
  replaced, a budget at a time. A class that names its AMI by id doesn't move.
* **The budget** that paces it is the NodePool's `spec.disruption.budgets`
  (kubernetes-sigs/karpenter 6e7eab7a, the core v1.14.1 builds on:
  `pkg/apis/v1/nodepool.go` `GetAllowedDisruptionsByReason`, the smallest
  active budget, a percentage rounded up).

A lowered `spec.limits` replaces nothing: limits "define a set of bounds for
provisioning capacity" (`nodepool.go`), and the scheduler starts from them as
the room left (`pkg/controllers/provisioning/scheduling/scheduler.go`
`remainingResources`, `filterByRemainingResources`). So nodes above the new
limit keep running, but no node launches, new or a drift replacement, while
the pool is at or over it; the impact says how many nodes that leaves above.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from railyard.change.capacity import instance_spec, wave_figures
from railyard.change.compare import CREATE, DELETE, ResourceChange
from topology.cluster.labels import POOL_LABEL

if TYPE_CHECKING:
    from railyard.mocked import PreviewResource
    from railyard.pipeline import Validation

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
DRIFTS = {NODE_POOL: "spec.template", NODE_CLASS: "spec"}
NO_DRIFT = {NODE_POOL: ("spec.template.spec.resources",), NODE_CLASS: ("spec.kubelet", "spec.ipPrefixCount", "spec.amiFamily")}
CLUSTER = "aws:eks/cluster:Cluster"


def _drifted(change: ResourceChange) -> list[str]:
    root, quiet = DRIFTS[change.type], NO_DRIFT[change.type]
    return sorted(
        {
            item.path
            for item in change.inputs
            if (item.path == root or item.path.startswith(root + ".")) and not any(item.path.startswith(path) for path in quiet)
        }
    )


def _budgets(node_pool: PreviewResource) -> list[str]:
    """The NodePool's disruption budgets' `nodes` values (Karpenter's default is one budget of 10%)."""
    budgets = (node_pool.inputs.get("spec", {}).get("disruption", {}) or {}).get("budgets") or [{"nodes": "10%"}]
    return [str(budget.get("nodes", "10%")) for budget in budgets]


def _per_wave(node_pool: PreviewResource, nodes: int) -> int:
    """Nodes Karpenter disrupts at once: the most restrictive budget, a percentage rounded up as Karpenter does."""
    allowed = [math.ceil(nodes * int(text[:-1]) / 100) if text.endswith("%") else int(text) for text in _budgets(node_pool)]
    return max(1, min(allowed)) if nodes else 0


def _version_change(changes: list[ResourceChange]) -> tuple[str, str] | None:
    """(old, new) Kubernetes version of the control plane when the change moves it, else None."""
    for change in changes:
        if change.type == CLUSTER and change.old is not None and change.new is not None:
            before, after = change.old.inputs.get("version"), change.new.inputs.get("version")
            if before and after and before != after:
                return str(before), str(after)
    return None


def _aliases(node_class: PreviewResource) -> list[str]:
    """The AMI aliases an EC2NodeClass selects by (none when it names its AMIs by id)."""
    terms = node_class.inputs.get("spec", {}).get("amiSelectorTerms") or []
    return [str(term["alias"]) for term in terms if isinstance(term, dict) and term.get("alias")]


def _upgrade_reasons(changes: list[ResourceChange], resources: list[PreviewResource], by_class: dict) -> dict[str, set[str]]:
    """The NodePools whose class's AMI alias follows the control plane's version, when the change moves it (AMIDrift)."""
    moved = _version_change(changes)
    if moved is None:
        return {}
    reasons: dict[str, set[str]] = {}
    for node_class in resources:
        aliases = _aliases(node_class) if node_class.type == NODE_CLASS else []
        pool = by_class.get(node_class.inputs.get("metadata", {}).get("name"))
        if aliases and pool is not None:
            reasons.setdefault(pool.urn, set()).add(
                f"Kubernetes {moved[0]} -> {moved[1]}: EC2NodeClass alias {', '.join(aliases)} resolves to the new version's AMI (AMIDrift)"
            )
    return reasons


def lowered_limits(changes: list[ResourceChange], new: Validation) -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, subject, figures) per NodePool whose `spec.limits.cpu` goes down: nodes it leaves above the limit."""
    found = []
    for change in changes:
        if change.type != NODE_POOL or change.old is None or change.new is None:
            continue
        before = str(change.old.inputs.get("spec", {}).get("limits", {}).get("cpu", ""))
        after = str(change.new.inputs.get("spec", {}).get("limits", {}).get("cpu", ""))
        if not (before.isdigit() and after.isdigit()) or int(after) >= int(before):
            continue
        name, nodes_after, per_node = _pool_size(change.new, new)
        _, nodes_before, _ = _pool_size(change.old, new)
        figures = {"cpu_before": int(before), "cpu_after": int(after), "nodes": nodes_after, "nodes_before": nodes_before}
        found.append(("karpenter-limit", f"pool {name}", {**figures, "accelerators": nodes_after * per_node, "node_groups": 1}))
    return found


def _pool_size(node_pool: PreviewResource, validation: Validation) -> tuple[str, int, int]:
    """The pool's name, the nodes its limit allows, and accelerators per node."""
    labels = node_pool.inputs.get("spec", {}).get("template", {}).get("metadata", {}).get("labels", {})
    name = labels.get(POOL_LABEL, node_pool.name)
    spec = instance_spec(validation, name)
    if spec is None:
        return name, 0, 0
    cpu = str(node_pool.inputs.get("spec", {}).get("limits", {}).get("cpu", "0"))
    return name, int(cpu) // spec.vcpus if cpu.isdigit() else 0, spec.accelerator_count


def drift(changes: list[ResourceChange], resources: list[PreviewResource], new: Validation) -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, subject, figures) per NodePool whose nodes Karpenter will replace as drifted."""
    node_pools = [resource for resource in resources if resource.type == NODE_POOL]
    by_class = {pool.inputs.get("spec", {}).get("template", {}).get("spec", {}).get("nodeClassRef", {}).get("name"): pool for pool in node_pools}
    by_name = {pool.inputs.get("metadata", {}).get("name"): pool for pool in node_pools}
    reasons: dict[str, set[str]] = {}
    for change in changes:
        if change.type not in DRIFTS or change.action in (CREATE, DELETE) or change.new is None:
            continue
        paths = _drifted(change)
        name = change.new.inputs.get("metadata", {}).get("name")
        pool = by_name.get(name) if change.type == NODE_POOL else by_class.get(name)
        if paths and pool is not None:
            kind = "NodePool" if change.type == NODE_POOL else "EC2NodeClass"
            reasons.setdefault(pool.urn, set()).update(f"{kind} {path}" for path in paths)
    for urn, more in _upgrade_reasons(changes, resources, by_class).items():
        reasons.setdefault(urn, set()).update(more)
    found = []
    for pool in node_pools:
        if pool.urn not in reasons:
            continue
        name, nodes, per_node = _pool_size(pool, new)
        wave = _per_wave(pool, nodes)
        figures = {**wave_figures(nodes, per_node, wave), "because": sorted(reasons[pool.urn]), "budget": ", ".join(_budgets(pool))}
        found.append(("karpenter-drift", f"pool {name}", figures))
    return found + lowered_limits(changes, new)


def karpenter_worded(kind: str, figures: dict[str, Any], across: str) -> str:
    """A Karpenter pool's impact in words: nodes drifted and replaced a budget at a time, or a limit lowered."""
    nodes, accelerators = figures["nodes"], figures["accelerators"]
    if kind == "karpenter-limit":
        above = figures["nodes_before"] - nodes
        return (
            f"NodePool limit lowered{across}: cpu {figures['cpu_before']} -> {figures['cpu_after']}, {figures['nodes_before']} -> {nodes} "
            f"nodes ({accelerators} accelerators) at the limit; Karpenter removes no running node for it, but launches none (new or a "
            f"drift replacement) while the pool is at or over it, so up to {above} nodes may run above it until they go on their own"
        )
    return (
        f"Karpenter replaces drifted nodes{across} ({'; '.join(figures['because'])}): every node of the pool, up to {nodes} nodes "
        f"({accelerators} accelerators) at its limit, {figures['nodes_per_wave']} at a time ({figures['accelerators_per_wave']} "
        f"accelerators), the NodePool's disruption budget (nodes: {figures['budget']})"
    )
