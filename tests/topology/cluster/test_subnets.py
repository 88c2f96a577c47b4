"""Subnet carving: inside the VPC, disjoint, aligned, big enough, deterministic (no Pulumi)."""

from ipaddress import IPv4Network

import pytest

from topology.cluster.errors import PlanError
from topology.cluster.subnets import SubnetDemand, carve_subnets


def demands(zones=("us-east-1a", "us-east-1b"), private_nodes=4, efa_nodes=(64,)):
    found = [SubnetDemand(f"public-{zone}", "public", zone) for zone in zones]
    found += [SubnetDemand(f"private-{zone}", "private", zone, private_nodes) for zone in zones]
    found += [SubnetDemand(f"efa-f{index}-z", "efa", zones[0], nodes, fabric=f"f{index}", zone="z") for index, nodes in enumerate(efa_nodes)]
    return found


CASES = [
    ("p5 in a /16", "10.0.0.0/16", demands()),
    ("16,384 nodes in a /16", "10.128.0.0/16", demands(efa_nodes=(16384,))),
    ("three fabrics in a /20", "10.1.0.0/20", demands(efa_nodes=(32, 16, 8))),
    ("smallest VPC", "10.2.0.0/24", demands(private_nodes=2, efa_nodes=(8,))),
]


@pytest.mark.parametrize(("case", "vpc", "wanted"), CASES, ids=[case[0] for case in CASES])
def test_subnets_fit_the_vpc_without_overlap_and_hold_their_nodes(case, vpc, wanted):
    network = IPv4Network(vpc)
    plans = carve_subnets(network, wanted)
    cidrs = [IPv4Network(plan.cidr) for plan in plans]
    assert [plan.key for plan in plans] == [demand.key for demand in wanted]
    assert all(cidr.subnet_of(network) for cidr in cidrs)
    assert not any(a.overlaps(b) for i, a in enumerate(cidrs) for b in cidrs[i + 1 :])
    for plan, cidr in zip(plans, cidrs, strict=True):
        assert cidr.num_addresses - 5 >= plan.nodes
        assert 16 <= cidr.num_addresses <= 65536


def test_16384_nodes_get_a_slash_17():
    plans = carve_subnets(IPv4Network("10.128.0.0/16"), demands(efa_nodes=(16384,)))
    assert next(plan for plan in plans if plan.kind == "efa").cidr == "10.128.0.0/17"


def test_node_subnets_hold_their_nodes_addresses_and_double_for_headroom_when_there_is_room():
    wanted = [SubnetDemand("efa-f0-z", "efa", "us-east-1a", 64, "f0", "z", 64 * 50)]  # 64 p5: 50 addresses each
    (plan,) = carve_subnets(IPv4Network("10.0.0.0/16"), wanted)
    assert IPv4Network(plan.cidr).num_addresses == 8192  # 3,200 + 5 -> 4,096, doubled once for headroom
    (tight,) = carve_subnets(IPv4Network("10.0.0.0/20"), wanted)
    assert IPv4Network(tight.cidr).num_addresses == 4096  # no room to double: exactly what it needs


def test_public_subnets_are_a_fixed_slash_27():
    plans = carve_subnets(IPv4Network("10.0.0.0/16"), demands())
    assert {plan.cidr.split("/")[1] for plan in plans if plan.public} == {"27"}


def test_carving_is_a_pure_function():
    assert carve_subnets(IPv4Network("10.0.0.0/16"), demands()) == carve_subnets(IPv4Network("10.0.0.0/16"), demands())


def test_a_vpc_too_small_is_refused_with_what_it_needs():
    with pytest.raises(PlanError, match=r"10.3.0.0/24 holds 256 addresses, but its 5 subnets need at least .*'efa-f0-z'"):
        carve_subnets(IPv4Network("10.3.0.0/24"), demands(efa_nodes=(300,)))
