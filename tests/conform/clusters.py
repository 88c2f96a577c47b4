"""Recorded folders of running clusters, written from small hand-made sketches and never from railyard's plan.

A `Sketch` says what a cluster that conforms to an example looks like in AWS's and Kubernetes' own
terms (node group names, labels, taints, interface layouts, DaemonSet names, network nodes), typed
here from the example blueprints and AWS's documentation, so a change in the planner makes these
tests disagree with it; folders.py turns a sketch into the files `railyard conform --from` reads.
examples.py and fleets.py sketch the other examples.

The p5 cluster's network, as the sketch places it (3 layers, one spine over four leaves)::

        nn-p5-1
           |
        nn-p5-2
     /   |    |   \\
   leaf0 leaf1 leaf2 leaf3      16 p5.48xlarge under each

The trn2u cluster: 8 trn2u.48xlarge, two UltraServers of 4 (CapacityBlockIds cb-...a and cb-...b),
each UltraServer under its own leaf.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Group:
    """One node group of a sketched cluster, as AWS and Kubernetes show it."""

    pool: str
    node_group: str
    instance_type: str
    zone: str
    zone_id: str
    count: int
    devices: dict[str, str]
    labels: dict[str, str]
    taint: tuple[str, str, str] | None
    # The network cards with an `efa-only` interface (card 0's sits beside the primary ENA interface).
    efa_cards: tuple[int, ...] = ()
    lifecycle: str | None = None
    reservation: str | None = None
    # A reservation group's reservations: the group's `index`-th instance runs in members[index % len(members)].
    members: tuple[str, ...] = ()
    capacity_type: str = "ON_DEMAND"
    # The network nodes above each instance's leaf, layer 1 first; () for a type DescribeInstanceTopology doesn't answer for.
    network: tuple[str, ...] = ()
    per_leaf: int = 16
    ultraserver: int = 0
    id_prefix: str = "0a"
    # Taints the node group registers its nodes with that a DaemonSet lifts once the node is ready (railyard's node gates).
    gates: tuple[tuple[str, str, str], ...] = ()
    # The node group's most (its count when None).
    max_size: int | None = None
    # Launched by Karpenter: no managed node group, no `eks:nodegroup-name` tag or label.
    karpenter: bool = False
    # Taints beyond `taint` that the node group gives its nodes for good (a standby pool's).
    more_taints: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True, eq=False)
class Sketch:
    """A cluster that conforms: its EKS name, groups, DaemonSets ((namespace, name, Helm release)), Kueue objects and file systems."""

    blueprint: str
    cluster: str
    version: str
    groups: tuple[Group, ...]
    daemonsets: tuple[tuple[str, str, str | None], ...]
    topologies: dict[str, tuple[str, ...]]
    flavors: tuple[str, ...]
    file_systems: tuple[tuple[str, str], ...] = ()
    claims: tuple[str, ...] = ()
    repair: bool = True
    # The pools a DaemonSet runs on, by its name, where not every pool.
    placed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # NVIDIA DRA driver ComputeDomains ((namespace, name, pool, nodes joined)): a running job's IMEX daemons on the pool's first nodes.
    compute_domains: tuple[tuple[str, str, str, int], ...] = ()
    # Deployments beyond CoreDNS, which every EKS cluster runs ((namespace, name)), each with its one replica Ready.
    deployments: tuple[tuple[str, str], ...] = ()


LAYERS = tuple(f"topology.k8s.aws/network-node-layer-{layer}" for layer in (1, 2, 3))

P5 = Sketch(
    blueprint="p5-capacity-block.yaml",
    cluster="p5-train-prod",
    version="1.35",
    groups=(
        Group(
            pool="train",
            node_group="train-use1a",
            instance_type="p5.48xlarge",
            zone="us-east-1a",
            zone_id="use1-az4",
            count=64,
            efa_cards=tuple(range(32)),
            lifecycle="capacity-block",
            reservation="cr-0a1b2c3d4e5f60718",
            capacity_type="CAPACITY_BLOCK",
            devices={"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"},
            labels={
                "nvidia.com/gpu.present": "true",
                "railyard.dev/accelerator": "h100",
                "railyard.dev/capacity": "capacity-block",
                "railyard.dev/efa": "true",
                "railyard.dev/failure-domain": "use1a",
                "railyard.dev/pool": "train",
                "railyard.dev/role": "training",
            },
            taint=("nvidia.com/gpu", "true", "NO_SCHEDULE"),
            # The pool mounts FSx for Lustre over EFA: its nodes wait for LNet behind this taint.
            gates=(("railyard.dev/lnet", "pending", "NO_SCHEDULE"),),
            network=("nn-p5-1", "nn-p5-2"),
            per_leaf=16,
        ),
    ),
    daemonsets=(
        ("nvidia-device-plugin", "nvidia-device-plugin", "nvidia-device-plugin"),
        ("kube-system", "aws-efa-k8s-device-plugin", "aws-efa-k8s-device-plugin"),
        ("dcgm-exporter", "dcgm-exporter", "dcgm-exporter"),
        ("kube-system", "fsx-csi-node", None),
        ("kube-system", "eks-node-monitoring-agent", None),
        ("kube-system", "railyard-node-gates", None),
    ),
    topologies={"aws-network-3": (*LAYERS, "kubernetes.io/hostname")},
    flavors=("train-3f4fbd61",),
    file_systems=(("fs-0123456789abcdef0", "p5-train-prod-storage-lustre"),),
    claims=("lustre",),
)

TRN2U = Sketch(
    blueprint="trn2-ultraserver.yaml",
    cluster="trn2u-prod",
    version="1.35",
    groups=(
        Group(
            pool="ultra",
            node_group="ultra-az3",
            instance_type="trn2u.48xlarge",
            zone="us-east-2c",
            zone_id="use2-az3",
            count=8,
            efa_cards=tuple(range(16)),
            lifecycle="capacity-block",
            reservation="cr-0a1b2c3d4e5f60718",
            capacity_type="CAPACITY_BLOCK",
            devices={"aws.amazon.com/neuron": "16", "aws.amazon.com/neuroncore": "64", "vpc.amazonaws.com/efa": "16"},  # 128 physical at LNC 2
            labels={
                "railyard.dev/accelerator": "trainium2",
                "railyard.dev/capacity": "capacity-block",
                "railyard.dev/efa": "true",
                "railyard.dev/failure-domain": "az3",
                "railyard.dev/pool": "ultra",
                "railyard.dev/role": "training",
            },
            taint=("aws.amazon.com/neuron", "true", "NO_SCHEDULE"),
            network=("nn-trn-1", "nn-trn-2"),
            per_leaf=4,
            ultraserver=4,
            id_prefix="0b",
        ),
    ),
    daemonsets=(
        ("kube-system", "neuron-device-plugin", "neuron-helm-chart"),
        ("kube-system", "aws-efa-k8s-device-plugin", "aws-efa-k8s-device-plugin"),
        ("kube-system", "neuron-monitor", None),
        ("kube-system", "fsx-csi-node", None),
        ("kube-system", "eks-node-monitoring-agent", None),
    ),
    topologies={
        "aws-network-3-ultraserver": (
            *LAYERS,
            "neuron.amazonaws.com/ultraserver-server-id-4",
            "neuron.amazonaws.com/ultraserver-server-id-2",
            "kubernetes.io/hostname",
        )
    },
    flavors=("ultra-61761c37",),
)


def instance_id(group: Group, index: int) -> str:
    """The id of the group's `index`-th instance (17 hex digits, as EC2 writes them)."""
    return f"i-{group.id_prefix}{index:015x}"


def node_name(group: Group, index: int) -> str:
    """The node name EKS gives the group's `index`-th instance: its private DNS name (`ec2.internal` only in us-east-1)."""
    region = group.zone[:-1] if group.zone[-1].isalpha() else group.zone
    domain = "ec2.internal" if region == "us-east-1" else f"{region}.compute.internal"
    return f"ip-10-{int(group.id_prefix, 16)}-{index // 200}-{index % 200 + 10}.{domain}"


def pod_name(daemonset: str, group: Group, index: int) -> str:
    """The name of the DaemonSet's pod on the group's `index`-th node."""
    return f"{daemonset}-{group.id_prefix}{index:05d}"


def block_of(group: Group, index: int) -> str | None:
    """The UltraServer (CapacityBlockId) of the group's `index`-th instance, for UltraServer types."""
    return f"cb-0{group.id_prefix}{index // group.ultraserver:014x}" if group.ultraserver else None


def reservation_of(group: Group, index: int) -> str | None:
    """The capacity reservation the group's `index`-th instance runs in: its block or reservation, a group member, or none."""
    return group.reservation or (group.members[index % len(group.members)] if group.members else None)


def network_nodes(group: Group, index: int) -> list[str]:
    """The instance's `NetworkNodes`, layer 1 first: the group's upper layers, then its leaf ([] for a type without topology)."""
    return [*group.network, f"{group.network[-1]}-leaf{index // group.per_leaf}"] if group.network else []


def with_system(sketch: Sketch) -> tuple[Group, ...]:
    """The sketch's groups and the cluster's system node group: two m7i.xlarge in the first group's zone, untainted."""
    first = sketch.groups[0]
    system = Group(
        pool="system",
        node_group="system",
        instance_type="m7i.xlarge",
        zone=first.zone,
        zone_id=first.zone_id,
        count=2,
        devices={},
        labels={"railyard.dev/pool": "system", "railyard.dev/role": "system"},
        taint=None,
        id_prefix="fe",
    )
    return (*sketch.groups, system)
