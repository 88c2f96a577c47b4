"""railyard/conform/observed.py's readers on documents in the shapes the AWS CLI and kubectl print, whole and with keys
left out: an instance's interfaces in card and device order (a missing type read as a plain interface), its tags,
zone and market; a node's readiness (only a Ready condition that is True), its instance from the providerID (and
from none, another cloud's, or one that names no instance), labels, allocatable and taints; the topology API's
instances; and each DaemonSet's pods Ready on a node."""

from __future__ import annotations

import pytest

from railyard.conform import observed
from railyard.conform.observed import Instance, Interface, Node, Placed


def test_an_instance_is_read_whole_with_its_interfaces_in_card_then_device_order():
    document = {
        "Reservations": [
            {
                "Instances": [
                    {
                        "InstanceId": "i-0a",
                        "InstanceType": "p5.48xlarge",
                        "Placement": {"AvailabilityZone": "us-east-1a", "AvailabilityZoneId": "use1-az4"},
                        "State": {"Code": 16, "Name": "running"},
                        "InstanceLifecycle": "capacity-block",
                        "CapacityReservationId": "cr-0a",
                        "CapacityBlockId": "cb-0a",
                        "NetworkInterfaces": [
                            {"InterfaceType": "efa-only", "Attachment": {"NetworkCardIndex": 1, "DeviceIndex": 0}},
                            {"InterfaceType": "efa-only", "Attachment": {"NetworkCardIndex": 0, "DeviceIndex": 1}},
                            {"Attachment": {"DeviceIndex": 0}},
                        ],
                        "Tags": [{"Key": "Name", "Value": "x"}, {"Key": "eks:nodegroup-name", "Value": "train-use1a"}],
                    }
                ]
            },
            {"Instances": []},
            {},
        ]
    }
    assert observed.instances(document) == {
        "i-0a": Instance(
            "i-0a",
            "p5.48xlarge",
            "us-east-1a",
            "use1-az4",
            "running",
            "capacity-block",
            "cr-0a",
            "cb-0a",
            (Interface(0, 0, "interface"), Interface(0, 1, "efa-only"), Interface(1, 0, "efa-only")),
            "train-use1a",
        )
    }


def test_an_instance_with_only_its_id_reads_as_absent_facts():
    assert observed.instances({"Reservations": [{"Instances": [{"InstanceId": "i-0b", "NetworkInterfaces": [{}]}]}]}) == {
        "i-0b": Instance("i-0b", "", "", "", "", None, None, None, (Interface(0, 0, "interface"),), None)
    }


def test_no_reservations_is_no_instance():
    assert observed.instances({}) == {}
    assert observed.instances({"Reservations": None}) == {}


def _node(**item) -> Node:
    (found,) = observed.nodes({"items": [item]}).values()
    return found


def test_a_node_is_read_whole():
    item = {
        "metadata": {"name": "n-0", "labels": {"railyard.dev/pool": "train", "eks.amazonaws.com/nodegroup": "train-use1a"}},
        "spec": {"providerID": "aws:///us-east-1a/i-0abc", "taints": [{"key": "a", "effect": "NoSchedule"}, {"key": "b"}]},
        "status": {
            "allocatable": {"nvidia.com/gpu": "8"},
            "conditions": [{"type": "MemoryPressure", "status": "True"}, {"type": "Ready", "status": "True"}],
        },
    }
    found = _node(**item)
    assert found == Node("n-0", "i-0abc", True, item["metadata"]["labels"], {"nvidia.com/gpu": "8"}, frozenset({"a", "b"}))
    assert (found.pool, found.node_group) == ("train", "train-use1a")


@pytest.mark.parametrize(
    "conditions",
    [[{"type": "Ready", "status": "False"}], [{"type": "Ready", "status": "Unknown"}], [{"type": "MemoryPressure", "status": "True"}], []],
    ids=["false", "unknown", "another-condition-true", "none"],
)
def test_a_node_is_ready_only_when_its_ready_condition_is_true(conditions):
    assert _node(metadata={"name": "n"}, status={"conditions": conditions}).ready is False


@pytest.mark.parametrize(
    ("provider", "instance_id"),
    [
        ("aws:///us-east-1a/i-0abc", "i-0abc"),
        ("aws://us-east-1a/i-0def", "i-0def"),
        ("gce://project/zone/i-0abc", None),
        ("aws:///us-east-1a/fargate-ip-10-0-0-1", None),
        ("", None),
        (None, None),
    ],
    ids=["aws", "aws-two-slashes", "another-cloud", "fargate", "empty", "none"],
)
def test_a_nodes_instance_is_the_last_part_of_an_aws_provider_id_when_it_names_one(provider, instance_id):
    spec = {} if provider is None else {"providerID": provider}
    assert _node(metadata={"name": "n"}, spec=spec).instance_id == instance_id


def test_a_node_with_nothing_but_an_item_reads_as_empty():
    found = _node()
    assert found == Node("", None, False, {}, {}, frozenset())
    assert (found.pool, found.node_group) == (None, None)
    assert observed.nodes({}) == {}


def test_the_topology_apis_instances_are_read_with_their_network_nodes_and_block():
    document = {
        "Instances": [
            {"InstanceId": "i-0a", "NetworkNodes": ["nn-1", "nn-2", "nn-3"], "CapacityBlockId": "cb-a"},
            {"InstanceId": "i-0b"},
        ]
    }
    assert observed.placements(document) == {
        "i-0a": Placed("i-0a", ("nn-1", "nn-2", "nn-3"), "cb-a"),
        "i-0b": Placed("i-0b", (), None),
    }
    assert observed.placements({}) == {}


def _pod(name: str, namespace: str | None, owners: list[dict], on: str | None, ready: str) -> dict:
    metadata = {"name": name, "ownerReferences": owners, **({"namespace": namespace} if namespace else {})}
    spec = {"nodeName": on} if on else {}
    return {"metadata": metadata, "spec": spec, "status": {"conditions": [{"type": "Ready", "status": ready}]}}


def test_each_daemonsets_ready_pods_are_listed_by_node():
    plugin = [{"kind": "DaemonSet", "name": "plugin"}]
    document = {
        "items": [
            _pod("p-1", "kube-system", plugin, "n-1", "True"),
            _pod("p-2", "kube-system", plugin, "n-2", "False"),
            _pod("p-3", "kube-system", plugin, None, "True"),
            _pod("p-4", "kube-system", [{"kind": "ReplicaSet", "name": "web"}], "n-1", "True"),
            _pod("p-5", None, [{"kind": "DaemonSet", "name": "other"}], "n-3", "True"),
            _pod("p-6", "kube-system", [{"kind": "DaemonSet", "name": "quiet"}], "n-3", "False"),
            {"metadata": {"name": "p-7", "namespace": "kube-system"}},
        ]
    }
    assert observed.ready_pods(document) == {("kube-system", "plugin"): {"n-1"}, ("", "other"): {"n-3"}, ("kube-system", "quiet"): set()}
    assert observed.ready_pods({}) == {}
