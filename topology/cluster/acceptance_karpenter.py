"""A failed node of a gated Karpenter pool: what Karpenter does with it, read from its source, and the warning that says so.

A gated Karpenter pool's nodes carry the acceptance taint as a NodePool startup taint (components/kubernetes/karpenter.py),
and `on_failure: replace` is refused there (`pool.acceptance-replace-karpenter`: no Auto Scaling group). A node that
fails is worse than held, read from Karpenter's source at the version railyard pins (kubernetes-sigs/karpenter v1.14.1,
the core aws/karpenter-provider-aws v1.14.1 builds on): it keeps its startup taint, so its NodeClaim never turns
Initialized (`pkg/controllers/nodeclaim/lifecycle/initialization.go`, reason `StartupTaintsExist`); the scheduler's
simulation drops the startup taints of a node that isn't initialized (`pkg/controllers/state/statenode.go`, `Taints`),
so pending pods that don't tolerate the acceptance taint are counted against the failed node and no node is launched
for them; liveness deletes only claims that never registered (`lifecycle/liveness.go`, 15 minutes); disruption passes
over uninitialized nodes (`pkg/controllers/disruption/helpers.go`); only expiry removes it, `expireAfter` after its
creation (`pkg/controllers/nodeclaim/expiration/controller.go`), and railyard's training pools never expire. So
`validate` warns on every gated Karpenter pool, naming when expiry would remove the node and the way to remove it now
(`acceptance.karpenter-held`); the node itself reports it (the `railyard.dev/Accepted=False` condition).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from blueprints.findings import Finding, warning
from blueprints.models import Blueprint
from topology.cluster.acceptance import AcceptanceGate

CODES = ("acceptance.karpenter-held",)


def expire_after(role: str) -> str:
    """The `expireAfter` of a Karpenter pool's NodePool: training nodes are never recycled under a job; others after 30 days."""
    return "Never" if role == "training" else "720h"


def karpenter_findings(blueprint: Blueprint, gates: Sequence[AcceptanceGate]) -> Iterable[Finding]:
    """A warning for each gated Karpenter pool: a node that fails keeps its startup taint, and Karpenter counts it as room."""
    for gate in gates:
        pool = blueprint.pools[gate.pool_index]
        if pool.provisioner != "karpenter":
            continue
        expiry = expire_after(pool.role)
        gone = "never: the pool's nodes don't expire" if expiry == "Never" else f"when it expires, {expiry} after launch"
        yield warning(
            "acceptance.karpenter-held",
            ("pools", gate.pool_index, "acceptance"),
            f"pool '{gate.pool}' is gated and provisioned by Karpenter: a node that fails acceptance keeps its startup taint, "
            "so Karpenter (v1.14.1) never marks it initialized, counts pending pods against it as if the taint would lift, and "
            f"launches no node for them; it removes the node {gone}. The node reports it (railyard.dev/Accepted=False)",
            "watch the condition and delete a failed node's NodeClaim (kubectl delete nodeclaim <name>): Karpenter then terminates "
            "the instance and launches another for the waiting pods; or run the pool on a managed node group with on_failure: replace",
            expire_after=expiry,
        )
