"""Node gates as laid out: which pools' nodes register behind a gate, where the gate keeper runs, and who must tolerate it.

A gated node (`topology.cluster.labels.NodeGate`) registers with the gate's
`NoSchedule` taint and keeps it until the node writes `ready` to the gate's
file. Jobs never tolerate it (Kueue's flavors leave gate taints out), but
what must run on the node *before* the gate opens has to: the device
plugins (the accelerators and EFA devices are advertised while the node is
held, so a later acceptance check can see them), the FSx CSI node plugin,
the metrics exporters, and the gate keeper itself, which lifts the taint.
EKS's own DaemonSet add-ons (the VPC CNI's aws-node, kube-proxy, the Pod
Identity agent, the node monitoring agent) tolerate every taint, so the node
gets its network either way.

`check_gates` refuses a layout where one of railyard's DaemonSets that must
run first does not tolerate a gate's taint on a gated node it selects
(`k8s.gate-untolerated`): its pods would wait for a gate that, for the
device plugins, would never open on their account.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from blueprints.findings import Finding, Path, error
from blueprints.records import record
from topology.cluster.labels import GATES, POOL_LABEL, NodeGate
from topology.cluster.scheduling import Match, NodeGroupView, Placement, Toleration

CODES = ("k8s.gate-untolerated",)
# The gate keeper runs under every taint a gated node carries, the accelerator's and the gates' own (as aws-node does).
EVERY_TAINT = Toleration("", "Exists")


@record
class GateLayout:
    """The gated pools, the gates they use, and the gate keeper's placement (None without gated pools)."""

    pools: tuple[str, ...] = ()
    gates: tuple[NodeGate, ...] = ()
    placement: Placement | None = None


def gates_of(view: NodeGroupView) -> tuple[NodeGate, ...]:
    """The gates a node group's nodes register behind, read off its taints."""
    keys = {taint.key for taint in view.taints}
    return tuple(gate for gate in GATES if gate.taint_key in keys)


def place_gate_keeper(views: Sequence[NodeGroupView]) -> GateLayout:
    """The gate keeper DaemonSet's placement: every node group with a gate, under every taint."""
    gated = [view for view in views if gates_of(view)]
    if not gated:
        return GateLayout()
    pools = tuple(dict.fromkeys(view.pool for view in gated))
    gates = tuple(gate for gate in GATES if any(gate in gates_of(view) for view in gated))
    return GateLayout(pools, gates, Placement({}, ((Match(POOL_LABEL, "In", pools),),), (EVERY_TAINT,)))


def check_gates(views: Sequence[NodeGroupView], first: Iterable[tuple[str, Placement | None, Path]]) -> Iterable[Finding]:
    """An error per DaemonSet that must run before a gate opens but doesn't tolerate the gate's taint on a node group it selects.

    `first` holds (what it is, its placement, the blueprint path a fix goes to) for each such DaemonSet.
    """
    for what, placement, path in first:
        if placement is None:
            continue
        for view in views:
            held = [gate.taint for gate in gates_of(view)]
            if not held or not placement.selects(view.all_labels()):
                continue
            for taint in placement.untolerated(tuple(held)):
                yield error(
                    "k8s.gate-untolerated",
                    path or ("pools", view.pool_index),
                    f"{what} doesn't tolerate the gate taint {taint.key}={taint.value}:{taint.effect} that nodes of pool '{view.pool}' "
                    "register with; it must run before the gate opens, so its pods would wait on nodes that never take work",
                    f"add {{key: {taint.key}, operator: Exists, effect: {taint.effect}}} to its tolerations, or remove `tolerations` to derive them",
                    node_group=view.name,
                    taint=f"{taint.key}={taint.value}:{taint.effect}",
                )
