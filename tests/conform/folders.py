"""A sketched cluster's recorded folder: the files `railyard conform --from` reads, as the AWS CLI and kubectl print them.

Every AWS document is checked against botocore's output shape for its operation, the check
botocore's `Stubber` makes of a response. Every folder also holds the cluster's system node group
(two m7i.xlarge, untainted, running only the node monitoring agent), as a real cluster does:
conform must judge the pools without tripping on it.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import botocore.session
import jsonschema
from botocore.validate import ParamValidator

from tests.conform.clusters import Group, Sketch, block_of, instance_id, network_nodes, node_name, pod_name, reservation_of, with_system

# A ComputeDomain's status as the CRD of the pinned chart gives it (nvidia-dra-driver-gpu v25.12.0; the file names its source).
COMPUTE_DOMAIN_STATUS = json.loads((Path(__file__).parent / "computedomain_status_v1beta1.schema.json").read_text(encoding="utf-8"))
KUBE_LIST = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}}
HELM = "meta.helm.sh/release-name"
# EKS's taint effects as Kubernetes writes them on the node (EKS API reference, Taint).
EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}
# The DaemonSets that run on every node, the system node group's too (EKS user guide, node-health: the agent add-on).
EVERYWHERE = {"eks-node-monitoring-agent"}
# The DaemonSets a chart renders beside its plugin's, in its release and namespace, that run on no node of
# railyard's: the NVIDIA device plugin chart's MPS control daemon waits for nvidia.com/mps.capable=true
# (NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin/templates/daemonset-mps-control-daemon.yml).
IDLE_COMPANIONS = {"nvidia-device-plugin": "nvidia-device-plugin-mps-control-daemon"}


ACCEPTANCE = "railyard.dev/acceptance"
"""The acceptance gate's label and taint key (docs/acceptance.md): `pending` on the node group, `passed` on an accepted node."""


def _taints(group: Group) -> tuple[tuple[str, str, str], ...]:
    return (*((group.taint,) if group.taint else ()), *group.more_taints)


def _runs_on(daemonset: str, pools: tuple[str, ...] | None, group: Group) -> bool:
    # The node monitoring agent add-on runs on every node; the others on the sketch's pools (all but the system group's).
    if daemonset in EVERYWHERE:
        return True
    return group.pool in pools if pools is not None else group.pool != "system"


def _tags(cluster: str, group: Group) -> list[dict[str, str]]:
    # EKS tags a managed node group's instances with the cluster's and the group's names; Karpenter v1 with its
    # NodePool, `eks:eks-cluster-name` and the cluster's ownership tag (Karpenter's v1 upgrade guide), not `eks:cluster-name`.
    if group.karpenter:
        keys = {"karpenter.sh/nodepool": group.pool, "eks:eks-cluster-name": cluster, f"kubernetes.io/cluster/{cluster}": "owned"}
    else:
        keys = {"eks:cluster-name": cluster, "eks:nodegroup-name": group.node_group}
    return [{"Key": key, "Value": value} for key, value in keys.items()]


def _instance(cluster: str, group: Group, index: int) -> dict[str, Any]:
    interfaces = [_interface(0, 0, "interface")]
    interfaces += [_interface(card, 1 if card == 0 else 0, "efa-only") for card in group.efa_cards]
    found: dict[str, Any] = {
        "InstanceId": instance_id(group, index),
        "InstanceType": group.instance_type,
        "Placement": {"AvailabilityZone": group.zone, "AvailabilityZoneId": group.zone_id, "Tenancy": "default"},
        "State": {"Code": 16, "Name": "running"},
        "PrivateDnsName": node_name(group, index),
        "NetworkInterfaces": interfaces,
        "Tags": _tags(cluster, group),
    }
    if group.lifecycle:
        found["InstanceLifecycle"] = group.lifecycle
    if reservation_of(group, index):
        found["CapacityReservationId"] = reservation_of(group, index)
    return found


def _interface(card: int, device: int, kind: str) -> dict[str, Any]:
    return {"InterfaceType": kind, "Attachment": {"DeviceIndex": device, "NetworkCardIndex": card, "Status": "attached"}, "Status": "in-use"}


def clique_of(group: Group, index: int) -> str:
    """GPU feature discovery's clique of a node: the NVLink fabric's cluster UUID and the clique id, one per UltraServer."""
    return f"5e0ba8a2-7cf1-4d3b-9a61-0c{int(group.id_prefix, 16):02x}d7e4f0a1.{index // group.ultraserver}"


def _node(group: Group, index: int) -> dict[str, Any]:
    labels = {
        **group.labels,
        "kubernetes.io/hostname": node_name(group, index),
        "node.kubernetes.io/instance-type": group.instance_type,
        "topology.kubernetes.io/zone": group.zone,
        "topology.k8s.aws/zone-id": group.zone_id,
    }
    labels["karpenter.sh/nodepool" if group.karpenter else "eks.amazonaws.com/nodegroup"] = group.pool if group.karpenter else group.node_group
    labels.update((f"topology.k8s.aws/network-node-layer-{layer}", nn) for layer, nn in enumerate(network_nodes(group, index), 1))
    if ACCEPTANCE in labels:  # a node that passed acceptance: the checker relabels it and lifts the gate's taint
        labels[ACCEPTANCE] = "passed"
    if group.ultraserver and "nvidia.com/gpu" in group.devices:
        labels["nvidia.com/gpu.clique"] = clique_of(group, index)
    elif group.ultraserver:
        labels["neuron.amazonaws.com/ultraserver-server-id-4"] = f"us-{index // 4}"
        labels["neuron.amazonaws.com/ultraserver-server-id-2"] = f"us-{index // 2}"
    taints = [{"key": key, "value": value, "effect": EFFECTS[effect]} for key, value, effect in _taints(group)]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": node_name(group, index), "labels": labels},
        "spec": {"providerID": f"aws:///{group.zone}/{instance_id(group, index)}", "taints": taints},
        "status": {"allocatable": {"cpu": "191450m", **group.devices}, "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]},
    }


def _reservations(sketch: Sketch) -> list[dict[str, Any]]:
    """Each capacity reservation the sketch's instances run in, with how many of them it holds."""
    held: dict[str, tuple[Group, int]] = {}
    for group in sketch.groups:
        for index in range(group.count):
            reservation = reservation_of(group, index)
            if reservation:
                held[reservation] = (group, held.get(reservation, (group, 0))[1] + 1)
    return [
        {
            "CapacityReservationId": reservation,
            "InstanceType": group.instance_type,
            "AvailabilityZone": group.zone,
            "State": "active",
            "ReservationType": "capacity-block" if group.lifecycle == "capacity-block" else "default",
            "TotalInstanceCount": count,
            "AvailableInstanceCount": 0,
        }
        for reservation, (group, count) in held.items()
    ]


def _aws(sketch: Sketch) -> dict[str, dict[str, Any]]:
    instances = [(group, index) for group in with_system(sketch) for index in range(group.count)]
    files: dict[str, dict[str, Any]] = {
        "ec2-describe-instances.json": {
            "Reservations": [
                {"ReservationId": f"r-0{group.id_prefix}{index:014x}", "Instances": [_instance(sketch.cluster, group, index)]}
                for group, index in instances
            ]
        },
        "ec2-describe-instance-topology.json": {
            "Instances": [
                {
                    "InstanceId": instance_id(group, index),
                    "InstanceType": group.instance_type,
                    "NetworkNodes": network_nodes(group, index),
                    "AvailabilityZone": group.zone,
                    "ZoneId": group.zone_id,
                    **({"CapacityBlockId": block_of(group, index)} if group.ultraserver else {}),
                }
                for group, index in instances
                if group.network
            ]
        },
        "ec2-describe-capacity-reservations.json": {"CapacityReservations": _reservations(sketch)},
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
    # `--record` asks EKS for the node groups railyard judges: not Karpenter's (there are none), not the system group.
    for group in sketch.groups:
        if not group.karpenter:
            files[f"eks-describe-nodegroup-{group.node_group}.json"] = _nodegroup(sketch, group)
    return files


def _nodegroup(sketch: Sketch, group: Group) -> dict[str, Any]:
    taints = [{"key": key, "value": value, "effect": effect} for key, value, effect in (*_taints(group), *group.gates)]
    most = group.count if group.max_size is None else group.max_size
    return {
        "nodegroup": {
            "nodegroupName": group.node_group,
            "clusterName": sketch.cluster,
            "version": sketch.version,
            "status": "ACTIVE",
            "capacityType": group.capacity_type,
            "scalingConfig": {"minSize": 0, "maxSize": most, "desiredSize": group.count},
            "labels": dict(group.labels),
            "taints": taints,
            "nodeRepairConfig": {"enabled": sketch.repair},
        }
    }


def _kubernetes(sketch: Sketch) -> dict[str, dict[str, Any]]:
    nodes = [(group, index) for group in with_system(sketch) for index in range(group.count)]
    daemonsets, pods = [], []
    for namespace, name, release in sketch.daemonsets:
        annotations = {HELM: release, "meta.helm.sh/release-namespace": namespace} if release else {"deprecated.daemonset.template.generation": "1"}
        pools = sketch.placed.get(name)
        placed = [(group, index) for group, index in nodes if _runs_on(name, pools, group)]
        daemonsets.append(
            {
                "apiVersion": "apps/v1",
                "kind": "DaemonSet",
                "metadata": {"name": name, "namespace": namespace, "annotations": annotations},
                "status": {"numberReady": len(placed)},
            }
        )
        if name in IDLE_COMPANIONS:
            companion = {**daemonsets[-1]["metadata"], "name": IDLE_COMPANIONS[name]}
            daemonsets.append({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": companion, "status": {"numberReady": 0}})
        pods += [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": pod_name(name, group, index),
                    "namespace": namespace,
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": name, "controller": True}],
                },
                "spec": {"nodeName": node_name(group, index)},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
            }
            for group, index in placed
        ]
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
        "kubectl-get-computedomains.json": {**KUBE_LIST, "items": [_compute_domain(sketch, *domain) for domain in sketch.compute_domains]},
        "kubectl-get-deployments.json": {**KUBE_LIST, "items": [_deployment(*deployment) for deployment in (COREDNS, *sketch.deployments)]},
        "kubectl-get-nodes.json": {**KUBE_LIST, "items": [_node(group, index) for group, index in nodes]},
        "kubectl-get-daemonsets.json": {**KUBE_LIST, "items": daemonsets},
        "kubectl-get-pods.json": {**KUBE_LIST, "items": pods},
        "kubectl-get-topologies.json": {**KUBE_LIST, "items": topologies},
        "kubectl-get-resourceflavors.json": {**KUBE_LIST, "items": flavors},
        "kubectl-get-persistentvolumeclaims.json": {**KUBE_LIST, "items": claims},
        "kubectl-get-persistentvolumes.json": {**KUBE_LIST, "items": volumes},
    }


# The EKS CoreDNS add-on: a Deployment of two replicas in kube-system (EKS user guide, managing-coredns).
COREDNS = ("kube-system", "coredns", 2)


def _deployment(namespace: str, name: str, replicas: int = 1) -> dict[str, Any]:
    """A Deployment as kubectl prints it, every replica Ready."""
    status = {"replicas": replicas, "readyReplicas": replicas, "availableReplicas": replicas, "updatedReplicas": replicas}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"replicas": replicas},
        "status": status,
    }


def _compute_domain(sketch: Sketch, namespace: str, name: str, pool: str, joined: int) -> dict[str, Any]:
    """A ComputeDomain as kubectl prints it once the driver's controller has reconciled it: Ready, with the IMEX daemons
    of a running job's nodes (the first `joined` of the pool's) each Ready in its node's clique. The shape is the EKS
    user guide's (ml-eks-nvidia-ultraserver @00e3293d: `status.nodes[]` of cliqueID, ipAddress, name, and `status: Ready`)
    with the per-node `index` and `status` the CRD at v25.12.0 adds; an idle domain has no nodes."""
    group = next(group for group in sketch.groups if group.pool == pool)
    nodes = [
        {
            "cliqueID": clique_of(group, index),
            "index": index % group.ultraserver,
            "ipAddress": f"10.0.{index // 250}.{index % 250 + 4}",
            "name": node_name(group, index),
            "status": "Ready",
        }
        for index in range(joined)
    ]
    return {
        "apiVersion": "resource.nvidia.com/v1beta1",
        "kind": "ComputeDomain",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"railyard.dev/pool": pool},
            "finalizers": ["resource.nvidia.com/computeDomain"],
            "uid": f"bb555a3a-a499-4c91-97a7-f07965c6{len(name):04x}",
        },
        "spec": {"channel": {"allocationMode": "Single", "resourceClaimTemplate": {"name": f"{name}-channel"}}, "numNodes": 0},
        "status": {"nodes": nodes, "status": "Ready"} if nodes else {"status": "Ready"},
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


@functools.cache
def _output_shape(service: str, operation: str) -> Any:
    # Loading a service model parses its whole JSON (EC2's is 3 MB): once per operation, not once per file.
    return botocore.session.get_session().get_service_model(service).operation_model(operation).output_shape


# A list longer than this is checked by its first and last CHECKED_ENDS items (botocore's validator walks every member:
# rail-131k's 16,384 instances took 72 s of that test's 130 s on 2 cores). Every example but rail-131k has shorter
# lists, so its folders, and the changes tests make to them, are checked whole; rail-131k's members come from the same
# code as theirs.
CHECKED_WHOLE = 256
CHECKED_ENDS = 64


def _ends(value: Any) -> Any:
    """`value` with every list longer than CHECKED_WHOLE cut to its first and last CHECKED_ENDS members, at any depth."""
    if isinstance(value, dict):
        return {key: _ends(member) for key, member in value.items()}
    if isinstance(value, list):
        kept = value if len(value) <= CHECKED_WHOLE else value[:CHECKED_ENDS] + value[-CHECKED_ENDS:]
        return [_ends(member) for member in kept]
    return value


def model_errors(name: str, document: dict[str, Any]) -> str:
    """What botocore's validator finds wrong with `document` as the answer of its file's operation ('' when none);
    a list longer than CHECKED_WHOLE is checked by its two ends."""
    service, operation = AWS_OPERATIONS.get(name) or (("eks", "DescribeNodegroup") if name.startswith("eks-describe-nodegroup-") else (None, None))
    if service is None:
        return ""
    report = ParamValidator().validate(_ends(document), _output_shape(service, operation))
    return report.generate_report() if report.has_errors() else ""


def find_node(documents: dict[str, dict[str, Any]], name: str) -> dict[str, Any]:
    """The node called `name` in a folder's documents."""
    return next(item for item in documents["kubectl-get-nodes.json"]["items"] if item["metadata"]["name"] == name)


def find_instance(documents: dict[str, dict[str, Any]], wanted: str) -> dict[str, Any]:
    """The instance `wanted` in a folder's documents."""
    return next(
        item
        for reservation in documents["ec2-describe-instances.json"]["Reservations"]
        for item in reservation["Instances"]
        if item["InstanceId"] == wanted
    )


def documents(sketch: Sketch) -> dict[str, dict[str, Any]]:
    """Every file of the sketch's folder, by name."""
    return {**_aws(sketch), **_kubernetes(sketch)}


def write_folder(sketch: Sketch, folder: Path, change=None, indent: int | None = 4) -> Path:
    """Write the sketch's folder (after `change(documents)` edits them in place); every AWS file checked against botocore.

    The AWS CLI and kubectl indent by 4; `indent=None` writes the same documents on one line, for a
    cluster so large (rail-131k: 16,384 nodes) that the indentation alone would be 150 MB.
    """
    found = documents(sketch)
    if change is not None:
        change(found)
    folder.mkdir(parents=True, exist_ok=True)
    for name, document in found.items():
        problems = model_errors(name, document)
        assert not problems, f"{name}: {problems}"
        for item in document.get("items") or [] if name == "kubectl-get-computedomains.json" else []:
            if "status" in item:
                jsonschema.validate(item["status"], COMPUTE_DOMAIN_STATUS)
        (folder / name).write_text(json.dumps(document, indent=indent) + "\n", encoding="utf-8")
    return folder
