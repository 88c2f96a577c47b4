"""A conforming cluster for the shipped examples of one to a few node groups, sketched by hand (see clusters.py).

clusters.py holds p5-capacity-block's and trn2-ultraserver's, fleets.py the clusters of many groups
or hundreds of nodes; together they cover every example a team would deploy.

Each value is typed from its example blueprint (names, zones, node counts, reservation and file
system ids) and from AWS's documentation (accelerators, NeuronCores and EFA network cards per
type: the EC2 accelerated-computing specifications and the EFA "supported instance types" table;
which types `DescribeInstanceTopology` answers for and how many layers: ec2-instance-topology-
prerequisites), never read off railyard's plan. What the plan leaves to hashing (the Kueue
ResourceFlavor names) is written as the cluster shows it.

Availability Zone ids are account-specific; each sketch picks one mapping of its zone names.
Network trees keep each pool within its fabric's `max_switch_hops` (fleets.py says how).
"""

from __future__ import annotations

from tests.conform.clusters import LAYERS, Group, Sketch

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
DOMAIN = "railyard.dev/failure-domain"
GPU_TAINT = ("nvidia.com/gpu", "true", "NO_SCHEDULE")
NEURON_TAINT = ("aws.amazon.com/neuron", "true", "NO_SCHEDULE")
# The NVIDIA device plugin, its DCGM exporter and the EKS node monitoring agent: what every GPU cluster runs.
NVIDIA = (
    ("nvidia-device-plugin", "nvidia-device-plugin", "nvidia-device-plugin"),
    ("dcgm-exporter", "dcgm-exporter", "dcgm-exporter"),
    ("kube-system", "eks-node-monitoring-agent", None),
)
EFA_PLUGIN = ("kube-system", "aws-efa-k8s-device-plugin", "aws-efa-k8s-device-plugin")
NEURON = (("kube-system", "neuron-device-plugin", "neuron-helm-chart"), ("kube-system", "neuron-monitor", None))
FSX_NODE = ("kube-system", "fsx-csi-node", None)
# Per instance type (EC2 accelerated-computing specifications; EFA network cards from the EFA supported-types table).
P5_DEVICES = {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"}
P5EN_DEVICES = {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "16"}
P5_CARDS, P5EN_CARDS = tuple(range(32)), tuple(range(16))


def labels(pool: str, accelerator: str, capacity: str, efa: bool, domain: str, role: str = "training", **more: str) -> dict[str, str]:
    """The labels railyard's blueprint gives a pool's nodes (NVIDIA pools also carry `nvidia.com/gpu.present`)."""
    found = {
        "railyard.dev/accelerator": accelerator,
        "railyard.dev/capacity": capacity,
        "railyard.dev/efa": "true" if efa else "false",
        DOMAIN: domain,
        "railyard.dev/pool": pool,
        "railyard.dev/role": role,
    }
    if accelerator not in ("trainium2", "inferentia2"):
        found["nvidia.com/gpu.present"] = "true"
    found.update({f"railyard.dev/{key.replace('_', '-')}": value for key, value in more.items()})
    return dict(sorted(found.items()))


ADT = Sketch(
    blueprint="adt-eks-capacity-block.yaml",
    cluster="adt-eks-prod",
    version="1.35",
    groups=(
        Group(
            pool="p5",
            node_group="p5-az2",
            instance_type="p5.48xlarge",
            zone="us-west-2b",
            zone_id="usw2-az2",
            count=8,
            devices=P5_DEVICES,
            # The pool is gated (pools[].acceptance): its group registers nodes pending, and each accepted node is relabelled.
            labels={**labels("p5", "h100", "capacity-block", True, "az2"), "railyard.dev/acceptance": "pending"},
            taint=GPU_TAINT,
            gates=(("railyard.dev/acceptance", "pending", "NO_SCHEDULE"),),
            efa_cards=P5_CARDS,
            lifecycle="capacity-block",
            reservation="cr-0c1d2e3f4a5b60789",
            capacity_type="CAPACITY_BLOCK",
            network=("nn-adt-1", "nn-adt-2"),
            per_leaf=8,
            id_prefix="11",
        ),
    ),
    daemonsets=(*NVIDIA, EFA_PLUGIN, FSX_NODE),
    topologies={"aws-network-3": (*LAYERS, HOST)},
    flavors=("p5-52342a7e",),
)

# The GPU Operator's operands, as its docs list them ("Verify the installation"); its own DCGM host engine is off.
OPERATOR = tuple(
    ("gpu-operator", name, None)
    for name in ("nvidia-device-plugin-daemonset", "nvidia-dcgm-exporter", "gpu-feature-discovery", "nvidia-operator-validator")
)
AI_ON_EKS = Sketch(
    blueprint="ai-on-eks.yaml",
    cluster="ai-on-eks-prod",
    version="1.35",
    groups=(
        Group(
            pool="train",
            node_group="train-usw2a-train",
            instance_type="p5.48xlarge",
            zone="us-west-2a",
            zone_id="usw2-az1",
            count=8,
            devices=P5_DEVICES,
            labels=labels("train", "h100", "capacity-block", True, "usw2a-train"),
            taint=GPU_TAINT,
            efa_cards=P5_CARDS,
            lifecycle="capacity-block",
            reservation="cr-0d4c3b2a190817263",
            capacity_type="CAPACITY_BLOCK",
            network=("nn-aie-1", "nn-aie-2"),
            per_leaf=8,
            id_prefix="12",
        ),
        # Karpenter launched two inference nodes in us-west-2a and one Inferentia node in us-west-2b, as pods asked.
        Group(
            pool="gpu-inference",
            node_group="gpu-inference-usw2a-serve",
            instance_type="g6e.12xlarge",
            zone="us-west-2a",
            zone_id="usw2-az1",
            count=2,
            devices={"nvidia.com/gpu": "4"},
            labels=labels("gpu-inference", "l40s", "on-demand", False, "usw2a-serve", "inference"),
            taint=GPU_TAINT,
            network=("nn-aie-1", "nn-aie-3"),
            id_prefix="13",
            karpenter=True,
        ),
        Group(
            pool="neuron-inference",
            node_group="neuron-inference-usw2b-serve",
            instance_type="inf2.24xlarge",
            zone="us-west-2b",
            zone_id="usw2-az2",
            count=1,
            devices={"aws.amazon.com/neuron": "6", "aws.amazon.com/neuroncore": "12"},
            labels=labels("neuron-inference", "inferentia2", "on-demand", False, "usw2b-serve", "inference"),
            taint=NEURON_TAINT,
            id_prefix="14",
            karpenter=True,
        ),
    ),
    daemonsets=(*OPERATOR, EFA_PLUGIN, *NEURON, FSX_NODE, ("kube-system", "eks-node-monitoring-agent", None)),
    topologies={
        "aws-network-3": (*LAYERS, HOST),
        "zone-aws-network-3": (ZONE, *LAYERS, HOST),
        "zone-hostname": (ZONE, HOST),
    },
    flavors=("train-3f4fbd61", "gpu-inference-1adb33cc", "neuron-inference-ba7b25e5"),
    file_systems=(("fs-0aa11bb22cc33dd44", "ai-on-eks-prod-storage-fsx"),),
    claims=("fsx",),
    placed={
        **{name: ("train", "gpu-inference") for _, name, _ in OPERATOR},
        "aws-efa-k8s-device-plugin": ("train",),
        "neuron-device-plugin": ("neuron-inference",),
        "neuron-monitor": ("neuron-inference",),
        "fsx-csi-node": ("train",),
    },
)


DEV = Sketch(
    blueprint="dev-g6e.yaml",
    cluster="devbox-dev",
    version="1.35",
    groups=(
        Group(
            pool="dev",
            node_group="dev-usw2a",
            instance_type="g6e.xlarge",
            zone="us-west-2a",
            zone_id="usw2-az1",
            count=1,
            devices={"nvidia.com/gpu": "1"},
            labels=labels("dev", "l40s", "on-demand", False, "usw2a", "dev"),
            taint=GPU_TAINT,
            network=("nn-dev-1", "nn-dev-2"),
            id_prefix="15",
        ),
    ),
    daemonsets=NVIDIA,
    topologies={"aws-network-3": (*LAYERS, HOST)},
    flavors=("dev-3cf8e921",),
)


EXISTING = Sketch(
    blueprint="existing-infrastructure.yaml",
    cluster="byo-prod",
    version="1.35",
    groups=(
        Group(
            pool="train",
            node_group="train-use2a",
            instance_type="p5en.48xlarge",
            zone="us-east-2a",
            zone_id="use2-az1",
            count=8,
            devices=P5EN_DEVICES,
            labels=labels("train", "h200", "on-demand", True, "use2a"),
            taint=GPU_TAINT,
            efa_cards=P5EN_CARDS,
            network=("nn-byo-1", "nn-byo-2"),
            id_prefix="18",
        ),
    ),
    daemonsets=(*NVIDIA, EFA_PLUGIN, FSX_NODE),
    topologies={"aws-network-3": (*LAYERS, HOST)},
    flavors=("train-3f4fbd61",),
    # The team's own file system (the blueprint's `existing.id`), untagged by railyard.
    file_systems=(("fs-0a1b2c3d4e5f60718", "team-lustre"),),
    claims=("lustre",),
)


def _inf2(zone: str, zone_id: str, prefix: str) -> Group:
    """One of heterogeneous's inf2.48xlarge serving groups: 4 of at most 8 (12 Inferentia2, 24 NeuronCores each)."""
    domain = f"use2{zone[-1]}-inf"
    return Group(
        pool="serve",
        node_group=f"serve-{domain}",
        instance_type="inf2.48xlarge",
        zone=zone,
        zone_id=zone_id,
        count=4,
        max_size=8,
        devices={"aws.amazon.com/neuron": "12", "aws.amazon.com/neuroncore": "24"},
        labels=labels("serve", "inferentia2", "on-demand", False, domain, "inference"),
        taint=NEURON_TAINT,
        id_prefix=prefix,
    )


HETEROGENEOUS = Sketch(
    blueprint="heterogeneous.yaml",
    cluster="hetero-prod",
    version="1.35",
    groups=(
        Group(
            pool="h200",
            node_group="h200-use2a-gpu",
            instance_type="p5en.48xlarge",
            zone="us-east-2a",
            zone_id="use2-az1",
            count=32,
            devices=P5EN_DEVICES,
            labels=labels("h200", "h200", "capacity-reservation", True, "use2a-gpu"),
            taint=GPU_TAINT,
            efa_cards=P5EN_CARDS,
            # An On-Demand Capacity Reservation: On-Demand instances (no InstanceLifecycle) in the reservation.
            reservation="cr-0123456789abcdef0",
            network=("nn-het-1", "nn-het-2"),
            id_prefix="19",
        ),
        Group(
            pool="trainium",
            node_group="trainium-use2b-trn",
            instance_type="trn2.48xlarge",
            zone="us-east-2b",
            zone_id="use2-az2",
            count=16,
            devices={"aws.amazon.com/neuron": "16", "aws.amazon.com/neuroncore": "64", "vpc.amazonaws.com/efa": "16"},  # 128 physical at LNC 2
            labels=labels("trainium", "trainium2", "on-demand", True, "use2b-trn"),
            taint=NEURON_TAINT,
            efa_cards=tuple(range(16)),
            network=("nn-het-1", "nn-het-3"),
            id_prefix="1a",
        ),
        _inf2("us-east-2a", "use2-az1", "1b"),
        _inf2("us-east-2b", "use2-az2", "1c"),
    ),
    daemonsets=(*NVIDIA, EFA_PLUGIN, *NEURON, FSX_NODE),
    topologies={"aws-network-3": (*LAYERS, HOST), "zone-hostname": (ZONE, HOST)},
    flavors=("h200-9036c64d", "trainium-f33ee5bc", "serve-948eb087"),
    file_systems=(("fs-0bb22cc33dd44ee55", "hetero-prod-storage-lustre"),),
    claims=("lustre",),
    placed={
        "nvidia-device-plugin": ("h200",),
        "dcgm-exporter": ("h200",),
        "aws-efa-k8s-device-plugin": ("h200", "trainium"),
        "neuron-device-plugin": ("trainium", "serve"),
        "neuron-monitor": ("trainium", "serve"),
        "fsx-csi-node": ("h200",),
    },
)
HYPERPOD = Sketch(
    blueprint="hyperpod-eks-odcr.yaml",
    cluster="hyperpod-prod",
    version="1.35",
    groups=(
        Group(
            pool="accelerated",
            node_group="accelerated-usw2a",
            instance_type="p5.48xlarge",
            zone="us-west-2a",
            zone_id="usw2-az1",
            count=16,
            devices=P5_DEVICES,
            labels=labels("accelerated", "h100", "reservation-group", True, "usw2a"),
            taint=GPU_TAINT,
            efa_cards=P5_CARDS,
            # Two On-Demand Capacity Reservations of 8, used through the group railyard makes.
            members=("cr-0a9b8c7d6e5f40001", "cr-0a9b8c7d6e5f40002"),
            network=("nn-hp-1", "nn-hp-2"),
            id_prefix="1d",
        ),
    ),
    daemonsets=(*NVIDIA, EFA_PLUGIN, FSX_NODE),
    topologies={"aws-network-3": (*LAYERS, HOST)},
    flavors=("accelerated-963f938e",),
    file_systems=(("fs-0cc33dd44ee55ff66", "hyperpod-prod-storage-fsx"),),
    claims=("fsx",),
)


PCLUSTER = Sketch(
    blueprint="parallelcluster-odcr.yaml",
    cluster="pcluster-prod",
    version="1.35",
    groups=(
        Group(
            pool="gpu-queue",
            node_group="gpu-queue-use1a",
            instance_type="p5en.48xlarge",
            zone="us-east-1a",
            zone_id="use1-az4",
            count=16,
            devices=P5EN_DEVICES,
            labels=labels("gpu-queue", "h200", "reservation-group", True, "use1a"),
            taint=GPU_TAINT,
            efa_cards=P5EN_CARDS,
            # The team's own reservation group (a group ARN in the blueprint): its one reservation, as EC2 names it.
            members=("cr-0f1e2d3c4b5a60010",),
            network=("nn-pc-1", "nn-pc-2"),
            id_prefix="32",
        ),
    ),
    daemonsets=(*NVIDIA, EFA_PLUGIN, FSX_NODE),
    topologies={"aws-network-3": (*LAYERS, HOST)},
    flavors=("gpu-queue-f3c11291",),
    file_systems=(("fs-0f1e2d3c4b5a69788", "pcluster-lustre"),),
    claims=("fsx",),
)


# p6e-gb200.36xlarge: 4 B200 GPUs, and the EFA layout AWS's guide gives for the full 1,600 Gbps, one EFA-only interface on
# each of network cards 1, 5, 9 and 13 (EFA configuration for P6e-GB200 instances), so 4 EFA devices a node (the EKS user
# guide, ml-eks-nvidia-ultraserver: "it is expected to see 4 allocatable EFA devices per node").
GB200_DEVICES = {"nvidia.com/gpu": "4", "vpc.amazonaws.com/efa": "4"}
GB200_CARDS = (1, 5, 9, 13)
# NVIDIA's DRA driver's kubelet plugin (chart nvidia-dra-driver-gpu at v25.12.0, templates/kubeletplugin.yaml: the DaemonSet
# `<chart name>-kubelet-plugin` in the release's namespace) on every node of the NVLink pool.
DRA_PLUGIN = ("nvidia-dra-driver-gpu", "nvidia-dra-driver-gpu-kubelet-plugin", "nvidia-dra-driver-gpu")
# Two u-p6e-gb200x72 UltraServers of 18 instances, in the Dallas Local Zone where AWS sells their blocks
# (CapacityBlockIds cb-...0 and cb-...1), each under its own leaf; GPU feature
# discovery (the GPU Operator's) labels each node with its UltraServer's NVLink clique.
GB200 = Sketch(
    blueprint="p6e-gb200-nvl72.yaml",
    cluster="gb200-prod",
    version="1.35",
    groups=(
        Group(
            pool="nvl72",
            node_group="nvl72-dfw",
            instance_type="p6e-gb200.36xlarge",
            zone="us-east-1-dfw-2a",
            zone_id="use1-dfw2-az1",
            count=36,
            devices=GB200_DEVICES,
            labels=labels("nvl72", "b200", "capacity-block", True, "dfw"),
            taint=GPU_TAINT,
            efa_cards=GB200_CARDS,
            lifecycle="capacity-block",
            reservation="cr-0b1c2d3e4f5a60719",
            capacity_type="CAPACITY_BLOCK",
            network=("nn-gb-1", "nn-gb-2"),
            per_leaf=18,
            ultraserver=18,
            id_prefix="7b",
        ),
    ),
    daemonsets=(*OPERATOR, EFA_PLUGIN, DRA_PLUGIN, ("kube-system", "eks-node-monitoring-agent", None)),
    topologies={"aws-network-3-clique": (*LAYERS, "nvidia.com/gpu.clique", HOST)},
    flavors=("nvl72-c93c3e31",),
    # The pool's ComputeDomain in the workload namespace, a job running on the first UltraServer's 18 nodes.
    compute_domains=(("default", "nvl72-nvlink", "nvl72", 18),),
    # The DRA driver chart's ComputeDomain controller (templates/controller.yaml at v25.12.0: `<chart name>-controller`).
    deployments=(("nvidia-dra-driver-gpu", "nvidia-dra-driver-gpu-controller"),),
)
