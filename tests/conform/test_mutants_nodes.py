"""railyard/conform/nodes.py's verdicts, each at its edge, on p5's planned node group resized to a few nodes: the
node count exactly at the desired size and the most and one past each, a Karpenter group's count, a reservation not
yet active (and one active, and another's), each instance fact (type, zone by name or id, reservation or group
member, each market) matching and not, EFA interfaces missing, unplanned or both, and each advertised device.

Every finding is compared whole (code, severity, path, message, hint and certificate), so a changed word fails."""

from __future__ import annotations

from typing import Any

import pytest

from railyard.conform import nodes
from railyard.online.evidence import INSTANCES, NODES, RESERVATIONS
from tests.conform.judges import (
    fleet,
    instance,
    interface,
    judge,
    node,
    not_checked_json,
    planned,
    resized,
    with_groups,
)
from topology.cluster.interfaces import PRIMARY, InterfaceSpec

P5 = planned("p5-capacity-block.yaml")
TRAIN = P5.groups[0]
BLOCK = "cr-0a1b2c3d4e5f60718"
WHERE = "pool 'train' (node group train-use1a, us-east-1a)"
DEVICES = {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"}
COUNT_HINT = "look at the node group's health and the instances' console output; a Capacity Block may be short of instances"
OVER_HINT = "someone scaled the node group outside the blueprint; scale it back or raise the pool's nodes"


def _json(findings) -> list[dict[str, Any]]:
    return [finding.as_json() for finding in findings]


def _counted(group, ready: int, not_ready: int = 0, more: dict[str, dict[str, Any]] | None = None):
    """check_counts on `ready` Ready nodes and `not_ready` others of `group`, each with its running instance."""
    total = ready + not_ready
    instances = [instance(f"i-{index}", group, lifecycle="capacity-block", reservation=BLOCK) for index in range(total)]
    listed = [node(f"n-{index}", f"i-{index}", group, ready=index < ready, allocatable=DEVICES) for index in range(total)]
    return nodes.check_counts(judge(with_groups(P5, group), {**fleet(instances, listed), **(more or {})}))


def test_the_planned_group_is_p5s_capacity_block_of_64():
    assert (TRAIN.name, TRAIN.pool, TRAIN.capacity_type, TRAIN.reservation_id, TRAIN.desired_size, TRAIN.max_size) == (
        "train-use1a",
        "train",
        "CAPACITY_BLOCK",
        BLOCK,
        64,
        64,
    )
    assert P5.allocatable(TRAIN) == {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32}


@pytest.mark.parametrize(("ready", "desired", "most"), [(3, 3, 5), (5, 3, 5), (4, 3, 5)], ids=["at-desired", "at-most", "between"])
def test_a_count_from_the_desired_size_to_the_most_is_no_finding(ready, desired, most):
    assert _counted(resized(TRAIN, desired_size=desired, max_size=most), ready) == []


def test_one_ready_node_short_of_the_desired_size_is_an_error_naming_the_node_not_ready():
    found = _counted(resized(TRAIN, desired_size=3, max_size=5), ready=2, not_ready=1)
    assert _json(found) == [
        {
            "code": "conform.node-count",
            "severity": "error",
            "path": "pools[0]",
            "file": None,
            "line": None,
            "column": None,
            "message": f"{WHERE} has 2 Ready nodes, the design plans 3; instances without a Ready node: i-2; not Ready: n-2",
            "hint": COUNT_HINT,
            "certificate": {
                "pool": "train",
                "node_group": "train-use1a",
                "zone": "us-east-1a",
                "expected": 3,
                "observed": 2,
                "instances": ["i-2"],
                "not_ready": ["n-2"],
            },
        }
    ]


def test_one_ready_node_past_the_most_is_a_warning():
    (found,) = _counted(resized(TRAIN, desired_size=3, max_size=5), ready=6)
    assert found.as_json() == {
        "code": "conform.node-count",
        "severity": "warning",
        "path": "pools[0]",
        "file": None,
        "line": None,
        "column": None,
        "message": f"{WHERE} has 6 Ready nodes, above the design's most (5)",
        "hint": OVER_HINT,
        "certificate": {"pool": "train", "node_group": "train-use1a", "expected": 5, "observed": 6},
    }


def test_a_short_group_names_an_instance_with_no_node_and_a_node_not_ready_apart():
    group = resized(TRAIN, desired_size=4, max_size=4)
    instances = [instance(f"i-{index}", group, lifecycle="capacity-block", reservation=BLOCK) for index in range(4)]
    listed = [
        node("n-0", "i-0", group),
        node("n-1", "i-1", group, ready=False),
        # Another group's node that is not Ready is not this group's.
        node("n-x", "i-x", resized(TRAIN, name="other-use1a")),
    ]
    listed[2]["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    (found,) = nodes.check_counts(judge(with_groups(P5, group), fleet(instances, listed)))
    assert found.message == f"{WHERE} has 1 Ready nodes, the design plans 4; instances without a Ready node: i-1, i-2, i-3; not Ready: n-1"
    assert (found.certificate["instances"], found.certificate["not_ready"]) == (["i-1", "i-2", "i-3"], ["n-1"])


def test_a_short_group_with_every_instance_ready_and_no_node_behind_says_only_the_count():
    (found,) = _counted(resized(TRAIN, desired_size=3, max_size=3), ready=2)
    assert found.message == f"{WHERE} has 2 Ready nodes, the design plans 3"
    assert (found.certificate["instances"], found.certificate["not_ready"]) == ([], [])


def test_the_short_list_names_five_and_counts_the_rest():
    group = resized(TRAIN, desired_size=9, max_size=9)
    instances = [instance(f"i-{index}", group) for index in range(7)]
    (found,) = nodes.check_counts(judge(with_groups(P5, group), fleet(instances, [])))
    assert found.message == f"{WHERE} has 0 Ready nodes, the design plans 9; instances without a Ready node: i-0, i-1, i-2, i-3, i-4 and 2 more"


def test_a_karpenter_group_has_no_size_to_fall_short_of_but_a_most_to_pass():
    group = resized(TRAIN, provisioner="karpenter", desired_size=3, max_size=4)
    assert _counted(group, ready=0) == []
    assert _counted(group, ready=4) == []
    (found,) = _counted(group, ready=5)
    assert (found.severity, found.message) == ("warning", f"{WHERE} has 5 Ready nodes, above the design's most (4)")


def _reservations(*pairs: tuple[str, str]) -> dict[str, dict[str, Any]]:
    return {RESERVATIONS: {"CapacityReservations": [{"CapacityReservationId": rid, "State": state} for rid, state in pairs]}}


def test_a_group_whose_reservation_is_not_yet_active_is_not_counted_and_says_so():
    group = resized(TRAIN, desired_size=3, max_size=3)
    found = _counted(group, ready=0, more=_reservations(("cr-0other", "expired"), (BLOCK, "payment-pending")))
    assert _json(found) == [
        {
            "code": "conform.node-count",
            "severity": "info",
            "path": "pools[0]",
            "file": None,
            "line": None,
            "column": None,
            "message": f"{WHERE}: its reservation {BLOCK} is payment-pending, so its node count was not judged",
            "hint": "",
        }
    ]


@pytest.mark.parametrize(
    "more",
    [_reservations((BLOCK, "active")), _reservations(("cr-0other", "payment-pending")), {}, {RESERVATIONS: {}}],
    ids=["its-reservation-active", "another-reservation-pending", "no-reservations-file", "no-reservations-key"],
)
def test_a_reservation_active_or_not_its_own_leaves_the_count_judged(more):
    (found,) = _counted(resized(TRAIN, desired_size=3, max_size=3), ready=2, more=more)
    assert (found.severity, found.message) == ("error", f"{WHERE} has 2 Ready nodes, the design plans 3")


def test_a_group_with_no_reservation_is_counted_whatever_the_reservations_say():
    group = resized(TRAIN, desired_size=3, max_size=3, reservation_id=None)
    (found,) = _counted(group, ready=2, more=_reservations((BLOCK, "payment-pending")))
    assert found.severity == "error"


@pytest.mark.parametrize(
    ("check", "needs", "what"),
    [
        (nodes.check_counts, NODES, "the node count"),
        (nodes.check_instances, INSTANCES, "the instances' type, capacity and market"),
        (nodes.check_efa, INSTANCES, "the EFA interfaces"),
        (nodes.check_allocatable, NODES, "the nodes' allocatable devices"),
    ],
    ids=["counts", "instances", "efa", "allocatable"],
)
def test_each_check_without_its_file_says_it_did_not_run(check, needs, what):
    documents = fleet([instance("i-0", TRAIN, instance_type="p5e.48xlarge")], [node("n-0", "i-0", TRAIN)])
    del documents[needs]
    assert _json(check(judge(with_groups(P5, TRAIN), documents))) == [not_checked_json(what, "pools", needs)]


def _instances(group, **fields: Any):
    """check_instances on one running instance of `group` (a conforming p5 block instance unless `fields` say otherwise)."""
    facts = {"lifecycle": "capacity-block", "reservation": BLOCK, **fields}
    return nodes.check_instances(judge(with_groups(P5, group), fleet([instance("i-0", group, **facts)], [])))


FACTS = {"pool": "train", "node_group": "train-use1a", "instance": "i-0"}


def test_a_conforming_instance_is_no_finding():
    assert _instances(TRAIN) == []


def test_an_instance_of_another_type_is_an_error():
    assert _json(_instances(TRAIN, instance_type="p5e.48xlarge")) == [
        {
            "code": "conform.instance-type",
            "severity": "error",
            "path": "pools[0]",
            "file": None,
            "line": None,
            "column": None,
            "message": f"instance i-0 of {WHERE} is a p5e.48xlarge, the design says p5.48xlarge",
            "hint": "",
            "certificate": FACTS,
        }
    ]


def test_an_instance_in_another_zone_is_an_error_and_one_matching_by_zone_id_is_not():
    (found,) = _instances(TRAIN, zone=("us-east-1b", "use1-az6"))
    assert found.as_json()["message"] == f"instance i-0 of {WHERE} runs in us-east-1b, the design says us-east-1a"
    assert (found.code, found.severity, found.certificate) == ("conform.instance-type", "error", FACTS)
    by_id = resized(TRAIN, availability_zones=("use1-az4",))
    assert _instances(by_id, zone=("us-east-1a", "use1-az4")) == []
    (other,) = _instances(by_id, zone=("us-east-1a", "use1-az6"))
    assert other.message.endswith("runs in us-east-1a, the design says use1-az4")


def test_an_instance_running_outside_its_block_is_a_capacity_error():
    found = _instances(TRAIN, reservation="cr-0ffffffffffffffff")
    assert _json(found) == [
        {
            "code": "conform.capacity",
            "severity": "error",
            "path": "pools[0]",
            "file": None,
            "line": None,
            "column": None,
            "message": f"instance i-0 of {WHERE} runs outside its reservation: it is in cr-0ffffffffffffffff, the design names {BLOCK}",
            "hint": "the instance is billed outside the block; find who launched it (its launch template) and move it into the reservation",
            "certificate": {"expected": [BLOCK], "observed": "cr-0ffffffffffffffff", **FACTS},
        }
    ]


def test_an_instance_in_no_reservation_says_so():
    (found,) = _instances(TRAIN, reservation=None)
    assert found.message == f"instance i-0 of {WHERE} runs outside its reservation: it is in no reservation, the design names {BLOCK}"
    assert found.certificate["observed"] is None


def test_a_reservation_groups_instance_may_run_in_any_member_and_in_no_other():
    group = resized(TRAIN, reservation_id=None, reservation_members=("cr-0b", "cr-0a"))
    assert _instances(group, reservation="cr-0a") == []
    assert _instances(group, reservation="cr-0b") == []
    (found,) = _instances(group, reservation="cr-0c")
    assert found.message == f"instance i-0 of {WHERE} runs outside its reservation: it is in cr-0c, the design names cr-0a, cr-0b"
    assert found.certificate["expected"] == ["cr-0a", "cr-0b"]


def test_a_group_with_no_reservation_takes_an_instance_from_any():
    group = resized(TRAIN, reservation_id=None, capacity_type="ON_DEMAND")
    assert _instances(group, lifecycle=None, reservation="cr-0anything") == []
    assert _instances(group, lifecycle=None, reservation=None) == []


@pytest.mark.parametrize(
    ("capacity_type", "lifecycle", "bought", "says"),
    [
        ("CAPACITY_BLOCK", None, "on-demand", "capacity-block (CAPACITY_BLOCK)"),
        ("CAPACITY_BLOCK", "spot", "spot", "capacity-block (CAPACITY_BLOCK)"),
        ("SPOT", None, "on-demand", "spot (SPOT)"),
        ("SPOT", "capacity-block", "capacity-block", "spot (SPOT)"),
        ("ON_DEMAND", "spot", "spot", "on-demand (ON_DEMAND)"),
        ("ON_DEMAND", "capacity-block", "capacity-block", "on-demand (ON_DEMAND)"),
    ],
)
def test_an_instance_bought_on_another_market_is_an_error(capacity_type, lifecycle, bought, says):
    group = resized(TRAIN, capacity_type=capacity_type, reservation_id=None)
    (found,) = _instances(group, lifecycle=lifecycle)
    expected = {"ON_DEMAND": None, "SPOT": "spot", "CAPACITY_BLOCK": "capacity-block"}[capacity_type]
    assert found.as_json() == {
        "code": "conform.market",
        "severity": "error",
        "path": "pools[0]",
        "file": None,
        "line": None,
        "column": None,
        "message": f"instance i-0 of {WHERE} is bought as {bought}, the design says {says}",
        "hint": "",
        "certificate": {"expected": expected, "observed": lifecycle, **FACTS},
    }


@pytest.mark.parametrize(("capacity_type", "lifecycle"), [("CAPACITY_BLOCK", "capacity-block"), ("SPOT", "spot"), ("ON_DEMAND", None)])
def test_an_instance_bought_on_its_groups_market_is_no_finding(capacity_type, lifecycle):
    assert _instances(resized(TRAIN, capacity_type=capacity_type, reservation_id=None), lifecycle=lifecycle) == []


def test_an_instance_not_running_or_of_no_planned_group_is_not_judged():
    group = resized(TRAIN, desired_size=1, max_size=1)
    stray = resized(TRAIN, name="someone-elses")
    documents = fleet(
        [instance("i-0", group, instance_type="p5e.48xlarge", state="stopped"), instance("i-1", stray, instance_type="p5e.48xlarge")],
        [],
    )
    assert nodes.check_instances(judge(with_groups(P5, group), documents)) == []


# Three planned EFA interfaces: an `efa` beside the primary on card 0, `efa-only` on cards 1 and 2.
LAYOUT = (PRIMARY, InterfaceSpec(0, 1, "efa"), InterfaceSpec(1, 0, "efa-only"), InterfaceSpec(2, 0, "efa-only"))
EFA_GROUP = resized(TRAIN, interfaces=LAYOUT)
EFA_HINT = "replace the instance (its interfaces are fixed at launch); if every instance shows it, compare the launch template with the plan"


def _efa(*cards: tuple[int, str]):
    interfaces = [interface(0, "interface"), *(interface(card, kind, 1 if card == 0 else 0) for card, kind in cards)]
    documents = fleet([instance("i-0", EFA_GROUP, interfaces=interfaces)], [])
    return nodes.check_efa(judge(with_groups(P5, EFA_GROUP), documents))


def test_the_planned_efa_interfaces_are_no_finding_and_an_ena_interface_does_not_count():
    assert _efa((0, "efa"), (1, "efa-only"), (2, "efa-only")) == []
    assert _efa((0, "efa"), (1, "efa-only"), (2, "efa-only"), (3, "interface")) == []


def test_a_missing_efa_interface_is_named_with_its_card_and_kind():
    assert _json(_efa((1, "efa-only"), (2, "efa-only"))) == [
        {
            "code": "conform.efa-interfaces",
            "severity": "error",
            "path": "pools[0]",
            "file": None,
            "line": None,
            "column": None,
            "message": f"instance i-0 of {WHERE} has 2 EFA interfaces, the launch template gives 3; missing on network cards 0 (efa)",
            "hint": EFA_HINT,
            "certificate": {"pool": "train", "instance": "i-0", "expected": 3, "observed": 2, "missing_cards": [0]},
        }
    ]


def test_an_unplanned_efa_interface_alone_is_named_and_misses_no_card():
    (found,) = _efa((0, "efa"), (1, "efa-only"), (2, "efa-only"), (3, "efa"))
    assert found.message == f"instance i-0 of {WHERE} has 4 EFA interfaces, the launch template gives 3; unplanned on network cards 3 (efa)"
    assert found.certificate["missing_cards"] == []


def test_an_interface_of_the_other_efa_kind_is_both_missing_and_unplanned():
    (found,) = _efa((0, "efa"), (1, "efa"), (2, "efa-only"), (4, "efa-only"))
    assert found.message == (
        f"instance i-0 of {WHERE} has 4 EFA interfaces, the launch template gives 3; "
        "missing on network cards 1 (efa-only); unplanned on network cards 1 (efa), 4 (efa-only)"
    )
    assert found.certificate["missing_cards"] == [1]


def test_two_interfaces_missing_are_listed_by_card():
    (found,) = _efa(
        (0, "efa"),
    )
    assert found.message.endswith("has 1 EFA interfaces, the launch template gives 3; missing on network cards 1 (efa-only), 2 (efa-only)")
    assert found.certificate["missing_cards"] == [1, 2]


ALLOCATABLE_HINT = "a device or its plugin is failing on this node: see the device plugin's pod log there; replace the node if the devices are gone"


def _allocatable(*listed: dict[str, Any]):
    group = resized(TRAIN, desired_size=2, max_size=2)
    return nodes.check_allocatable(judge(with_groups(P5, group), fleet([], list(listed))))


def test_nodes_advertising_the_catalogs_devices_are_no_finding():
    assert _allocatable(node("n-0", "i-0", TRAIN, allocatable=DEVICES), node("n-1", "i-1", TRAIN, allocatable=DEVICES)) == []


def test_a_node_short_of_its_efa_devices_is_named_though_its_gpus_are_right():
    found = _allocatable(node("n-0", "i-0", TRAIN, allocatable={"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "31"}))
    assert _json(found) == [
        {
            "code": "conform.allocatable",
            "severity": "error",
            "path": "pools[0]",
            "file": None,
            "line": None,
            "column": None,
            "message": f"node n-0 (i-0) of {WHERE} advertises vpc.amazonaws.com/efa=31, the design expects 32",
            "hint": ALLOCATABLE_HINT,
            "certificate": {"pool": "train", "node": "n-0", "resource": "vpc.amazonaws.com/efa", "expected": 32, "observed": "31"},
        }
    ]


def test_a_node_with_no_gpu_key_reads_as_0_and_each_wrong_resource_is_its_own_finding():
    found = _allocatable(node("n-1", "i-1", TRAIN, allocatable={"vpc.amazonaws.com/efa": "33"}))
    assert [finding.message for finding in found] == [
        f"node n-1 (i-1) of {WHERE} advertises nvidia.com/gpu=0, the design expects 8",
        f"node n-1 (i-1) of {WHERE} advertises vpc.amazonaws.com/efa=33, the design expects 32",
    ]
    assert [finding.certificate["observed"] for finding in found] == ["0", "33"]


def test_a_node_not_ready_is_not_judged_on_its_devices():
    assert _allocatable(node("n-0", "i-0", TRAIN, ready=False, allocatable={})) == []


def test_a_group_whose_reservation_is_pending_does_not_stop_the_next_group_being_counted():
    pending = resized(TRAIN, desired_size=3, max_size=3)
    later = resized(TRAIN, name="later-use1a", desired_size=2, max_size=2, reservation_id="cr-0b1b2c3d4e5f60718")
    listed = [node("n-0", "i-0", later)]
    documents = {**fleet([instance("i-0", later)], listed), **_reservations((BLOCK, "payment-pending"), ("cr-0b1b2c3d4e5f60718", "active"))}
    found = nodes.check_counts(judge(with_groups(P5, pending, later), documents))
    assert [(finding.severity, finding.message) for finding in found] == [
        ("info", f"{WHERE}: its reservation {BLOCK} is payment-pending, so its node count was not judged"),
        ("error", "pool 'train' (node group later-use1a, us-east-1a) has 1 Ready nodes, the design plans 2"),
    ]


def test_an_instance_with_its_planned_interfaces_does_not_stop_the_next_being_judged():
    good = [interface(0, "interface"), interface(0, "efa", 1), interface(1, "efa-only"), interface(2, "efa-only")]
    short = [interface(0, "interface"), interface(0, "efa", 1), interface(1, "efa-only")]
    documents = fleet([instance("i-0", EFA_GROUP, interfaces=good), instance("i-1", EFA_GROUP, interfaces=short)], [])
    (found,) = nodes.check_efa(judge(with_groups(P5, EFA_GROUP), documents))
    assert found.message == f"instance i-1 of {WHERE} has 2 EFA interfaces, the launch template gives 3; missing on network cards 2 (efa-only)"
