"""The examples whose clusters are fleets: many node groups or hundreds of nodes, sketched by hand (see examples.py).

Alibaba's DCN+ and HPN and NVIDIA's DGX SuperPODs are modelled as labs on EC2 types whose backend
fabric is the design's own, not EFA, so their nodes carry only the primary interface; the inference
fleet serves without EFA; rail-131k's 16,384 nodes are generated, 1,024 per build block.
Network trees keep each pool within its fabric's `max_switch_hops` (worst hops 2(N - d) + 1 for
N layers and a deepest shared layer d): a bound of 3 over 3 layers puts the pool under one layer-2
node, over 4 layers under one layer-3 node; rail-131k's bound of 5 needs one layer-1 node.
"""

from __future__ import annotations

from tests.conform.clusters import LAYERS, Group, Sketch
from tests.conform.examples import DOMAIN, EFA_PLUGIN, FSX_NODE, GPU_TAINT, HOST, NVIDIA, P5EN_CARDS, P5EN_DEVICES, ZONE, labels


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
