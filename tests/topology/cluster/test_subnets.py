"""Subnet layout: inside the blocks, disjoint, aligned, big enough, and never moved once pinned (no Pulumi)."""

import json
from ipaddress import IPv4Network
from pathlib import Path

import pytest

from topology.cluster.address_space import AddressSpace
from topology.cluster.errors import PlanError
from topology.cluster.legacy_layout import legacy_layout
from topology.cluster.subnets import SubnetDemand, lay_out_subnets, smallest_size

LEGACY_FIXTURE = Path(__file__).parent / "fixtures" / "subnets_a5a8388.json"


def demands(zones=("us-east-1a", "us-east-1b"), private_nodes=4, efa_nodes=(64,)):
    found = [SubnetDemand(f"public-{zone}", "public", zone) for zone in zones]
    found += [SubnetDemand(f"private-{zone}", "private", zone, private_nodes) for zone in zones]
    found += [SubnetDemand(f"efa-f{index}-z", "efa", zones[0], nodes, fabric=f"f{index}", zone="z") for index, nodes in enumerate(efa_nodes)]
    return found


def cidrs(plans):
    return {plan.key: IPv4Network(plan.cidr) for plan in plans}


CASES = [
    ("p5 in a /16", "10.0.0.0/16", demands()),
    ("16,384 nodes in a /16", "10.128.0.0/16", demands(efa_nodes=(16384,))),
    ("three fabrics in a /20", "10.1.0.0/20", demands(efa_nodes=(32, 16, 8))),
    ("smallest VPC", "10.2.0.0/24", demands(private_nodes=2, efa_nodes=(8,))),
]


@pytest.mark.parametrize(("case", "vpc", "wanted"), CASES, ids=[case[0] for case in CASES])
def test_subnets_fit_the_vpc_aligned_without_overlap_and_hold_their_nodes(case, vpc, wanted):
    network = IPv4Network(vpc)
    plans = lay_out_subnets([network], wanted)
    found = list(cidrs(plans).values())
    assert [plan.key for plan in plans] == [demand.key for demand in wanted]
    assert all(cidr.subnet_of(network) for cidr in found)
    assert not any(a.overlaps(b) for i, a in enumerate(found) for b in found[i + 1 :])
    for plan, cidr in zip(plans, found, strict=True):
        assert cidr.num_addresses - 5 >= plan.nodes
        assert int(cidr.network_address) % cidr.num_addresses == 0


def test_16384_nodes_get_a_slash_17():
    plans = lay_out_subnets([IPv4Network("10.128.0.0/16")], demands(efa_nodes=(16384,)))
    assert cidrs(plans)["efa-f0-z"] == IPv4Network("10.128.0.0/17")


def test_new_subnets_grow_toward_eight_times_their_need_and_leave_a_quarter_of_the_vpc_free():
    wanted = [SubnetDemand("efa-f0-z", "efa", "us-east-1a", 64, "f0", "z", 64 * 50)]  # 64 p5: 50 addresses each
    (plan,) = lay_out_subnets([IPv4Network("10.0.0.0/16")], wanted)
    assert IPv4Network(plan.cidr).num_addresses == 32768  # 3,205 -> 4,096 at least; 8 x 3,200 -> 32,768
    (tight,) = lay_out_subnets([IPv4Network("10.0.0.0/20")], wanted)
    assert IPv4Network(tight.cidr).num_addresses == 4096  # a /19 would leave less than a quarter of the /20 free: what it needs


def test_zones_of_one_pool_grow_alike():
    plans = lay_out_subnets([IPv4Network("10.0.0.0/16")], demands(private_nodes=2640 // 12, efa_nodes=(96,)))
    sizes = cidrs(plans)
    assert sizes["private-us-east-1a"].num_addresses == sizes["private-us-east-1b"].num_addresses


def test_public_subnets_are_a_fixed_slash_27():
    plans = lay_out_subnets([IPv4Network("10.0.0.0/16")], demands())
    assert {plan.cidr.split("/")[1] for plan in plans if plan.public} == {"27"}


def test_layout_is_a_pure_function():
    assert lay_out_subnets([IPv4Network("10.0.0.0/16")], demands()) == lay_out_subnets([IPv4Network("10.0.0.0/16")], demands())


def test_a_vpc_too_small_is_refused_with_what_it_needs():
    with pytest.raises(PlanError, match=r"10.3.0.0/24\) have 256 addresses free, but the 5 subnets to place need at least .*'efa-f0-z'"):
        lay_out_subnets([IPv4Network("10.3.0.0/24")], demands(efa_nodes=(300,)))


def test_a_pinned_subnet_keeps_its_range_when_its_neighbours_grow():
    vpc = [IPv4Network("10.0.0.0/16")]
    first = cidrs(lay_out_subnets(vpc, demands()))
    pins = dict(first)
    grown = cidrs(lay_out_subnets(vpc, demands(private_nodes=40, efa_nodes=(200,)), pins))
    assert grown == first


def test_a_new_subnet_takes_free_space_and_moves_no_pinned_one():
    vpc = [IPv4Network("10.0.0.0/16")]
    pins = cidrs(lay_out_subnets(vpc, demands()))
    added = cidrs(lay_out_subnets(vpc, demands(efa_nodes=(64, 16)), pins))
    assert {key: added[key] for key in pins} == pins
    assert not any(added["efa-f1-z"].overlaps(cidr) for cidr in pins.values())


def test_a_pinned_subnet_too_small_names_the_ways_that_move_nothing():
    vpc = [IPv4Network("10.0.0.0/16")]
    pins = cidrs(lay_out_subnets(vpc, demands()))
    with pytest.raises(PlanError, match=r"subnet 'efa-f0-z' is pinned at 10\.0\.0\.0/22 and holds 1019 addresses, but its 40000 nodes") as raised:
        lay_out_subnets(vpc, demands(efa_nodes=(40000,)), pins)
    assert raised.value.path == ("cloud", "subnet_cidrs", "efa-f0-z")
    assert "prefix_delegation" in str(raised.value) and "drop the pin" in str(raised.value)


def test_pins_outside_the_blocks_or_overlapping_are_refused():
    vpc = [IPv4Network("10.0.0.0/16")]
    with pytest.raises(PlanError, match=r"pinned at 10\.9\.0\.0/24, outside the VPC blocks \(10\.0\.0\.0/16\)"):
        lay_out_subnets(vpc, demands(), {"private-us-east-1a": IPv4Network("10.9.0.0/24")})
    with pytest.raises(PlanError, match="overlaps another pinned subnet"):
        lay_out_subnets(vpc, demands(), {"private-us-east-1a": IPv4Network("10.0.0.0/20"), "private-us-east-1b": IPv4Network("10.0.8.0/21")})


def test_address_space_places_the_lowest_aligned_free_range():
    space = AddressSpace([IPv4Network("10.0.0.0/24")])
    space.take(IPv4Network("10.0.0.16/28"))
    assert space.place(16) == (0, IPv4Network("10.0.0.0/28"))
    assert space.place(64) == (0, IPv4Network("10.0.0.64/26"))  # 10.0.0.32/26 is not aligned on 64
    assert space.place(32) == (0, IPv4Network("10.0.0.32/27"))
    assert space.place(256) is None


def test_smallest_size_counts_the_five_addresses_aws_reserves():
    assert smallest_size(SubnetDemand("private-a", "private", "a", 11)) == 16
    assert smallest_size(SubnetDemand("private-a", "private", "a", 12)) == 32


def test_the_legacy_layout_reproduces_what_a5a8388_planned_for_every_example():
    """`railyard lock --layout legacy` can only adopt a deployed cluster if it gives back the ranges the old plan chose.

    The fixture was written by the planner at a5a8388 (before pins), for every example and the dev stack.
    """
    from blueprints.catalog import load_catalog
    from blueprints.loader import load_blueprint
    from railyard.address_lock import pins_of
    from railyard.stack import read_stack
    from topology.cluster import plan_cluster

    recorded = json.loads(LEGACY_FIXTURE.read_text())["subnets"]
    project = Path(__file__).resolve().parents[3]
    for name, expected in recorded.items():
        if name.startswith("Pulumi."):
            settings = read_stack(project, "dev")
            blueprint = load_blueprint(str(settings.blueprint), settings.overrides).blueprint
        else:
            blueprint = load_blueprint(str(project / name)).blueprint
        assert blueprint is not None
        assert pins_of(plan_cluster(blueprint, load_catalog(), layout="legacy").subnets) == expected, name


def test_the_legacy_layout_packs_largest_first_from_the_start():
    plans = legacy_layout([IPv4Network("10.0.0.0/16")], demands(), spread=False)
    assert cidrs(plans)["efa-f0-z"] == IPv4Network("10.0.0.0/24")  # 64 addresses: a /25, doubled toward twice that, packed first
    assert cidrs(plans)["public-us-east-1a"] == IPv4Network("10.0.1.0/27")
