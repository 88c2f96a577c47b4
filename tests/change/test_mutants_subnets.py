"""railyard/change/subnets.py on built changes: a replaced subnet whose range moves is an error at `cloud.vpc_cidr` (its hint
depends on whether the deployed side pinned anything) or a warning at the pin the new side changed; one that keeps its
range but changes zone is `change.subnet-zone-moved`. Anything else a subnet does says nothing."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from railyard.change.subnets import SUBNET, moved_subnets, subnet_key
from tests.change.built import blueprint, change, side

OLD = {"cidrBlock": "10.0.0.0/20", "availabilityZone": "us-east-1a"}
MOVED = {"cidrBlock": "10.0.16.0/20", "availabilityZone": "us-east-1a"}


def _side(pins: dict | None = None):
    return side(blueprint(cloud=SimpleNamespace(subnet_cidrs=pins or {})))


def _subnet(new: dict, action: str = "replace", name: str = "prod-network-efa-use1a", old: dict = OLD):
    return change(name, SUBNET, action, old, new, {"cidrBlock": "replace"})


def test_a_subnets_key_is_its_name_after_the_network_infix_else_its_name():
    assert subnet_key(_subnet(MOVED)) == "efa-use1a"
    assert subnet_key(_subnet(MOVED, name="efa-use1a")) == "efa-use1a"
    assert subnet_key(_subnet(MOVED, name="a-network-b-network-c")) == "b-network-c"


def test_a_move_no_pin_asked_for_is_an_error_telling_to_lock_the_deployed_layout():
    (finding,) = moved_subnets([_subnet(MOVED)], _side(), _side())
    assert (finding.code, finding.severity, finding.path, finding.line) == ("change.subnet-moved", "error", ("cloud", "vpc_cidr"), 1)
    assert finding.message == (
        "subnet efa-use1a moves from 10.0.0.0/20 to 10.0.16.0/20: it is replaced, and with it every node group, NAT gateway and file system in it"
    )
    assert finding.hint == (
        "pin the deployed layout before the change: `railyard lock OLD --write` (a cluster deployed before railyard pinned subnets: "
        "`--layout legacy`), then make the change; docs/day2.md"
    )


def test_a_move_from_a_pinned_deployed_side_says_to_pin_the_subnet_at_its_range():
    (finding,) = moved_subnets([_subnet(MOVED)], _side({"other": "10.9.0.0/20"}), _side({"other": "10.9.0.0/20"}))
    assert (finding.severity, finding.path) == ("error", ("cloud", "vpc_cidr"))
    assert finding.hint == "pin efa-use1a at 10.0.0.0/20 (`railyard lock --write` on the old blueprint pins every deployed subnet)"
    # A deployed side that did not load counts as unpinned.
    (unloaded,) = moved_subnets([_subnet(MOVED)], side(None), _side())
    assert unloaded.hint.startswith("pin the deployed layout before the change")


def test_a_move_the_new_side_pins_is_a_warning_at_the_pin():
    (finding,) = moved_subnets([_subnet(MOVED)], _side(), _side({"efa-use1a": "10.0.16.0/20"}))
    assert (finding.code, finding.severity, finding.path, finding.line) == (
        "change.subnet-moved",
        "warning",
        ("cloud", "subnet_cidrs", "efa-use1a"),
        1,
    )
    assert finding.message.startswith("subnet efa-use1a moves from 10.0.0.0/20 to 10.0.16.0/20: it is replaced")
    assert finding.hint == "the new blueprint pins the new range on purpose"


def test_a_new_side_that_did_not_load_pins_nothing():
    (finding,) = moved_subnets([_subnet(MOVED)], _side(), side(None))
    assert (finding.severity, finding.path) == ("error", ("cloud", "vpc_cidr"))


def test_a_subnet_replaced_at_its_range_in_another_zone_is_refused_at_its_pin():
    (finding,) = moved_subnets([_subnet({**OLD, "availabilityZone": "us-east-1b"})], _side(), _side())
    assert (finding.code, finding.severity, finding.path, finding.line) == (
        "change.subnet-zone-moved",
        "error",
        ("cloud", "subnet_cidrs", "efa-use1a"),
        1,
    )
    assert finding.message == (
        "subnet efa-use1a moves from us-east-1a to us-east-1b at the same range 10.0.0.0/20: Pulumi creates the replacement before "
        "deleting the old subnet, and EC2 refuses a range another subnet of the VPC holds, so `pulumi up` stops there"
    )
    assert finding.hint == (
        "keep the failure domain in us-east-1a; to use us-east-1b, add a failure domain of its own there, move the pools, then retire "
        "the old one; run `railyard lock --write` on the deployed blueprint first so its pins record their zones"
    )


def test_a_subnet_replaced_at_its_range_and_zone_says_nothing():
    assert moved_subnets([_subnet(dict(OLD), name="prod-network-efa-use1a")], _side(), _side()) == []


@pytest.mark.parametrize("action", ["update", "may-replace", "create", "delete"])
def test_a_subnet_not_replaced_says_nothing(action):
    old, new = (None, MOVED) if action == "create" else (OLD, None) if action == "delete" else (OLD, MOVED)
    assert moved_subnets([change("prod-network-a", SUBNET, action, old, new)], _side(), _side()) == []


def test_another_type_whose_range_moves_is_no_subnet_and_each_subnet_gets_its_finding():
    vpc = change("prod-vpc", "aws:ec2/vpc:Vpc", "replace", OLD, MOVED, {"cidrBlock": "replace"})
    second = _subnet(MOVED, name="prod-network-b")
    assert [finding.message.split(" ")[1] for finding in moved_subnets([vpc, _subnet(MOVED), second], _side(), _side())] == ["efa-use1a", "b"]


def test_a_replacement_missing_a_side_is_skipped():
    half = _subnet(MOVED)
    half.old = None
    other = _subnet(MOVED)
    other.new = None
    assert moved_subnets([half, other], _side(), _side()) == []


def test_every_subnet_in_the_change_is_judged_whatever_came_before_it():
    items = [
        _subnet(MOVED, name="prod-network-a"),  # pinned by the new side: a warning
        _subnet(MOVED, name="prod-network-b"),  # not pinned: an error
        _subnet({**OLD, "availabilityZone": "us-east-1b"}, name="prod-network-c"),  # same range, another zone
        _subnet(MOVED, name="prod-network-d"),
    ]
    findings = moved_subnets(items, _side(), _side({"a": "10.0.16.0/20"}))
    assert [(finding.code, finding.severity, finding.message.split(" ")[1]) for finding in findings] == [
        ("change.subnet-moved", "warning", "a"),
        ("change.subnet-moved", "error", "b"),
        ("change.subnet-zone-moved", "error", "c"),
        ("change.subnet-moved", "error", "d"),
    ]
