"""What the cluster says, read out of the evidence folder's documents into plain records.

Each reader takes the document exactly as the AWS CLI or kubectl printed it and keeps only what a
check compares. Missing keys read as absent (None, empty), never as an exception: the documents are
the account's, and a check reports what is absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from blueprints.records import record

NODEGROUP_TAG = "eks:nodegroup-name"
NODEGROUP_LABEL = "eks.amazonaws.com/nodegroup"


@record
class Interface:
    """One network interface of an instance: its network card, device index and type (`interface`, `efa`, `efa-only`)."""

    network_card_index: int
    device_index: int
    interface_type: str


@record
class Instance:
    """One EC2 instance as DescribeInstances gives it."""

    instance_id: str
    instance_type: str
    zone: str
    zone_id: str
    state: str
    lifecycle: str | None
    reservation_id: str | None
    capacity_block_id: str | None
    interfaces: tuple[Interface, ...]
    node_group: str | None


@record
class Node:
    """One Kubernetes node as `kubectl get nodes -o json` gives it."""

    name: str
    instance_id: str | None
    ready: bool
    labels: Mapping[str, str] = field(hash=False)
    allocatable: Mapping[str, str] = field(hash=False)
    taint_keys: frozenset[str] = frozenset()

    @property
    def pool(self) -> str | None:
        """The railyard pool the node's labels name."""
        return self.labels.get("railyard.dev/pool")

    @property
    def node_group(self) -> str | None:
        """The EKS managed node group the node's labels name."""
        return self.labels.get(NODEGROUP_LABEL)


@record
class Placed:
    """One instance's place in the network, as DescribeInstanceTopology gives it (network nodes top layer first)."""

    instance_id: str
    network_nodes: tuple[str, ...]
    capacity_block_id: str | None


def instances(document: Mapping[str, Any]) -> dict[str, Instance]:
    """The instances of a DescribeInstances answer, by id."""
    found: dict[str, Instance] = {}
    for reservation in document.get("Reservations") or []:
        for item in reservation.get("Instances") or []:
            tags = {tag.get("Key"): tag.get("Value") for tag in item.get("Tags") or []}
            interfaces = tuple(
                sorted(
                    (
                        Interface(
                            int((interface.get("Attachment") or {}).get("NetworkCardIndex") or 0),
                            int((interface.get("Attachment") or {}).get("DeviceIndex") or 0),
                            str(interface.get("InterfaceType") or "interface"),
                        )
                        for interface in item.get("NetworkInterfaces") or []
                    ),
                    key=lambda interface: (interface.network_card_index, interface.device_index),
                )
            )
            found[item["InstanceId"]] = Instance(
                instance_id=item["InstanceId"],
                instance_type=str(item.get("InstanceType") or ""),
                zone=str((item.get("Placement") or {}).get("AvailabilityZone") or ""),
                zone_id=str((item.get("Placement") or {}).get("AvailabilityZoneId") or ""),
                state=str((item.get("State") or {}).get("Name") or ""),
                lifecycle=item.get("InstanceLifecycle"),
                reservation_id=item.get("CapacityReservationId"),
                capacity_block_id=item.get("CapacityBlockId"),
                interfaces=interfaces,
                node_group=tags.get(NODEGROUP_TAG),
            )
    return found


def _instance_of(provider_id: str | None) -> str | None:
    """The instance id of an AWS providerID (`aws:///us-east-1a/i-0abc`)."""
    if not provider_id or not provider_id.startswith("aws://"):
        return None
    last = provider_id.rsplit("/", 1)[-1]
    return last if last.startswith("i-") else None


def nodes(document: Mapping[str, Any]) -> dict[str, Node]:
    """The nodes of a `kubectl get nodes -o json` list, by name."""
    found: dict[str, Node] = {}
    for item in document.get("items") or []:
        metadata, spec, status = item.get("metadata") or {}, item.get("spec") or {}, item.get("status") or {}
        ready = any(condition.get("type") == "Ready" and condition.get("status") == "True" for condition in status.get("conditions") or [])
        name = str(metadata.get("name") or "")
        taints = frozenset(str(taint.get("key")) for taint in spec.get("taints") or [])
        labels, allocatable = dict(metadata.get("labels") or {}), dict(status.get("allocatable") or {})
        found[name] = Node(name, _instance_of(spec.get("providerID")), ready, labels, allocatable, taints)
    return found


def placements(document: Mapping[str, Any]) -> dict[str, Placed]:
    """The instances of a DescribeInstanceTopology answer, by id (NetworkNodes empty for one not yet running)."""
    return {
        item["InstanceId"]: Placed(item["InstanceId"], tuple(item.get("NetworkNodes") or ()), item.get("CapacityBlockId"))
        for item in document.get("Instances") or []
    }


def ready_pods(document: Mapping[str, Any]) -> dict[tuple[str, str], set[str]]:
    """(namespace, DaemonSet name) -> the nodes where one of its pods is Ready."""
    found: dict[tuple[str, str], set[str]] = {}
    for item in document.get("items") or []:
        metadata, spec, status = item.get("metadata") or {}, item.get("spec") or {}, item.get("status") or {}
        owners = [owner.get("name") for owner in metadata.get("ownerReferences") or [] if owner.get("kind") == "DaemonSet"]
        ready = any(condition.get("type") == "Ready" and condition.get("status") == "True" for condition in status.get("conditions") or [])
        for owner in owners:
            nodes_of = found.setdefault((str(metadata.get("namespace") or ""), str(owner)), set())
            if ready and spec.get("nodeName"):
                nodes_of.add(str(spec["nodeName"]))
    return found
