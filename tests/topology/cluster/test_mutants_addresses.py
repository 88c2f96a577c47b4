"""topology/cluster/addresses.py's arithmetic, every figure worked out by hand from the module's formulas (the VPC CNI's
misc/eni-max-pods.txt and the EKS AMI's max-pods calculator): each pod-networking mode with and without pods_per_node,
each warm target alone and both, a warm target of 0 (set, not absent), the prefix cap exactly at 30 vCPUs and one past,
ENIs in use capped by the node's, and custom networking on a node with no ENI left for pods."""

from __future__ import annotations

import pytest

from blueprints.models.kubernetes import PodNetworking
from topology.cluster.addresses import NodeAddresses, cni_enis, default_max_pods, max_pods, node_addresses


def networking(mode: str = "secondary_ips", **settings: int) -> PodNetworking:
    blocks = {"pod_cidrs": ["100.64.0.0/16"]} if mode == "custom_networking" else {}
    return PodNetworking.model_validate({"mode": mode, **blocks, **settings})


@pytest.mark.parametrize(
    ("card_zero", "efa_only", "enis"), [(2, 1, 1), (4, 1, 3), (1, 1, 1), (2, 2, 1), (3, 0, 3)], ids=["p5", "p5en", "one-slot", "all-efa", "no-efa"]
)
def test_the_cni_uses_card_zeros_slots_less_its_efa_only_interfaces_and_always_the_primary(card_zero, efa_only, enis):
    assert cni_enis(card_zero, efa_only) == enis


@pytest.mark.parametrize(
    ("enis", "ipv4", "vcpus", "mode", "pods"),
    [
        (2, 50, 192, "secondary_ips", 2 * 49 + 2),
        (2, 50, 192, "custom_networking", 1 * 49 + 2),
        (1, 4, 8, "prefix_delegation", 1 * 3 * 16 + 2),
        (3, 10, 30, "prefix_delegation", 110),
        (3, 10, 31, "prefix_delegation", 250),
        (1, 10, 31, "prefix_delegation", 1 * 9 * 16 + 2),
        (1, 50, 4, "custom_networking", 2),
    ],
    ids=["secondary", "custom", "prefix-under-cap", "prefix-30-vcpus", "prefix-31-vcpus", "prefix-under-250", "custom-one-eni"],
)
def test_the_cnis_pod_limit_per_mode(enis, ipv4, vcpus, mode, pods):
    assert max_pods(enis, ipv4, vcpus, mode) == pods


def test_the_default_max_pods_counts_every_card_zero_slot_and_knows_nothing_of_custom_networking():
    assert default_max_pods(2, 50, 192, "secondary_ips") == 100
    assert default_max_pods(2, 50, 192, "custom_networking") == 100
    assert default_max_pods(4, 50, 192, "custom_networking") == 198
    assert default_max_pods(2, 50, 192, "prefix_delegation") == 250
    assert default_max_pods(1, 4, 8, "prefix_delegation") == 50


@pytest.mark.parametrize(
    ("args", "settings", "expected"),
    [
        # p5: one CNI ENI of 50 addresses, every one held (WARM_ENI_TARGET=1); 2 card-0 slots for the default max-pods.
        ((1, 50, 192, "secondary_ips", 2), {}, NodeAddresses(50, 0, 51, 51, 1, 49, 100)),
        # p5en with 20 pods: still every address of its 3 ENIs; the kubelet's limit is the pods and the 2 host-network pods.
        ((3, 50, 192, "secondary_ips", 4), {"pods_per_node": 20}, NodeAddresses(150, 0, 20, 22, 3, 147, 198)),
        # warm 5 over 20 pods: 25 held, and one ENI primary address.
        ((3, 50, 192, "secondary_ips", 4), {"pods_per_node": 20, "warm_ip_target": 5}, NodeAddresses(26, 0, 20, 22, 3, 147, 198)),
        # a minimum of 40 over 20 + 5: 40 held.
        (
            (3, 50, 192, "secondary_ips", 4),
            {"pods_per_node": 20, "warm_ip_target": 5, "minimum_ip_target": 40},
            NodeAddresses(41, 0, 20, 22, 3, 147, 198),
        ),
        # a minimum alone, of 0: the pods' own addresses.
        ((3, 50, 192, "secondary_ips", 4), {"pods_per_node": 10, "minimum_ip_target": 0}, NodeAddresses(11, 0, 10, 12, 3, 147, 198)),
        # a warm target of 0 is set: held = pods.
        ((3, 50, 192, "secondary_ips", 4), {"pods_per_node": 10, "warm_ip_target": 0}, NodeAddresses(11, 0, 10, 12, 3, 147, 198)),
        # 60 addresses wanted over 2 ENIs of 49 secondaries: 60 held, over 2 ENIs' primaries.
        ((2, 50, 192, "secondary_ips", None), {"pods_per_node": 55, "warm_ip_target": 5}, NodeAddresses(62, 0, 55, 57, 2, 98, 100)),
        # 200 wanted, but 3 ENIs hold 147: capped, with 3 primaries.
        ((3, 50, 192, "secondary_ips", 4), {"pods_per_node": 190, "warm_ip_target": 10}, NodeAddresses(150, 0, 190, 192, 3, 147, 198)),
        # custom networking: the node keeps one address; pods take 2 ENIs' addresses (all but the primary) in their own subnet.
        ((3, 50, 192, "custom_networking", 4), {}, NodeAddresses(1, 100, 100, 100, 2, 98, 198)),
        ((3, 50, 192, "custom_networking", 4), {"pods_per_node": 30, "warm_ip_target": 2}, NodeAddresses(1, 33, 30, 32, 2, 98, 198)),
        # custom networking on a node whose only CNI ENI is the primary: no pod address, 2 host-network pods.
        ((1, 50, 192, "custom_networking", None), {}, NodeAddresses(1, 0, 2, 2, 0, 0, 51)),
        # prefixes: 250 pods in 16 /28s and a spare one, on one ENI.
        ((1, 50, 192, "prefix_delegation", 2), {}, NodeAddresses(1 + 17 * 16, 0, 250, 250, 1, 248, 250)),
        # prefixes under warm targets: 48 held, 3 prefixes, no spare.
        ((1, 50, 192, "prefix_delegation", 2), {"pods_per_node": 40, "warm_ip_target": 8}, NodeAddresses(1 + 3 * 16, 0, 40, 42, 1, 248, 250)),
        # 8 prefixes over ENIs of 3 slots: 3 ENIs.
        ((3, 4, 8, "prefix_delegation", None), {}, NodeAddresses(3 + 8 * 16, 0, 110, 110, 3, 108, 110)),
        # 8 prefixes would take 3 ENIs, but the node has 2.
        ((2, 4, 8, "prefix_delegation", None), {}, NodeAddresses(2 + 8 * 16, 0, 98, 98, 2, 96, 98)),
        # one prefix under warm targets takes one ENI of the 3.
        ((3, 50, 192, "prefix_delegation", None), {"pods_per_node": 10, "warm_ip_target": 0}, NodeAddresses(1 + 1 * 16, 0, 10, 12, 3, 248, 250)),
        # 100 pods: 7 prefixes and the spare.
        ((1, 50, 192, "prefix_delegation", None), {"pods_per_node": 100}, NodeAddresses(1 + 8 * 16, 0, 100, 102, 1, 248, 250)),
    ],
    ids=[
        "p5",
        "p5en-20-pods",
        "warm",
        "minimum-over-warm",
        "minimum-0-alone",
        "warm-0",
        "warm-over-one-eni",
        "warm-capped",
        "custom",
        "custom-warm",
        "custom-one-eni",
        "prefix",
        "prefix-warm",
        "prefix-3-enis",
        "prefix-enis-capped",
        "prefix-one-of-3-enis",
        "prefix-100-pods",
    ],
)
def test_the_addresses_a_node_takes(args, settings, expected):
    enis, ipv4, vcpus, mode, card_zero = args
    assert node_addresses(enis, ipv4, vcpus, networking(mode, **settings), card_zero) == expected
