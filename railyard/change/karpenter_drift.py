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


def _drifted(change: ResourceChange) -> list[str]:
    root, quiet = DRIFTS[change.type], NO_DRIFT[change.type]
    return sorted(
        {
            item.path
            for item in change.inputs
            if (item.path == root or item.path.startswith(root + ".")) and not any(item.path.startswith(path) for path in quiet)
        }
    )


def _per_wave(node_pool: PreviewResource, nodes: int) -> int:
    """Nodes Karpenter disrupts at once: the most restrictive budget, a percentage rounded up as Karpenter does."""
    budgets = (node_pool.inputs.get("spec", {}).get("disruption", {}) or {}).get("budgets") or [{"nodes": "10%"}]
    allowed = []
    for budget in budgets:
        text = str(budget.get("nodes", "10%"))
        allowed.append(math.ceil(nodes * int(text[:-1]) / 100) if text.endswith("%") else int(text))
    return max(1, min(allowed)) if nodes else 0


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
    found = []
    for pool in node_pools:
        if pool.urn not in reasons:
            continue
        name, nodes, per_node = _pool_size(pool, new)
        wave = _per_wave(pool, nodes)
        found.append(("karpenter-drift", f"pool {name}", {**wave_figures(nodes, per_node, wave), "because": sorted(reasons[pool.urn])}))
    return found
