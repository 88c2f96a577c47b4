"""The subnet plan's verdicts at their edges: a pin whose subnet is gone, sizes exactly at a subnet's limits and one
past them, and two demands sharing one existing subnet (issue 53's survivors of topology/cluster/subnets.py)."""

from __future__ import annotations

from ipaddress import IPv4Network

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from railyard.pipeline import validate
from tests.blueprints.base import BASE
from tests.properties import examples
from tests.yaml_text import replace_once
from topology.cluster.errors import PlanError
from topology.cluster.subnets import SubnetDemand, lay_out_subnets, moved_pins, place_in_existing, smallest_size, unused_pins


def test_a_pin_for_a_subnet_the_plan_no_longer_has_is_a_warning_at_the_pin(tmp_path):
    path = tmp_path / "testbed.yaml"
    path.write_text(replace_once(BASE, "  vpc_cidr: 10.0.0.0/16\n", "  vpc_cidr: 10.0.0.0/16\n  subnet_cidrs: {private-retired: 10.0.240.0/24}\n"))
    (finding,) = [f for f in validate(str(path)).findings if f.code == "compile.pin-unused"]
    assert (finding.severity, finding.path) == ("warning", ("cloud", "subnet_cidrs", "private-retired"))
    assert (
        finding.message
        == "subnet_cidrs pins 'private-retired' at 10.0.240.0/24, but the plan has no such subnet: nothing uses it any more, so it is deleted"
    )
    assert finding.hint.startswith("drop the pin once the subnet is gone (`railyard lock --write` rewrites the pins); planned subnets: ")


def test_a_pin_the_plan_still_has_is_not_unused():
    assert unused_pins({}, []) == []
    (finding,) = unused_pins({"private-a": IPv4Network("10.0.0.0/24"), "private-b": IPv4Network("10.0.1.0/24")}, [_Plan("private-a")])
    assert finding.path == ("cloud", "subnet_cidrs", "private-b")
    assert finding.hint.endswith("planned subnets: private-a")


class _Plan:
    def __init__(self, key: str) -> None:
        self.key = key


def _existing(cidr: str = "10.0.0.0/28") -> list[tuple[str, str, IPv4Network]]:
    return [("subnet-0a", "us-east-1a", IPv4Network(cidr)), ("subnet-0b", "us-east-1b", IPv4Network("10.0.16.0/20"))]


def test_two_demands_sharing_one_existing_subnet_are_counted_together_exactly_to_its_room():
    # A /28 holds 16 - 5 = 11 addresses: 6 + 5 fit exactly, the second demand is placed in the same subnet.
    demands = [SubnetDemand("private-a", "private", "us-east-1a", 6), SubnetDemand("efa-f0-z", "efa", "us-east-1a", 5, "f0", "z")]
    plans = place_in_existing(_existing(), demands)
    assert [(plan.key, plan.existing_id, plan.cidr, plan.addresses) for plan in plans] == [
        ("private-a", "subnet-0a", "10.0.0.0/28", 6),
        ("efa-f0-z", "subnet-0a", "10.0.0.0/28", 5),
    ]


def test_one_address_past_an_existing_subnets_room_is_refused_naming_the_sum():
    demands = [SubnetDemand("private-a", "private", "us-east-1a", 6), SubnetDemand("efa-f0-z", "efa", "us-east-1a", 6, "f0", "z")]
    with pytest.raises(PlanError) as refused:
        place_in_existing(_existing(), demands)
    assert refused.value.path == ("cloud", "existing_vpc", "subnets", 0, "cidr")
    assert str(refused.value).startswith(
        "existing subnet subnet-0a (10.0.0.0/28) holds 11 addresses, but the nodes placed in us-east-1a take 12 at their largest"
    )


def test_demands_in_other_zones_do_not_add_up_and_public_ones_are_not_placed():
    demands = [
        SubnetDemand("public-a", "public", "us-east-1a"),
        SubnetDemand("private-a", "private", "us-east-1a", 11),
        SubnetDemand("private-b", "private", "us-east-1b", 11),
    ]
    assert [(plan.key, plan.existing_id) for plan in place_in_existing(_existing(), demands)] == [
        ("private-a", "subnet-0a"),
        ("private-b", "subnet-0b"),
    ]


@pytest.mark.parametrize(("needed", "size"), [(0, 16), (11, 16), (12, 32), (27, 32), (28, 64)])
def test_the_smallest_subnet_holds_the_need_plus_awss_five_and_no_less_than_a_slash_28(needed, size):
    assert smallest_size(SubnetDemand("private-a", "private", "us-east-1a", needed)) == size


def test_a_public_subnet_is_a_slash_27_whatever_it_holds_unless_addresses_are_given():
    assert smallest_size(SubnetDemand("public-a", "public", "us-east-1a", 500)) == 32
    assert smallest_size(SubnetDemand("public-a", "public", "us-east-1a"), 40) == 64


def test_a_demands_need_is_the_larger_of_its_nodes_and_its_addresses():
    assert SubnetDemand("efa-f0-z", "efa", "us-east-1a", 10, addresses=400).needed == 400
    assert SubnetDemand("efa-f0-z", "efa", "us-east-1a", 10, addresses=4).needed == 10


def test_a_pin_exactly_as_large_as_its_need_holds_and_one_address_short_is_refused():
    demand = SubnetDemand("private-a", "private", "us-east-1a", 27)  # a /27 holds 32 - 5 = 27
    (plan,) = lay_out_subnets([IPv4Network("10.0.0.0/16")], [demand], {"private-a": IPv4Network("10.0.0.0/27")})
    assert (plan.cidr, plan.pinned) == ("10.0.0.0/27", True)
    with pytest.raises(PlanError) as refused:
        lay_out_subnets(
            [IPv4Network("10.0.0.0/16")], [SubnetDemand("private-a", "private", "us-east-1a", 28)], {"private-a": IPv4Network("10.0.0.0/27")}
        )
    assert refused.value.path == ("cloud", "subnet_cidrs", "private-a")
    assert "is pinned at 10.0.0.0/27 and holds 27 addresses, but its 28 nodes take 28 at their largest" in str(refused.value)


def test_a_pinned_public_subnet_is_never_too_small():
    (plan,) = lay_out_subnets(
        [IPv4Network("10.0.0.0/16")], [SubnetDemand("public-a", "public", "us-east-1a", 500)], {"public-a": IPv4Network("10.0.0.0/28")}
    )
    assert plan.cidr == "10.0.0.0/28"


def test_a_subnet_zone_moved_under_its_pin_is_an_error_and_one_in_its_pinned_zone_is_not():
    (plan,) = lay_out_subnets(
        [IPv4Network("10.0.0.0/16")], [SubnetDemand("private-a", "private", "us-east-1b", 4)], {"private-a": IPv4Network("10.0.0.0/24")}
    )
    assert moved_pins({"private-a": "us-east-1b"}, [plan]) == []
    assert moved_pins({}, [plan]) == []
    (finding,) = moved_pins({"private-a": "us-east-1a"}, [plan])
    assert (finding.code, finding.severity, finding.path) == ("compile.pin-zone-moved", "error", ("cloud", "subnet_cidrs", "private-a"))
    assert finding.message.startswith("subnet 'private-a' is pinned at 10.0.0.0/24 in us-east-1a, but the plan now puts it in us-east-1b")


@settings(max_examples=examples(60), deadline=None)
@given(needs=st.lists(st.integers(min_value=0, max_value=20), min_size=1, max_size=5), prefix=st.integers(min_value=26, max_value=28))
def test_an_existing_subnet_is_refused_exactly_when_its_zones_needs_add_up_past_its_room(needs, prefix):
    demands = [SubnetDemand(f"efa-f{index}-z", "efa", "us-east-1a", need, f"f{index}", "z") for index, need in enumerate(needs)]
    room = 2 ** (32 - prefix) - 5
    try:
        plans = place_in_existing(_existing(f"10.0.0.0/{prefix}"), demands)
    except PlanError as refused:
        assert sum(needs) > room
        assert f"take {next(sum(needs[: i + 1]) for i in range(len(needs)) if sum(needs[: i + 1]) > room)} at their largest" in str(refused)
    else:
        assert sum(needs) <= room and len(plans) == len(needs)
