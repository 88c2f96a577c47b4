"""railyard/conform/fabric.py's verdicts on a few instances and nodes built in memory: the switch hops of a network tree
at each layer two instances part at (and none), labels absent, stale or matching the topology API, a pool's hops
exactly at its fabric's bound and past it, and an UltraServer domain whole, short, not yet in a block, or with each
interconnect status (ok, impaired, another, none).

p5.48xlarge has three network layers and its fabric allows 3 switches; trn2u.48xlarge is an UltraServer of 4."""

from __future__ import annotations

from typing import Any

import pytest

from railyard.conform import fabric
from railyard.conform.observed import Placed
from railyard.online.evidence import BLOCK_STATUS, INSTANCES, NODES, TOPOLOGY
from tests.conform.judges import (
    fleet,
    instance,
    judge,
    node,
    not_checked_json,
    planned,
    resized,
    topology,
    with_groups,
)

P5 = planned("p5-capacity-block.yaml")
TRAIN = resized(P5.groups[0], desired_size=3, max_size=3)
TRN = planned("trn2-ultraserver.yaml")
ULTRA = TRN.groups[0]
WHERE = "pool 'train' (node group train-use1a, us-east-1a)"
LAYER = "topology.k8s.aws/network-node-layer-{}"


def _placed(instance_id: str, *nodes: str, block: str | None = None) -> Placed:
    return Placed(instance_id, tuple(nodes), block)


def test_the_expectations_these_tests_stand_on():
    assert (P5.catalog.get("p5.48xlarge").topology_layers, P5.hop_bound("train")) == (3, 3)
    assert (TRN.catalog.get("trn2u.48xlarge").scale_up.instances_per_domain, TRN.hop_bound("ultra"), ULTRA.pool) == (4, None, "ultra")


@pytest.mark.parametrize(
    ("placed", "worst"),
    [
        ([], (0, None)),
        ([_placed("i-1", "a", "b", "c")], (1, None)),
        ([_placed("i-2", "a", "b", "c"), _placed("i-1", "a", "b", "c")], (1, ("i-1", "i-2"))),
        ([_placed("i-3", "a", "b", "c"), _placed("i-1", "a", "b", "c"), _placed("i-2", "a", "b", "d")], (3, ("i-1", "i-2"))),
        ([_placed("i-1", "a", "b", "c"), _placed("i-2", "a", "b", "c"), _placed("i-3", "a", "e", "f")], (5, ("i-1", "i-3"))),
        ([_placed("i-2", "a", "b", "c"), _placed("i-1", "x", "b", "c")], (7, ("i-1", "i-2"))),
        # Only the layers every instance reports count: two layers here, parting at the second.
        ([_placed("i-1", "a", "b", "c"), _placed("i-2", "a", "z")], (3, ("i-1", "i-2"))),
    ],
    ids=["none", "one", "same-leaf", "part-at-layer-3", "part-at-layer-2", "part-at-layer-1", "shortest-reports"],
)
def test_the_worst_hops_are_set_by_the_shallowest_layer_two_instances_part_at(placed, worst):
    assert fabric.worst_hops(placed) == worst


def _labelled(layers: list[str]) -> dict[str, str]:
    return {LAYER.format(index): name for index, name in enumerate(layers, 1)}


def _labels(group, nodes: list[dict[str, Any]], placed: list[tuple[str, list[str], str | None]]):
    return fabric.check_labels(judge(with_groups(P5, group), {NODES: {"items": nodes}, TOPOLOGY: topology(*placed)}))


def test_labels_equal_to_the_topology_apis_nodes_are_no_finding_and_a_node_it_does_not_place_is_not_compared():
    nodes = [
        node("n-0", "i-0", TRAIN, labels=_labelled(["nn-1", "nn-2", "nn-3"])),
        node("n-1", "i-1", TRAIN, labels=_labelled(["nn-1", "nn-2", "nn-old"])),
        node("n-2", "i-2", TRAIN, labels=_labelled(["nn-1", "nn-2", "nn-old"])),
    ]
    placed = [("i-0", ["nn-1", "nn-2", "nn-3"], None), ("i-2", [], None)]
    assert _labels(TRAIN, nodes, placed) == []


def test_a_node_lacking_layer_labels_is_named_with_each_missing_one():
    nodes = [node("n-0", "i-0", TRAIN, labels={LAYER.format(2): "nn-2"})]
    found = _labels(TRAIN, nodes, [("i-0", ["nn-1", "nn-2", "nn-3"], None)])
    assert [finding.as_json() for finding in found] == [
        {
            "code": "conform.topology-labels",
            "severity": "error",
            "path": "pools[0]",
            "file": None,
            "line": None,
            "column": None,
            "message": f"node n-0 (i-0) of {WHERE} lacks {LAYER.format(1)}, {LAYER.format(3)}; a p5.48xlarge has 3 layers",
            "hint": "the AWS cloud controller didn't label it (kubernetes/cloud-provider-aws#1100): cordon it, and upgrade the "
            "cloud controller; topology-aware placement ignores unlabelled nodes",
            "certificate": {"missing": [LAYER.format(1), LAYER.format(3)], "pool": "train", "node": "n-0", "instance": "i-0"},
        }
    ]


def test_a_node_labelled_otherwise_than_the_topology_api_is_named_after_an_unlabelled_one():
    nodes = [
        node("n-0", "i-0", TRAIN, labels=_labelled(["nn-1", "nn-2"])),
        node("n-1", "i-1", TRAIN, labels=_labelled(["nn-1", "nn-2", "nn-3"])),
    ]
    found = _labels(TRAIN, nodes, [("i-0", ["nn-1", "nn-2", "nn-3"], None), ("i-1", ["nn-1", "nn-2", "nn-4", "nn-5"], None)])
    assert [finding.message for finding in found] == [
        f"node n-0 (i-0) of {WHERE} lacks {LAYER.format(3)}; a p5.48xlarge has 3 layers",
        f"node n-1 (i-1) of {WHERE} is labelled nn-1, nn-2, nn-3, DescribeInstanceTopology says nn-1, nn-2, nn-4, nn-5",
    ]
    stale = found[1].as_json()
    assert stale["hint"] == "stale labels steer topology-aware jobs to the wrong place: relabel the node from the topology API, or replace it"
    assert stale["certificate"] == {
        "expected": ["nn-1", "nn-2", "nn-4", "nn-5"],
        "observed": ["nn-1", "nn-2", "nn-3"],
        "pool": "train",
        "node": "n-1",
        "instance": "i-1",
    }


def test_a_node_whose_first_layers_match_a_longer_answer_is_no_finding():
    nodes = [node("n-0", "i-0", TRAIN, labels=_labelled(["nn-1", "nn-2", "nn-3"]))]
    assert _labels(TRAIN, nodes, [("i-0", ["nn-1", "nn-2", "nn-3", "nn-4"], None)]) == []


@pytest.mark.parametrize("instance_type", ["inf2.48xlarge", "zz9.unknown"], ids=["no-layers", "not-in-the-catalog"])
def test_a_type_without_network_layers_or_unknown_is_not_judged_on_labels(instance_type):
    group = resized(TRAIN, instance_type=instance_type)
    assert _labels(group, [node("n-0", "i-0", group)], [("i-0", ["nn-1", "nn-2", "nn-3"], None)]) == []


def test_a_node_not_ready_is_not_judged_on_labels():
    assert _labels(TRAIN, [node("n-0", "i-0", TRAIN, ready=False)], [("i-0", ["nn-1", "nn-2", "nn-3"], None)]) == []


@pytest.mark.parametrize(
    ("check", "needs", "what"),
    [
        (fabric.check_labels, [NODES, TOPOLOGY], "the topology labels"),
        (fabric.check_placement, [INSTANCES, TOPOLOGY], "the placement"),
    ],
    ids=["labels", "placement"],
)
def test_each_check_without_its_files_names_each_one(check, needs, what):
    found = check(judge(with_groups(P5, TRAIN), {}))
    assert [finding.as_json() for finding in found] == [not_checked_json(what, "pools", *needs)]


def _placement(expected, group, placed: list[tuple[str, list[str], str | None]], stopped: tuple[str, ...] = ()):
    instances = [instance(item[0], group, state="stopped" if item[0] in stopped else "running") for item in placed]
    documents = {**fleet(instances, []), TOPOLOGY: topology(*placed)}
    return fabric.check_placement(judge(with_groups(expected, group), documents))


def test_a_pool_exactly_at_its_fabrics_bound_is_no_finding():
    placed = [("i-0", ["nn-1", "nn-2", "leaf-a"], None), ("i-1", ["nn-1", "nn-2", "leaf-b"], None)]
    assert _placement(P5, TRAIN, placed) == []


def test_a_pool_one_layer_past_its_bound_is_an_error_with_its_spread():
    placed = [
        ("i-0", ["nn-1", "nn-2", "leaf-a"], None),
        ("i-1", ["nn-1", "nn-2b", "leaf-c"], None),
        ("i-2", ["nn-1", "nn-2", "leaf-b"], None),
        ("i-3", [], None),  # not placed yet
    ]
    found = _placement(P5, TRAIN, placed)
    assert [finding.as_json() for finding in found] == [
        {
            "code": "conform.placement",
            "severity": "error",
            "path": "pools[0]",
            "file": None,
            "line": None,
            "column": None,
            "message": "pool 'train' spans network nodes 1 at layer-1, 2 at layer-2, 3 at layer-3: instances i-0 and i-1 are 5 switches apart, "
            "the fabric allows 3",
            "hint": "the instances landed under more network nodes than the design assumes; relaunch the stragglers in the pool's "
            "placement group or Capacity Block, or raise the fabric's max_switch_hops",
            "certificate": {
                "pool": "train",
                "instances": ["i-0", "i-1"],
                "expected": 3,
                "observed": 5,
                "distinct": {"layer-1": 1, "layer-2": 2, "layer-3": 3},
            },
        }
    ]


def test_a_stopped_instance_far_away_does_not_count():
    placed = [("i-0", ["nn-1", "nn-2", "leaf-a"], None), ("i-1", ["nn-9", "nn-8", "leaf-z"], None)]
    assert _placement(P5, TRAIN, placed, stopped=("i-1",)) == []


def test_a_pool_whose_fabric_sets_no_bound_is_not_judged_on_placement():
    placed = [("i-0", ["nn-1", "nn-2", "leaf-a"], "cb-a"), ("i-1", ["nn-9", "nn-8", "leaf-z"], "cb-a")]
    assert _placement(TRN, ULTRA, placed) == []


BLOCK_A, BLOCK_B = "cr-0aaaaaaaaaaaaaaaa", "cr-0bbbbbbbbbbbbbbbb"


def _ultraservers(members: dict[str | None, list[str]], statuses: dict[str, str | None], expected=TRN, group=ULTRA):
    placed = [(member, ["nn-1", "nn-2", "nn-3"], block) for block, names in members.items() for member in names]
    instances = [instance(member, group) for member, _, _ in placed]
    status = [{"CapacityBlockId": block, **({"InterconnectStatus": state} if state else {})} for block, state in statuses.items()]
    documents = {**fleet(instances, []), TOPOLOGY: topology(*placed), BLOCK_STATUS: {"CapacityBlockStatuses": status}}
    return fabric.check_ultraservers(judge(with_groups(expected, group), documents))


def test_whole_ultraservers_with_their_interconnect_ok_are_no_finding():
    members = {BLOCK_A: ["i-0", "i-1", "i-2", "i-3"], BLOCK_B: ["i-4", "i-5", "i-6", "i-7"]}
    assert _ultraservers(members, {BLOCK_A: "ok", BLOCK_B: "ok"}) == []


def test_an_ultraserver_short_of_an_instance_is_an_error_and_its_interconnect_still_judged():
    found = _ultraservers({BLOCK_A: ["i-2", "i-0", "i-1"], BLOCK_B: ["i-4", "i-5", "i-6", "i-7", "i-8"]}, {BLOCK_A: "ok", BLOCK_B: "impaired"})
    assert [finding.as_json() for finding in found] == [
        {
            "code": "conform.ultraserver",
            "severity": "error",
            "path": "pools[0]",
            "file": None,
            "line": None,
            "column": None,
            "message": f"pool 'ultra': UltraServer {BLOCK_A} holds 3 of the pool's instances (i-0, i-1, i-2), the design fills it with 4",
            "hint": "a partial domain splits the scale-up ring: bring the missing instances back into the block",
            "certificate": {"expected": 4, "observed": 3, "pool": "ultra", "capacity_block": BLOCK_A, "instances": ["i-0", "i-1", "i-2"]},
        },
        {
            "code": "conform.ultraserver",
            "severity": "error",
            "path": "pools[0]",
            "file": None,
            "line": None,
            "column": None,
            "message": f"pool 'ultra': UltraServer {BLOCK_B} holds 5 of the pool's instances (i-4, i-5, i-6, i-7, i-8), the design fills it with 4",
            "hint": "a partial domain splits the scale-up ring: bring the missing instances back into the block",
            "certificate": {
                "expected": 4,
                "observed": 5,
                "pool": "ultra",
                "capacity_block": BLOCK_B,
                "instances": ["i-4", "i-5", "i-6", "i-7", "i-8"],
            },
        },
        {
            "code": "conform.ultraserver",
            "severity": "error",
            "path": "pools[0]",
            "file": None,
            "line": None,
            "column": None,
            "message": f"pool 'ultra': UltraServer {BLOCK_B}'s accelerator interconnect is impaired (instances i-4, i-5, i-6, i-7, i-8)",
            "hint": "open a case with AWS for the block; jobs across the domain will run slowly or fail",
            "certificate": {"observed": "impaired", "pool": "ultra", "capacity_block": BLOCK_B, "instances": ["i-4", "i-5", "i-6", "i-7", "i-8"]},
        },
    ]


def test_an_interconnect_in_another_state_is_a_warning_and_one_with_no_status_says_so():
    members = {BLOCK_A: ["i-0", "i-1", "i-2", "i-3"], BLOCK_B: ["i-4", "i-5", "i-6", "i-7"]}
    found = _ultraservers(members, {BLOCK_A: "insufficient-data", BLOCK_B: None})
    assert [(finding.severity, finding.message, finding.hint) for finding in found] == [
        (
            "warning",
            f"pool 'ultra': UltraServer {BLOCK_A}'s accelerator interconnect is insufficient-data (instances i-0, i-1, i-2, i-3)",
            "open a case with AWS for the block; jobs across the domain will run slowly or fail",
        ),
        (
            "warning",
            f"pool 'ultra': DescribeCapacityBlockStatus gives no interconnect status for UltraServer {BLOCK_B}",
            "record again; the block may be new",
        ),
    ]
    assert found[1].certificate == {"pool": "ultra", "capacity_block": BLOCK_B, "instances": ["i-4", "i-5", "i-6", "i-7"]}
    # A block the status file does not list at all reads the same as one without a status.
    (unlisted,) = _ultraservers({BLOCK_A: ["i-0", "i-1", "i-2", "i-3"]}, {})
    assert unlisted.message == f"pool 'ultra': DescribeCapacityBlockStatus gives no interconnect status for UltraServer {BLOCK_A}"


def test_instances_not_yet_in_a_block_are_a_warning_to_record_again():
    found = _ultraservers({None: ["i-1", "i-0"], BLOCK_A: ["i-2", "i-3", "i-4", "i-5"]}, {BLOCK_A: "ok"})
    assert [finding.as_json() for finding in found] == [
        {
            "code": "conform.ultraserver",
            "severity": "warning",
            "path": "pools[0]",
            "file": None,
            "line": None,
            "column": None,
            "message": "pool 'ultra': instances i-0, i-1 have no CapacityBlockId yet (it appears shortly after launch)",
            "hint": "record again in a few minutes",
            "certificate": {"pool": "ultra", "capacity_block": None, "instances": ["i-0", "i-1"]},
        }
    ]


def test_an_instance_the_topology_api_does_not_list_has_no_block():
    instances = [instance("i-0", ULTRA)]
    documents = {**fleet(instances, []), TOPOLOGY: topology(), BLOCK_STATUS: {"CapacityBlockStatuses": []}}
    (found,) = fabric.check_ultraservers(judge(with_groups(TRN, ULTRA), documents))
    assert found.message == "pool 'ultra': instances i-0 have no CapacityBlockId yet (it appears shortly after launch)"


def test_pools_of_types_without_ultraservers_need_no_block_status():
    assert fabric.check_ultraservers(judge(with_groups(P5, TRAIN), {})) == []


def test_an_ultraserver_pool_without_the_block_status_file_says_it_did_not_run():
    documents = {**fleet([instance("i-0", ULTRA)], []), TOPOLOGY: topology()}
    (found,) = fabric.check_ultraservers(judge(with_groups(TRN, ULTRA), documents))
    assert (found.code, found.message) == ("conform.not-checked", f"could not check the UltraServer domains: {BLOCK_STATUS} is missing in evidence")
    assert found.certificate == {"check": "the UltraServer domains", "files": [BLOCK_STATUS]}


def test_only_the_ultraserver_pools_instances_are_its_domains():
    other = resized(TRAIN, name="other-use1a", pool="other")
    expected = with_groups(TRN, ULTRA, other)
    placed = [(f"i-{index}", ["nn-1"], BLOCK_A) for index in range(5)]
    instances = [instance(f"i-{index}", ULTRA if index < 4 else other) for index in range(5)]
    status = {"CapacityBlockStatuses": [{"CapacityBlockId": BLOCK_A, "InterconnectStatus": "ok"}]}
    documents = {**fleet(instances, []), TOPOLOGY: topology(*placed), BLOCK_STATUS: status}
    assert fabric.check_ultraservers(judge(expected, documents)) == []


def test_a_node_the_topology_api_does_not_place_does_not_stop_the_next_node_being_compared():
    nodes = [
        node("n-0", "i-0", TRAIN, labels=_labelled(["nn-1", "nn-2", "nn-3"])),
        node("n-1", "i-1", TRAIN, labels=_labelled(["nn-1", "nn-2", "nn-3"])),
    ]
    (found,) = _labels(TRAIN, nodes, [("i-0", [], None), ("i-1", ["nn-1", "nn-2", "nn-9"], None)])
    assert (found.code, found.severity, found.path) == ("conform.topology-labels", "error", ("pools", 0))
    assert found.message == f"node n-1 (i-1) of {WHERE} is labelled nn-1, nn-2, nn-3, DescribeInstanceTopology says nn-1, nn-2, nn-9"


def test_a_pool_without_a_bound_does_not_stop_the_next_pool_being_judged():
    other = resized(TRAIN, name="other-use1a", pool="other")  # not a pool of the blueprint: no fabric, no bound
    placed = [("i-0", ["nn-1", "nn-2", "leaf-a"], None), ("i-1", ["nn-9", "nn-2", "leaf-b"], None), ("o-0", ["x"], None), ("o-1", ["y"], None)]
    instances = [instance(item[0], TRAIN if item[0].startswith("i") else other) for item in placed]
    documents = {**fleet(instances, []), TOPOLOGY: topology(*placed)}
    (found,) = fabric.check_placement(judge(with_groups(P5, other, TRAIN), documents))
    assert (found.code, found.message) == (
        "conform.placement",
        "pool 'train' spans network nodes 2 at layer-1, 1 at layer-2, 2 at layer-3: instances i-0 and i-1 are 7 switches apart, the fabric allows 3",
    )


def test_ultraservers_are_judged_in_the_order_of_their_blocks_whatever_the_instances_ids():
    members = {BLOCK_B: ["i-0", "i-1", "i-2", "i-3"], BLOCK_A: ["i-4", "i-5", "i-6", "i-7"]}
    found = _ultraservers(members, {BLOCK_A: None, BLOCK_B: None})
    assert [(finding.code, finding.severity, finding.certificate["capacity_block"]) for finding in found] == [
        ("conform.ultraserver", "warning", BLOCK_A),
        ("conform.ultraserver", "warning", BLOCK_B),
    ]
