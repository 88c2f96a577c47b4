"""A conforming cluster for every shipped example a team would deploy, sketched by hand (see clusters.py).

Each value is typed from its example blueprint (names, zones, node counts, reservation and file
system ids) and from AWS's documentation (accelerators, NeuronCores and EFA network cards per
type: the EC2 accelerated-computing specifications and the EFA "supported instance types" table;
which types `DescribeInstanceTopology` answers for and how many layers: ec2-instance-topology-
prerequisites), never read off railyard's plan. What the plan leaves to hashing (the Kueue
ResourceFlavor names) is written as the cluster shows it.

Availability Zone ids are account-specific; each sketch picks one mapping of its zone names.
Network trees are chosen to keep each pool within its fabric's `max_switch_hops`: a bound of 3 over
3 layers puts the pool under one layer-2 node, over 4 layers under one layer-3 node; rail-131k's
bound of 5 needs only one layer-1 node.
"""

from __future__ import annotations

from tests.conform.clusters import LAYERS, P5, TRN2U, Group, Sketch

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
            labels=labels("p5", "h100", "capacity-block", True, "az2"),
            taint=GPU_TAINT,
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


def _pods_of(pool: str, prefix: str, first: int, count: int, size: int, accelerator: str = "h100") -> tuple[Group, ...]:
    """`count` managed node groups of `size` p5 nodes named `<pool>-<prefix>NN`, each pod of the fabric under its own spine."""
    return tuple(
        Group(
            pool=pool,
            node_group=f"{pool}-{prefix}{number:02d}",
            instance_type="p5.48xlarge",
            zone="us-east-1a",
            zone_id="use1-az4",
            count=size,
            devices={"nvidia.com/gpu": "8"},
            labels=labels(pool, accelerator, "on-demand", False, f"{prefix}{number:02d}", eni_config=f"pods-{pool}-{prefix}{number:02d}"),
            taint=GPU_TAINT,
            network=("nn-ali-1", f"nn-ali-2-{prefix}{number:02d}"),
            id_prefix=f"{first + number:02x}",
        )
        for number in range(1, count + 1)
    )


DOMAIN_TOPOLOGY = {"domain-aws-network-3": (DOMAIN, *LAYERS, HOST)}
# Alibaba's DCN+ and HPN as labs on p5: their backend fabric is not EFA, so the nodes have only the primary interface.
DCN_PLUS = Sketch(
    blueprint="alibaba-dcn-plus.yaml",
    cluster="dcn-plus-lab",
    version="1.35",
    groups=_pods_of("train", "pod", 0x20, 32, 64),
    daemonsets=NVIDIA,
    topologies=DOMAIN_TOPOLOGY,
    flavors=("train-6d0f5f1c",),
)
HPN = Sketch(
    blueprint="alibaba-hpn-pod.yaml",
    cluster="hpn-lab",
    version="1.35",
    groups=(
        *_pods_of("train", "seg", 0x50, 15, 128),
        Group(
            pool="backup",
            node_group="backup-building",
            instance_type="p5.48xlarge",
            zone="us-east-1a",
            zone_id="use1-az4",
            count=120,
            devices={"nvidia.com/gpu": "8"},
            labels=labels("backup", "h100", "on-demand", False, "building", eni_config="pods-backup-building"),
            taint=GPU_TAINT,
            more_taints=(("railyard.dev/standby-for", "train", "NO_SCHEDULE"),),
            network=("nn-ali-1", "nn-ali-2-backup"),
            id_prefix="6f",
        ),
    ),
    daemonsets=NVIDIA,
    topologies=DOMAIN_TOPOLOGY,
    flavors=("train-6d0f5f1c",),
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


def _hall(instance_type: str, accelerator: str, count: int, network: tuple[str, ...], prefix: str) -> Group:
    """A DGX SuperPOD twin's one node group in us-east-1a (no EFA: its compute fabric is the design's own)."""
    return Group(
        pool="dgx",
        node_group="dgx-hall",
        instance_type=instance_type,
        zone="us-east-1a",
        zone_id="use1-az4",
        count=count,
        devices={"nvidia.com/gpu": "8"},
        labels=labels("dgx", accelerator, "on-demand", False, "hall"),
        taint=GPU_TAINT,
        network=network,
        per_leaf=32,
        id_prefix=prefix,
    )


B300 = Sketch(
    blueprint="dgx-b300-twin-plane.yaml",
    cluster="superpod-b300-lab",
    version="1.35",
    # p6-b300 has four network-node layers; a 3-hop bound keeps the pool under one layer-3 node.
    groups=(_hall("p6-b300.48xlarge", "b300", 256, ("nn-b3-1", "nn-b3-2", "nn-b3-3"), "16"),),
    daemonsets=NVIDIA,
    topologies={"aws-network-4": (*LAYERS, "topology.k8s.aws/network-node-layer-4", HOST)},
    flavors=("dgx-b2f9d9db",),
)
H100_SUPERPOD = Sketch(
    blueprint="dgx-h100-superpod.yaml",
    cluster="superpod-lab",
    version="1.35",
    groups=(_hall("p5.48xlarge", "h100", 127, ("nn-sp-1", "nn-sp-2"), "17"),),
    daemonsets=NVIDIA,
    topologies={"aws-network-3": (*LAYERS, HOST)},
    flavors=("dgx-070563ef",),
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
            devices={"aws.amazon.com/neuron": "16", "aws.amazon.com/neuroncore": "128", "vpc.amazonaws.com/efa": "16"},
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


def _serving(zone: str, zone_id: str, part: str, count: int, most: int, prefix: str) -> Group:
    """One of the inference fleet's g6e.12xlarge node groups (4 L40S each; no EFA)."""
    domain = f"usw2{zone[-1]}-b1"
    return Group(
        pool="serve",
        node_group=f"serve-{domain}-{part}",
        instance_type="g6e.12xlarge",
        zone=zone,
        zone_id=zone_id,
        count=count,
        max_size=most,
        devices={"nvidia.com/gpu": "4"},
        labels=labels("serve", "l40s", "on-demand", False, domain, "inference"),
        taint=GPU_TAINT,
        network=(f"nn-if-{zone[-1]}-1", f"nn-if-{zone[-1]}-2"),
        per_leaf=32,
        id_prefix=prefix,
    )


# 720 nodes as the blueprint desires, 360 a zone; a zone's second group (for the most above 450) stays empty.
INFERENCE = Sketch(
    blueprint="inference-fleet.yaml",
    cluster="serve-fleet-prod",
    version="1.35",
    groups=(
        _serving("us-west-2a", "usw2-az1", "01", 360, 450, "1e"),
        _serving("us-west-2a", "usw2-az1", "02", 0, 30, "1f"),
        _serving("us-west-2b", "usw2-az2", "01", 360, 450, "30"),
        _serving("us-west-2b", "usw2-az2", "02", 0, 30, "31"),
    ),
    daemonsets=NVIDIA,
    topologies={"zone-aws-network-3": (ZONE, *LAYERS, HOST)},
    flavors=("serve-9bbb10b3",),
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
# 16,384 p5en in 16 node groups of 1,024 (one per build block b01..b16), each block under its own
# layer-2 node and all under one layer-1 node (the rails fabric allows 5 hops: 2(3 - 1) + 1).
RAIL_131K = Sketch(
    blueprint="rail-131k.yaml",
    cluster="rail131k-prod",
    version="1.35",
    groups=tuple(
        Group(
            pool="frontier",
            node_group=f"frontier-b{block:02d}",
            instance_type="p5en.48xlarge",
            zone="us-east-1a",
            zone_id="use1-az4",
            count=1024,
            devices=P5EN_DEVICES,
            labels=labels("frontier", "h200", "on-demand", True, f"b{block:02d}", eni_config=f"pods-frontier-b{block:02d}"),
            taint=GPU_TAINT,
            efa_cards=P5EN_CARDS,
            gates=(("railyard.dev/lnet", "pending", "NO_SCHEDULE"),),
            network=("nn-rail-1", f"nn-rail-2-b{block:02d}"),
            per_leaf=64,
            id_prefix=f"{0x80 + block:02x}",
        )
        for block in range(1, 17)
    ),
    daemonsets=(*NVIDIA, EFA_PLUGIN, FSX_NODE, ("kube-system", "railyard-node-gates", None)),
    topologies=DOMAIN_TOPOLOGY,
    flavors=("frontier-72281142",),
    file_systems=(("fs-0dd44ee55ff660077", "rail131k-prod-storage-lustre"),),
    claims=("lustre",),
)

# Every shipped example a team would deploy (insecure.yaml shows what the checks refuse), by file.
EXAMPLES = {
    sketch.blueprint: sketch
    for sketch in (
        ADT,
        AI_ON_EKS,
        DCN_PLUS,
        HPN,
        DEV,
        B300,
        H100_SUPERPOD,
        EXISTING,
        HETEROGENEOUS,
        HYPERPOD,
        INFERENCE,
        P5,
        PCLUSTER,
        RAIL_131K,
        TRN2U,
    )
}
