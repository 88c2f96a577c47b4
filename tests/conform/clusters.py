"""Recorded folders of running clusters, written from small hand-made sketches and never from railyard's plan.

A `Sketch` says what a cluster that conforms to an example looks like in AWS's and Kubernetes' own
terms (node group names, labels, taints, interface layouts, DaemonSet names, network nodes), typed
here from the example blueprints and AWS's documentation, so a change in the planner makes these
tests disagree with it. `write_folder` turns a sketch into the files `railyard conform --from`
reads, shaped as the AWS CLI and kubectl print them; every AWS document is checked against
botocore's output shape for its operation, the check botocore's `Stubber` makes of a response.

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

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import botocore.session
from botocore.validate import ParamValidator

KUBE_LIST = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}}
HELM = "meta.helm.sh/release-name"


@dataclass(frozen=True)
class Group:
    """One node group of a sketched cluster, as AWS and Kubernetes show it."""

    pool: str
    node_group: str
    instance_type: str
    zone: str
    zone_id: str
    count: int
    efa_cards: tuple[int, ...]
    lifecycle: str | None
    reservation: str | None
    capacity_type: str
    devices: dict[str, str]
    labels: dict[str, str]
    taint: tuple[str, str, str]
    network: tuple[str, str]
    per_leaf: int
    ultraserver: int = 0
    id_prefix: str = "0a"
    # Taints the node group registers its nodes with that a DaemonSet lifts once the node is ready (railyard's node gates).
    gates: tuple[tuple[str, str, str], ...] = ()


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
    extra: dict[str, Any] = field(default_factory=dict)


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
            devices={"aws.amazon.com/neuron": "16", "aws.amazon.com/neuroncore": "128", "vpc.amazonaws.com/efa": "16"},
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
    """The node name EKS gives the group's `index`-th instance (its private DNS name)."""
    return f"ip-10-{int(group.id_prefix, 16)}-{index // 200}-{index % 200 + 10}.ec2.internal"


def block_of(group: Group, index: int) -> str | None:
    """The UltraServer (CapacityBlockId) of the group's `index`-th instance, for UltraServer types."""
    return f"cb-0{group.id_prefix}{index // group.ultraserver:014x}" if group.ultraserver else None


def _leaf(group: Group, index: int) -> str:
    return f"{group.network[1]}-leaf{index // group.per_leaf}"


def _instance(group: Group, index: int) -> dict[str, Any]:
    interfaces = [_interface(group, 0, 0, "interface")]
    interfaces += [_interface(group, card, 1 if card == 0 else 0, "efa-only") for card in group.efa_cards]
    found: dict[str, Any] = {
        "InstanceId": instance_id(group, index),
        "InstanceType": group.instance_type,
        "Placement": {"AvailabilityZone": group.zone, "AvailabilityZoneId": group.zone_id, "Tenancy": "default"},
        "State": {"Code": 16, "Name": "running"},
        "PrivateDnsName": node_name(group, index),
        "NetworkInterfaces": interfaces,
        "Tags": [{"Key": "eks:nodegroup-name", "Value": group.node_group}],
    }
    if group.lifecycle:
        found["InstanceLifecycle"] = group.lifecycle
    if group.reservation:
        found["CapacityReservationId"] = group.reservation
    return found


def _interface(group: Group, card: int, device: int, kind: str) -> dict[str, Any]:
    return {"InterfaceType": kind, "Attachment": {"DeviceIndex": device, "NetworkCardIndex": card, "Status": "attached"}, "Status": "in-use"}


def _node(group: Group, index: int) -> dict[str, Any]:
    labels = {
        **group.labels,
        "eks.amazonaws.com/nodegroup": group.node_group,
        "kubernetes.io/hostname": node_name(group, index),
        "node.kubernetes.io/instance-type": group.instance_type,
        "topology.kubernetes.io/zone": group.zone,
        "topology.k8s.aws/zone-id": group.zone_id,
    }
    labels.update(zip(LAYERS, (*group.network, _leaf(group, index)), strict=True))
    if group.ultraserver:
        labels["neuron.amazonaws.com/ultraserver-server-id-4"] = f"us-{index // 4}"
        labels["neuron.amazonaws.com/ultraserver-server-id-2"] = f"us-{index // 2}"
    key, value, _ = group.taint
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": node_name(group, index), "labels": labels},
        "spec": {"providerID": f"aws:///{group.zone}/{instance_id(group, index)}", "taints": [{"key": key, "value": value, "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "191450m", **group.devices}, "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]},
    }


def _aws(sketch: Sketch) -> dict[str, dict[str, Any]]:
    instances = [(group, index) for group in sketch.groups for index in range(group.count)]
    files: dict[str, dict[str, Any]] = {
        "ec2-describe-instances.json": {
            "Reservations": [
                {"ReservationId": f"r-0{group.id_prefix}{index:014x}", "Instances": [_instance(group, index)]} for group, index in instances
            ]
        },
        "ec2-describe-instance-topology.json": {
            "Instances": [
                {
                    "InstanceId": instance_id(group, index),
                    "InstanceType": group.instance_type,
                    "NetworkNodes": [*group.network, _leaf(group, index)],
                    "AvailabilityZone": group.zone,
                    "ZoneId": group.zone_id,
                    **({"CapacityBlockId": block_of(group, index)} if group.ultraserver else {}),
                }
                for group, index in instances
            ]
        },
        "ec2-describe-capacity-reservations.json": {
            "CapacityReservations": [
                {
                    "CapacityReservationId": group.reservation,
                    "InstanceType": group.instance_type,
                    "AvailabilityZone": group.zone,
                    "State": "active",
                    "ReservationType": "capacity-block",
                    "TotalInstanceCount": group.count,
                    "AvailableInstanceCount": 0,
                }
                for group in sketch.groups
                if group.reservation
            ]
        },
        "ec2-describe-capacity-block-status.json": {
            "CapacityBlockStatuses": [
                {
                    "CapacityBlockId": block,
                    "InterconnectStatus": "ok",
                    "TotalCapacity": group.ultraserver,
                    "TotalAvailableCapacity": 0,
                    "TotalUnavailableCapacity": 0,
                }
                for group in sketch.groups
                for block in sorted({block_of(group, index) for index in range(group.count)} - {None})
            ]
        },
        "eks-describe-cluster.json": {"cluster": {"name": sketch.cluster, "version": sketch.version, "status": "ACTIVE"}},
        "fsx-describe-file-systems.json": {
            "FileSystems": [
                {
                    "FileSystemId": fs_id,
                    "FileSystemType": "LUSTRE",
                    "Lifecycle": "AVAILABLE",
                    "Tags": [{"Key": "railyard:cluster", "Value": sketch.cluster}, {"Key": "Name", "Value": name}],
                }
                for fs_id, name in sketch.file_systems
            ]
        },
    }
    for group in sketch.groups:
        taints = [{"key": key, "value": value, "effect": effect} for key, value, effect in (group.taint, *group.gates)]
        files[f"eks-describe-nodegroup-{group.node_group}.json"] = {
            "nodegroup": {
                "nodegroupName": group.node_group,
                "clusterName": sketch.cluster,
                "version": sketch.version,
                "status": "ACTIVE",
                "capacityType": group.capacity_type,
                "scalingConfig": {"minSize": 0, "maxSize": group.count, "desiredSize": group.count},
                "labels": dict(group.labels),
                "taints": taints,
                "nodeRepairConfig": {"enabled": sketch.repair},
            }
        }
    return files


def _kubernetes(sketch: Sketch) -> dict[str, dict[str, Any]]:
    nodes = [(group, index) for group in sketch.groups for index in range(group.count)]
    daemonsets, pods = [], []
    for namespace, name, release in sketch.daemonsets:
        annotations = {HELM: release, "meta.helm.sh/release-namespace": namespace} if release else {"deprecated.daemonset.template.generation": "1"}
        daemonsets.append(
            {
                "apiVersion": "apps/v1",
                "kind": "DaemonSet",
                "metadata": {"name": name, "namespace": namespace, "annotations": annotations},
                "status": {"numberReady": len(nodes)},
            }
        )
        for group, index in nodes:
            pods.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": f"{name}-{index:05d}",
                        "namespace": namespace,
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": name, "controller": True}],
                    },
                    "spec": {"nodeName": node_name(group, index)},
                    "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
                }
            )
    topologies = [
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Topology",
            "metadata": {"name": name},
            "spec": {"levels": [{"nodeLabel": level} for level in levels]},
        }
        for name, levels in sketch.topologies.items()
    ]
    flavors = [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name}} for name in sketch.flavors]
    claims = [
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"}, "status": {"phase": "Bound"}}
        for name in sketch.claims
    ]
    volumes = [
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"fsx-{name}"}, "status": {"phase": "Bound"}} for name in sketch.claims
    ]
    return {
        "kubectl-get-nodes.json": {**KUBE_LIST, "items": [_node(group, index) for group, index in nodes]},
        "kubectl-get-daemonsets.json": {**KUBE_LIST, "items": daemonsets},
        "kubectl-get-pods.json": {**KUBE_LIST, "items": pods},
        "kubectl-get-topologies.json": {**KUBE_LIST, "items": topologies},
        "kubectl-get-resourceflavors.json": {**KUBE_LIST, "items": flavors},
        "kubectl-get-persistentvolumeclaims.json": {**KUBE_LIST, "items": claims},
        "kubectl-get-persistentvolumes.json": {**KUBE_LIST, "items": volumes},
    }


# The file -> (botocore service, operation) whose output shape it must satisfy.
AWS_OPERATIONS = {
    "ec2-describe-instances.json": ("ec2", "DescribeInstances"),
    "ec2-describe-instance-topology.json": ("ec2", "DescribeInstanceTopology"),
    "ec2-describe-capacity-reservations.json": ("ec2", "DescribeCapacityReservations"),
    "ec2-describe-capacity-block-status.json": ("ec2", "DescribeCapacityBlockStatus"),
    "eks-describe-cluster.json": ("eks", "DescribeCluster"),
    "fsx-describe-file-systems.json": ("fsx", "DescribeFileSystems"),
}


def model_errors(name: str, document: dict[str, Any]) -> str:
    """What botocore's validator finds wrong with `document` as the answer of its file's operation ('' when none)."""
    service, operation = AWS_OPERATIONS.get(name) or (("eks", "DescribeNodegroup") if name.startswith("eks-describe-nodegroup-") else (None, None))
    if service is None:
        return ""
    shape = botocore.session.get_session().get_service_model(service).operation_model(operation).output_shape
    report = ParamValidator().validate(document, shape)
    return report.generate_report() if report.has_errors() else ""


def documents(sketch: Sketch) -> dict[str, dict[str, Any]]:
    """Every file of the sketch's folder, by name."""
    return {**_aws(sketch), **_kubernetes(sketch)}


def write_folder(sketch: Sketch, folder: Path, change=None) -> Path:
    """Write the sketch's folder (after `change(documents)` edits them in place); every AWS file checked against botocore."""
    found = documents(sketch)
    if change is not None:
        change(found)
    folder.mkdir(parents=True, exist_ok=True)
    for name, document in found.items():
        problems = model_errors(name, document)
        assert not problems, f"{name}: {problems}"
        (folder / name).write_text(json.dumps(document, indent=4) + "\n", encoding="utf-8")
    return folder
