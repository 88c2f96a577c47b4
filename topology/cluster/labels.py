"""The node labels and taints railyard puts on every accelerator node: a contract.

The compute layer sets them on managed node groups; the Kubernetes layer's
device-plugin selectors, tolerations and Kueue flavors name them; the
cross-layer check verifies that every label a selector names is set. Keeping
them in one pure module is what stops those layers drifting apart.
"""

from __future__ import annotations

from blueprints.catalog import InstanceType
from blueprints.models.pools import Pool
from blueprints.records import record

POOL_LABEL = "railyard.dev/pool"
ROLE_LABEL = "railyard.dev/role"
DOMAIN_LABEL = "railyard.dev/failure-domain"
ACCELERATOR_LABEL = "railyard.dev/accelerator"
CAPACITY_LABEL = "railyard.dev/capacity"
EFA_LABEL = "railyard.dev/efa"
# With CNI custom networking: the ENIConfig (pod subnet) a node's pods take addresses from (ENI_CONFIG_LABEL_DEF).
ENI_CONFIG_LABEL = "railyard.dev/eni-config"
NVIDIA_PRESENT_LABEL = "nvidia.com/gpu.present"

# Labels AWS (EKS and the cloud provider) set on every node by itself.
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ZONE_LABEL = "topology.kubernetes.io/zone"
HOSTNAME_LABEL = "kubernetes.io/hostname"
NETWORK_LAYER_LABEL = "topology.k8s.aws/network-node-layer-{}"

# Set by the Neuron device plugin (2.30.0.0 and later; the pinned Neuron chart 1.9.0 runs 2.31.0.0) on the
# nodes of a Trn2 UltraServer: one id shared by its 4 nodes, and one per 2-node half. Source: aws-neuron-sdk
# deploy/eks/ultraserver.rst at 3afa0fdf (prerequisites; "they should share the same ULTRASERVER_SERVER_ID_2
# or ULTRASERVER_SERVER_ID_4 label").
ULTRASERVER_LABEL = "neuron.amazonaws.com/ultraserver-server-id-{}"
ULTRASERVER_NODE_COUNTS = (4, 2)


# Set by NVIDIA's GPU feature discovery (deployed by the GPU Operator) on nodes whose GPUs share a multi-node NVLink
# domain, one value per domain: "Nodes within the same `nvidia.com/gpu.clique` have multi-node NVLink-reachability"
# (EKS user guide, ml-eks-nvidia-ultraserver, awsdocs/amazon-eks-user-guide@00e3293d).
NVLINK_CLIQUE_LABEL = "nvidia.com/gpu.clique"


def ultraserver_labels(instances_per_domain: int) -> tuple[str, ...]:
    """The UltraServer-id labels of a Neuron node whose NeuronLink domain spans `instances_per_domain` hosts, broadest first."""
    return tuple(ULTRASERVER_LABEL.format(count) for count in ULTRASERVER_NODE_COUNTS if instances_per_domain % count == 0)


NVIDIA_TAINT_KEY = "nvidia.com/gpu"
NEURON_TAINT_KEY = "aws.amazon.com/neuron"
# Hot spares (pools[].standby_for) run no job until an operator brings one into service: their nodes carry
# this NoSchedule taint, valued with the pool they stand in for, and Kueue gives their pool no quota.
STANDBY_TAINT_KEY = "railyard.dev/standby-for"
# A pool with `acceptance` starts its nodes under this taint, and labelled with it as `pending`: the checker DaemonSet
# selects pending nodes and, on a pass, lifts the taint and relabels the node `passed` (acceptance/kube.py), so its pod
# leaves and gives the node's devices back. Jobs never tolerate it; the node add-ons and device plugins must.
ACCEPTANCE_KEY = "railyard.dev/acceptance"
ACCEPTANCE_PENDING = "pending"


@record
class NodeTaint:
    """A taint in Kubernetes terms (`NoSchedule`); `eks_effect` gives the EKS API's spelling."""

    key: str
    value: str
    effect: str

    @property
    def eks_effect(self) -> str:
        """The EKS API's effect name (`NO_SCHEDULE`)."""
        return {"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE", "PreferNoSchedule": "PREFER_NO_SCHEDULE"}[self.effect]


# Node gates: a node registers with a gate's taint and keeps it until what the gate waits for is up on it. The
# node can't lift its own taint (NodeRestriction: "node %q is not allowed to modify taints"), so the node
# writes its verdict to a file under GATE_DIRECTORY and the railyard-node-gates DaemonSet, which tolerates
# every taint, lifts the taint when the file says `ready` and puts it back when it doesn't (a reboot, a
# failure later). The acceptance gate (issue 43) is the next gate of this kind.
GATE_DIRECTORY = "/run/railyard/gates"
GATE_PENDING = "pending"


@record
class NodeGate:
    """One gate: its name (the file under GATE_DIRECTORY the node writes) and the taint that holds work off until then."""

    name: str
    taint_key: str

    @property
    def taint(self) -> NodeTaint:
        """The NoSchedule taint a gated node registers with (`<key>=pending:NoSchedule`)."""
        return NodeTaint(self.taint_key, GATE_PENDING, "NoSchedule")

    @property
    def path(self) -> str:
        """The file the node writes: `ready`, or `failed: <why>`."""
        return f"{GATE_DIRECTORY}/{self.name}"


# FSx for Lustre over EFA: held until LNet runs on the planned number of EFA interfaces (components.plan.lustre_efa).
LNET_GATE = NodeGate("lnet", "railyard.dev/lnet")
GATES = (LNET_GATE,)
GATE_TAINT_KEYS = frozenset(gate.taint_key for gate in GATES)


ACCEPTANCE_TAINT = NodeTaint(ACCEPTANCE_KEY, ACCEPTANCE_PENDING, "NoSchedule")


def accelerator_slug(spec: InstanceType) -> str:
    """A label-safe name of the accelerator model: `h100`, `trainium2`, `l40s`."""
    if spec.accelerator is None:
        return "none"
    return "".join(ch if ch.isalnum() else "-" for ch in spec.accelerator.model.lower()).strip("-")


def node_labels(pool: Pool, spec: InstanceType, domain: str, efa: bool) -> dict[str, str]:
    """The labels a pool's node group in failure domain `domain` puts on its nodes.

    The pool's own labels come last, but can't replace railyard's (the
    blueprint rule set reports such a clash before we get here).
    `nvidia.com/gpu.present` is set on NVIDIA nodes because the NVIDIA device
    plugin's default affinity requires it and nodeadm sets it only from kubelet
    1.35 (aws-facts.md 5.1 and 4.4).
    """
    labels = dict(pool.labels)
    labels.update(
        {
            POOL_LABEL: pool.name,
            ROLE_LABEL: pool.role,
            DOMAIN_LABEL: domain,
            ACCELERATOR_LABEL: accelerator_slug(spec),
            CAPACITY_LABEL: pool.capacity.kind.replace("_", "-"),
            EFA_LABEL: "true" if efa else "false",
        }
    )
    if spec.accelerator is not None and spec.accelerator.vendor == "nvidia":
        labels[NVIDIA_PRESENT_LABEL] = "true"
    if pool.acceptance is not None:
        labels[ACCEPTANCE_KEY] = ACCEPTANCE_PENDING
    return dict(sorted(labels.items()))


def node_taints(pool: Pool, spec: InstanceType) -> list[NodeTaint]:
    """The taints on a pool's nodes: the accelerator's own key first, a standby pool's `railyard.dev/standby-for`, then the
    pool's, and last a gated pool's `railyard.dev/acceptance=pending` (last, so turning the gate on moves no other taint).

    GPU nodes carry `nvidia.com/gpu`, Neuron nodes `aws.amazon.com/neuron`
    (NoSchedule), the convention EKS's ExtendedResourceToleration admission
    controller and the vendors' charts expect (aws-facts.md 4.2).
    """
    taints: list[NodeTaint] = []
    if spec.accelerator is not None:
        key = NVIDIA_TAINT_KEY if spec.accelerator.vendor == "nvidia" else NEURON_TAINT_KEY
        taints.append(NodeTaint(key, "true", "NoSchedule"))
    if pool.standby_for is not None:
        taints.append(NodeTaint(STANDBY_TAINT_KEY, pool.standby_for, "NoSchedule"))
    for taint in pool.taints:
        if all(taint.key != existing.key for existing in taints):
            taints.append(NodeTaint(taint.key, taint.value, taint.effect))
    if pool.acceptance is not None and all(existing.key != ACCEPTANCE_KEY for existing in taints):
        taints.append(ACCEPTANCE_TAINT)
    return taints
