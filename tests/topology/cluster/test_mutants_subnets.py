"""topology/cluster/subnets.py's layout and verdicts on demands and blocks built here, every range worked out by hand:
a subnet's size exactly at each power of two and one past it, growth toward its headroom stopped by the target and by
the budget (exactly at it and one size past), the least-headroom subnet grown first, a layout that only fits once the
largest subnet is halved, the new subnets that do not fit at all (VPC, secondary blocks, pod blocks), pins outside
the blocks, overlapping or one address too small, and existing subnets exactly full and one address past.

Each error is compared whole: its message and the blueprint path it points at."""

from __future__ import annotations

from ipaddress import IPv4Network

import pytest

from topology.cluster.errors import PlanError
from topology.cluster.subnets import (
    LESS_PER_NODE,
    REMEDIES,
    SubnetDemand,
    SubnetPlan,
    lay_out_subnets,
    moved_pins,
    place_in_existing,
    smallest_size,
    unlocked_plan,
    unused_pins,
)

VPC = IPv4Network("10.0.0.0/16")


def net(text: str) -> IPv4Network:
    return IPv4Network(text)


def private(key: str, needed: int, zone: str = "us-east-1a", nodes: int = 1) -> SubnetDemand:
    return SubnetDemand(key, "private", zone, nodes=nodes, addresses=needed)


def _ranges(plans) -> dict[str, str]:
    return {plan.key: plan.cidr for plan in plans}


def _refused(*args, **kwargs) -> tuple[str, tuple]:
    with pytest.raises(PlanError) as caught:
        lay_out_subnets(*args, **kwargs)
    return str(caught.value), caught.value.path


def test_a_demand_needs_its_addresses_or_one_per_node_whichever_is_more():
    assert SubnetDemand("a", "private", "z", nodes=3, addresses=7).needed == 7
    assert SubnetDemand("a", "private", "z", nodes=9, addresses=7).needed == 9
    assert SubnetDemand("a", "private", "z").needed == 0


def test_only_a_public_subnet_is_public():
    plan = SubnetPlan("public-a", "public", "us-east-1a", "10.0.0.0/27")
    assert plan.public and not SubnetPlan("private-a", "private", "us-east-1a", "10.0.1.0/24").public


@pytest.mark.parametrize(("needed", "size"), [(0, 16), (11, 16), (12, 32), (27, 32), (28, 64), (59, 64), (60, 128), (65531, 65536), (65532, 131072)])
def test_a_subnet_is_the_smallest_power_of_two_holding_its_need_and_awss_5(needed, size):
    assert smallest_size(private("p", needed)) == size


def test_a_public_subnet_is_a_27_unless_told_how_many_addresses():
    public = SubnetDemand("public-a", "public", "us-east-1a", addresses=500)
    assert smallest_size(public) == 32
    assert (smallest_size(public, 16), smallest_size(public, 17), smallest_size(private("p", 0), 33)) == (16, 32, 64)


def test_a_new_subnet_grows_to_eight_times_its_need_and_no_further():
    # 11 addresses: at least a /28 (16); the target is the smallest holding 8 x 11 + 5 = 93: 128, a /25.
    (plan,) = lay_out_subnets([VPC], [private("private-a", 11, nodes=4)])
    assert plan == SubnetPlan("private-a", "private", "us-east-1a", "10.0.0.0/25", 4, None, None, 11, "10.0.0.0/16", None, False)


def test_a_subnet_needing_a_whole_16_is_placed_and_one_address_more_is_refused():
    (plan,) = lay_out_subnets([VPC], [private("private-a", 65531)])
    assert plan.cidr == "10.0.0.0/16"
    message, path = _refused([VPC], [private("private-a", 65532, nodes=12)])
    assert message == f"subnet 'private-a' needs 65532 addresses for 12 nodes, more than a subnet holds (65536, a /16); {REMEDIES}"
    assert path == ("cloud", "vpc_cidr")
    pods = SubnetDemand("pods-a", "pods", "us-east-1a", nodes=2, addresses=70000)
    assert _refused([VPC], [pods])[1] == ("kubernetes", "pod_networking")


def test_growth_stops_at_a_quarter_of_the_blocks_kept_free_and_a_total_exactly_at_it_still_grows():
    # A /24 keeps 64 free: 192 to share. a (11: 16, target 128) and b (40: 64, target 512) start at 80 together;
    # a doubles first (16/11 < 64/40) to 96, then b to 160, then a to 192, exactly the budget; nothing more fits.
    demands = [private("a", 11), private("b", 40)]
    assert _ranges(lay_out_subnets([net("10.0.0.0/24")], demands)) == {"a": "10.0.0.128/26", "b": "10.0.0.0/25"}


def test_public_subnets_are_27s_outside_the_budget_and_placed_after_larger_ones():
    demands = [SubnetDemand("public-a", "public", "us-east-1a"), private("private-a", 11)]
    # The /24's budget (192) counts only a: it grows to its target of 128; the /27 goes after it.
    assert lay_out_subnets([net("10.0.0.0/24")], demands) == (
        SubnetPlan("public-a", "public", "us-east-1a", "10.0.0.128/27", 0, None, None, 0, "10.0.0.0/24"),
        SubnetPlan("private-a", "private", "us-east-1a", "10.0.0.0/25", 1, None, None, 11, "10.0.0.0/24"),
    )


def test_a_subnet_that_fits_the_budget_but_no_aligned_range_is_halved_until_it_does():
    # Pins at .0.64/26 and .1.64/26 leave 256 to grow into: 64 -> 128 -> 256, but no free aligned /24 is left, so back to 128.
    pins = {"pin-a": net("10.0.0.64/26"), "pin-b": net("10.0.1.64/26")}
    demands = [private("pin-a", 1), private("pin-b", 1), private("a", 40)]
    plans = lay_out_subnets([net("10.0.0.0/23")], demands, pins)
    assert _ranges(plans) == {"pin-a": "10.0.0.64/26", "pin-b": "10.0.1.64/26", "a": "10.0.0.128/25"}
    assert [plan.pinned for plan in plans] == [True, True, False]
    assert [plan.block for plan in plans] == ["10.0.0.0/23"] * 3


def test_subnets_are_returned_in_the_demands_order_pinned_or_not_in_the_second_block_where_pinned_there():
    blocks = [net("10.0.0.0/24"), net("10.1.0.0/24")]
    plans = lay_out_subnets(blocks, [private("new", 11), private("pinned", 11)], {"pinned": net("10.1.0.0/26")})
    assert [(plan.key, plan.cidr, plan.block, plan.pinned) for plan in plans] == [
        ("new", "10.0.0.0/25", "10.0.0.0/24", False),
        ("pinned", "10.1.0.0/26", "10.1.0.0/24", True),
    ]


def test_new_subnets_that_cannot_fit_at_their_smallest_name_the_largest_and_the_vpc():
    pins = {"pin": net("10.0.0.0/28")}
    demands = [private("pin", 1), private("small", 11, nodes=2), private("big", 100, nodes=7)]
    message, path = _refused([net("10.0.0.0/25")], demands, pins)
    assert message == (
        "the VPC blocks (10.0.0.0/25) have 112 addresses free, but the 2 subnets to place need at least 144 in aligned ranges: "
        f"the largest, 'big', needs 100 addresses for 7 nodes; {REMEDIES}"
    )
    assert path == ("cloud", "vpc_cidr")


def test_new_subnets_that_cannot_fit_in_two_blocks_point_at_the_secondary_blocks():
    message, path = _refused([net("10.0.0.0/26"), net("10.1.0.0/26")], [private("big", 100, nodes=7)], what="VPC blocks")
    assert message.startswith("the VPC blocks (10.0.0.0/26, 10.1.0.0/26) have 128 addresses free, but the 1 subnets")
    assert path == ("cloud", "secondary_cidrs")


def test_pod_subnets_that_cannot_fit_point_at_the_pod_blocks_with_their_own_fix():
    pods = SubnetDemand("pods-a", "pods", "us-east-1a", nodes=3, addresses=100)
    message, path = _refused([net("100.64.0.0/26")], [pods], what="pod CIDR blocks")
    assert message == (
        "the pod CIDR blocks (100.64.0.0/26) have 64 addresses free, but the 1 subnets to place need at least 128 in aligned ranges: "
        "the largest, 'pods-a', needs 100 addresses for 3 nodes; add a 100.64.0.0/10 block to kubernetes.pod_networking.pod_cidrs, "
        "or hold fewer addresses per node (pods_per_node, warm_ip_target)"
    )
    assert path == ("kubernetes", "pod_networking", "pod_cidrs")


def test_a_pin_outside_the_blocks_is_refused_at_its_path():
    message, path = _refused([net("10.0.0.0/24"), net("10.1.0.0/24")], [private("a", 1)], {"a": net("10.2.0.0/28")})
    assert message == (
        "subnet 'a' is pinned at 10.2.0.0/28, outside the VPC blocks (10.0.0.0/24, 10.1.0.0/24); "
        "a pin must lie in the block the subnet is carved from"
    )
    assert path == ("cloud", "subnet_cidrs", "a")


def test_overlapping_pins_are_refused_at_the_second():
    pins = {"a": net("10.0.0.0/26"), "b": net("10.0.0.32/27")}
    message, path = _refused([VPC], [private("a", 1), private("b", 1)], pins)
    assert message == "subnet 'b' is pinned at 10.0.0.32/27, which overlaps another pinned subnet; pins must be disjoint"
    assert path == ("cloud", "subnet_cidrs", "b")


def test_a_pin_holding_exactly_its_need_is_kept_and_one_address_more_is_refused():
    # A /28 holds 16 - 5 = 11 addresses.
    (plan,) = lay_out_subnets([VPC], [private("a", 11, nodes=3)], {"a": net("10.0.5.0/28")})
    assert plan == SubnetPlan("a", "private", "us-east-1a", "10.0.5.0/28", 3, None, None, 11, "10.0.0.0/16", None, True)
    message, path = _refused([VPC], [private("a", 12, nodes=3)], {"a": net("10.0.5.0/28")})
    assert message == (
        "subnet 'a' is pinned at 10.0.5.0/28 and holds 11 addresses, but its 3 nodes take 12 at their largest; a deployed subnet "
        f"can't grow without being replaced with everything in it. Ways that move nothing: {LESS_PER_NODE}; or put the new capacity "
        "in a pool of its own on another fabric or zone (a new subnet). To re-carve on purpose, drop the pin: the subnet and every "
        "node group and file system in it are replaced"
    )
    assert path == ("cloud", "subnet_cidrs", "a")


def test_a_pinned_public_subnet_is_not_held_to_its_need():
    public = SubnetDemand("public-a", "public", "us-east-1a", nodes=0, addresses=40)
    (plan,) = lay_out_subnets([VPC], [public], {"public-a": net("10.0.0.0/27")})
    assert (plan.cidr, plan.pinned, plan.public) == ("10.0.0.0/27", True, True)


def test_a_pinned_range_is_not_placed_again():
    plans = lay_out_subnets([net("10.0.0.0/24")], [private("pinned", 1), private("new", 1)], {"pinned": net("10.0.0.0/26")})
    assert _ranges(plans) == {"pinned": "10.0.0.0/26", "new": "10.0.0.64/28"}


def _existing(needs: list[tuple[str, int]], cidr: str = "10.0.0.0/28"):
    subnets = [("subnet-0a", "us-east-1a", net(cidr)), ("subnet-0b", "us-east-1b", net("10.0.16.0/20"))]
    demands = [SubnetDemand("public-us-east-1a", "public", "us-east-1a", addresses=999)]
    demands += [SubnetDemand(key, "private" if key.startswith("private") else "efa", zone, nodes=1, addresses=needed) for key, zone, needed in needs]
    return place_in_existing(subnets, demands)


def test_demands_in_one_existing_subnet_fill_it_exactly_and_public_ones_need_none():
    plans = _existing([("private-a", "us-east-1a", 6), ("efa-a", "us-east-1a", 5), ("private-b", "us-east-1b", 4000)])
    assert plans == (
        SubnetPlan("private-a", "private", "us-east-1a", "10.0.0.0/28", 1, None, None, 6, None, "subnet-0a"),
        SubnetPlan("efa-a", "efa", "us-east-1a", "10.0.0.0/28", 1, None, None, 5, None, "subnet-0a"),
        SubnetPlan("private-b", "private", "us-east-1b", "10.0.16.0/20", 1, None, None, 4000, None, "subnet-0b"),
    )


def test_demands_one_address_past_an_existing_subnet_are_refused_at_its_cidr():
    with pytest.raises(PlanError) as caught:
        _existing([("private-b", "us-east-1b", 10), ("private-a", "us-east-1a", 6), ("efa-a", "us-east-1a", 6)])
    assert str(caught.value) == (
        "existing subnet subnet-0a (10.0.0.0/28) holds 11 addresses, but the nodes placed in us-east-1a take 12 at their largest; "
        "set kubernetes.pod_networking warm_ip_target / minimum_ip_target (or pods_per_node) so nodes hold only the addresses "
        "their pods use, or mode: prefix_delegation; or list a larger subnet"
    )
    assert caught.value.path == ("cloud", "existing_vpc", "subnets", 0, "cidr")


def test_the_second_existing_subnet_is_named_by_its_index():
    with pytest.raises(PlanError) as caught:
        _existing([("private-b", "us-east-1b", 4092)])
    assert caught.value.path == ("cloud", "existing_vpc", "subnets", 1, "cidr")
    assert str(caught.value).startswith("existing subnet subnet-0b (10.0.16.0/20) holds 4091 addresses, but the nodes placed in us-east-1b take 4092")


def _plan(key: str, zone: str = "us-east-1a") -> SubnetPlan:
    return SubnetPlan(key, "private", zone, "10.0.0.0/24")


def test_each_pin_the_plan_no_longer_has_is_a_warning_naming_the_planned_subnets():
    pins = {"gone": net("10.0.9.0/24"), "kept": net("10.0.0.0/24"), "also-gone": net("10.0.8.0/24")}
    found = unused_pins(pins, [_plan("kept"), _plan("b-kept")])
    assert [finding.as_json() for finding in found] == [
        {
            "code": "compile.pin-unused",
            "severity": "warning",
            "path": "cloud.subnet_cidrs.gone",
            "file": None,
            "line": None,
            "column": None,
            "message": "subnet_cidrs pins 'gone' at 10.0.9.0/24, but the plan has no such subnet: nothing uses it any more, so it is deleted",
            "hint": "drop the pin once the subnet is gone (`railyard lock --write` rewrites the pins); planned subnets: b-kept, kept",
        },
        {
            "code": "compile.pin-unused",
            "severity": "warning",
            "path": "cloud.subnet_cidrs.also-gone",
            "file": None,
            "line": None,
            "column": None,
            "message": "subnet_cidrs pins 'also-gone' at 10.0.8.0/24, but the plan has no such subnet: nothing uses it any more, so it is deleted",
            "hint": "drop the pin once the subnet is gone (`railyard lock --write` rewrites the pins); planned subnets: b-kept, kept",
        },
    ]


def test_a_plan_with_subnets_and_no_pin_is_a_note_and_one_pin_or_no_subnet_is_none():
    (found,) = unlocked_plan({}, [_plan("a"), _plan("b"), _plan("c")])
    assert found.as_json() == {
        "code": "compile.unlocked",
        "severity": "info",
        "path": "cloud",
        "file": None,
        "line": None,
        "column": None,
        "message": "the address plan isn't locked: cloud.subnet_cidrs pins none of its 3 subnets, so each run lays them out again, "
        "and a later change (a zone or an EFA pool added) can move one, which replaces it with every node group and file system in it",
        "hint": "before the first deployment, run `railyard lock FILE --write` (or `railyard lock --stack STACK --write`) and commit the pins "
        "(docs/day2.md, 'First: lock the address plan')",
    }
    assert unlocked_plan({"a": net("10.0.0.0/24")}, [_plan("a"), _plan("b")]) == []
    assert unlocked_plan({}, []) == []


def test_a_pinned_subnet_the_plan_moves_to_another_zone_is_an_error_and_one_unmoved_or_unpinned_is_none():
    plans = [_plan("unpinned", "us-east-1b"), _plan("same"), _plan("moved", "us-east-1c")]
    found = moved_pins({"same": "us-east-1a", "moved": "us-east-1a"}, plans)
    assert [finding.as_json() for finding in found] == [
        {
            "code": "compile.pin-zone-moved",
            "severity": "error",
            "path": "cloud.subnet_cidrs.moved",
            "file": None,
            "line": None,
            "column": None,
            "message": "subnet 'moved' is pinned at 10.0.0.0/24 in us-east-1a, but the plan now puts it in us-east-1c (its failure domain "
            "moved): the subnet is replaced at the same range, and EC2 refuses the new subnet while the old one still holds that range, "
            "with every node group and file system in it",
            "hint": "keep the failure domain in us-east-1a; to use us-east-1c, add a failure domain of its own there (a new subnet at a "
            "free range, nothing moved), move the pools to it, then retire the old domain and its pin",
        }
    ]


def test_a_lone_subnet_stops_doubling_where_the_next_size_would_pass_the_budget():
    # A /24 keeps 64 free: 192 to grow into. 40 addresses: 64, then 128; 256 would pass 192 though it would fit.
    assert _ranges(lay_out_subnets([net("10.0.0.0/24")], [private("a", 40)])) == {"a": "10.0.0.0/25"}


def test_pins_taking_more_than_a_quarter_leave_that_much_less_to_grow_into():
    # A /23 keeps 128 free and its pins take 192: 192 to grow into, so 100 addresses stay at 128 though a /24 is free.
    pins = {"p1": net("10.0.1.0/25"), "p2": net("10.0.1.128/26")}
    plans = lay_out_subnets([net("10.0.0.0/23")], [private("p1", 1), private("p2", 1), private("a", 100)], pins)
    assert _ranges(plans)["a"] == "10.0.0.0/25"


def test_a_subnet_grows_to_the_power_of_two_holding_eight_times_its_need_and_awss_5():
    # 16 addresses: 8 x 16 + 5 = 133, so a /24 (256), not the /25 that 8 x 16 - 5 = 123 would fit in.
    (plan,) = lay_out_subnets([VPC], [private("a", 16)])
    assert plan.cidr == "10.0.0.0/24"


def test_a_public_subnet_takes_nothing_from_the_budget_the_others_grow_into():
    # As without it: a grows to 64 and b to 128, the /24's 192 exactly; the public /27 goes in what the budget kept free.
    demands = [SubnetDemand("public-a", "public", "us-east-1a"), private("a", 11), private("b", 40)]
    assert _ranges(lay_out_subnets([net("10.0.0.0/24")], demands)) == {"public-a": "10.0.0.192/27", "a": "10.0.0.128/26", "b": "10.0.0.0/25"}


def test_when_nothing_fits_the_largest_of_several_grown_subnets_is_halved_first():
    # A /22 with a pin in each /24: 512 to grow into. a and b (40 each) grow to 256 and 128, but no /24 is free:
    # a, the largest, goes back to 128, and both fit in the /25s beside the pins.
    pins = {f"p{index}": net(f"10.0.{index}.64/26") for index in range(4)}
    demands = [*(private(key, 1) for key in pins), private("a", 40), private("b", 40)]
    plans = _ranges(lay_out_subnets([net("10.0.0.0/22")], demands, pins))
    assert (plans["a"], plans["b"]) == ("10.0.0.128/25", "10.0.1.128/25")


def test_an_efa_subnet_keeps_its_fabric_and_domain_new_pinned_or_existing():
    efa = SubnetDemand("efa-ultra-use1a", "efa", "us-east-1a", nodes=4, fabric="ultra", zone="use1a", addresses=200)
    (new,) = lay_out_subnets([VPC], [efa])
    assert (new.kind, new.fabric, new.zone, new.nodes, new.addresses) == ("efa", "ultra", "use1a", 4, 200)
    (pinned,) = lay_out_subnets([VPC], [efa], {efa.key: net("10.0.4.0/24")})
    assert (pinned.fabric, pinned.zone, pinned.pinned) == ("ultra", "use1a", True)
    (existing,) = place_in_existing([("subnet-0a", "us-east-1a", net("10.0.0.0/20"))], [efa])
    assert existing == SubnetPlan("efa-ultra-use1a", "efa", "us-east-1a", "10.0.0.0/20", 4, "ultra", "use1a", 200, None, "subnet-0a")
