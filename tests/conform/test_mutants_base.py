"""railyard/conform/base.py: how every check ties what it reads to the plan, on a few objects built in memory. A node
belongs to the node group its EKS label names (and to none when that group isn't planned), else to its pool's group in
its zone, by zone name or zone id; an instance to its `eks:nodegroup-name` tag, else to its node's group; only running
instances of a planned group count; a check lacking files names each with why (missing, unreadable); a message lists
five names, then how many more."""

from __future__ import annotations

from railyard.conform.base import Judge, listed, where
from railyard.online.evidence import INSTANCES, NODES, TOPOLOGY, Evidence, Problem
from tests.conform.judges import fleet, instance, judge, node, planned, resized, with_groups

P5 = planned("p5-capacity-block.yaml")
TRAIN = resized(P5.groups[0], desired_size=2, max_size=2)
# A second group of the same pool in another zone, as Karpenter's groups are found (pool and zone, no node group label).
EAST_B = resized(TRAIN, name="train-use1b", availability_zones=("us-east-1b",))
EXPECTED = with_groups(P5, TRAIN, EAST_B)


def test_a_node_is_its_labelled_node_groups_and_a_group_not_planned_is_none():
    judged = judge(EXPECTED, {})
    (labelled,) = Judge(EXPECTED, Evidence("e", {NODES: {"items": [node("n-0", "i-0", EAST_B)]}})).nodes.values()
    assert judged.group_of_node(labelled) == EAST_B
    (stray,) = Judge(EXPECTED, Evidence("e", {NODES: {"items": [node("n-1", "i-1", resized(TRAIN, name="gone"))]}})).nodes.values()
    assert judged.group_of_node(stray) is None


def _unlabelled(labels: dict[str, str]):
    (found,) = Judge(EXPECTED, Evidence("e", {NODES: {"items": [node("n-0", "i-0", None, labels=labels)]}})).nodes.values()
    return judge(EXPECTED, {}).group_of_node(found)


def test_a_node_without_a_node_group_label_is_its_pools_group_in_its_zone_by_name_or_id():
    assert _unlabelled({"railyard.dev/pool": "train", "topology.kubernetes.io/zone": "us-east-1b"}) == EAST_B
    assert _unlabelled({"railyard.dev/pool": "train", "topology.kubernetes.io/zone": "us-east-1a"}) == TRAIN
    by_id = with_groups(P5, resized(TRAIN, availability_zones=("use1-az6",)))
    (found,) = Judge(
        by_id,
        Evidence(
            "e",
            {
                NODES: {
                    "items": [
                        node(
                            "n-0",
                            "i-0",
                            None,
                            labels={
                                "railyard.dev/pool": "train",
                                "topology.k8s.aws/zone-id": "use1-az6",
                                "topology.kubernetes.io/zone": "us-east-1c",
                            },
                        )
                    ]
                }
            },
        ),
    ).nodes.values()
    assert judge(by_id, {}).group_of_node(found).availability_zones == ("use1-az6",)


def test_a_node_of_no_pool_or_zone_the_plan_has_is_in_no_group():
    assert _unlabelled({"railyard.dev/pool": "train", "topology.kubernetes.io/zone": "us-east-1c"}) is None
    assert _unlabelled({"railyard.dev/pool": "serve", "topology.kubernetes.io/zone": "us-east-1a"}) is None
    assert _unlabelled({"topology.kubernetes.io/zone": "us-east-1a"}) is None
    assert _unlabelled({}) is None


def test_the_first_group_of_a_pool_in_a_zone_is_the_one_a_node_is_tied_to():
    second = resized(TRAIN, name="train-use1a-2")
    expected = with_groups(P5, TRAIN, second)
    (found,) = Judge(
        expected,
        Evidence(
            "e", {NODES: {"items": [node("n-0", "i-0", None, labels={"railyard.dev/pool": "train", "topology.kubernetes.io/zone": "us-east-1a"})]}}
        ),
    ).nodes.values()
    assert judge(expected, {}).group_of_node(found) == TRAIN


def test_instances_belong_to_their_tagged_group_else_their_nodes_and_only_running_ones_count():
    instances = [
        instance("i-3", EAST_B),
        instance("i-1", TRAIN, tagged=False),
        instance("i-2", TRAIN, state="pending"),
        instance("i-0", TRAIN),
        instance("i-4", TRAIN, tagged=False),  # no node, no tag: no group
        instance("i-5", resized(TRAIN, name="gone")),  # a group the plan doesn't have, and no node
    ]
    nodes = [node("n-1", "i-1", EAST_B), node("n-x", None, TRAIN)]
    judged = judge(EXPECTED, fleet(instances, nodes))
    assert [(item.instance_id, group.name) for item, group in judged.running()] == [
        ("i-0", "train-use1a"),
        ("i-1", "train-use1b"),
        ("i-3", "train-use1b"),
    ]
    assert [item.instance_id for item in judged.group_instances(EAST_B)] == ["i-1", "i-3"]
    assert [item.instance_id for item in judged.group_instances(TRAIN)] == ["i-0"]
    assert set(judged.node_of_instance) == {"i-1"}


def test_a_groups_ready_nodes_are_listed_by_name_and_a_node_not_ready_is_not_one():
    nodes = [node("n-2", "i-2", TRAIN), node("n-0", "i-0", TRAIN), node("n-1", "i-1", TRAIN, ready=False), node("n-3", "i-3", EAST_B)]
    judged = judge(EXPECTED, fleet([], nodes))
    assert [item.name for item in judged.ready_nodes(TRAIN)] == ["n-0", "n-2"]
    assert [item.name for item in judged.ready_nodes(EAST_B)] == ["n-3"]
    assert judged.ready_nodes(resized(TRAIN, name="gone")) == []


def test_a_judge_without_files_reads_no_objects():
    judged = judge(EXPECTED, {})
    assert (judged.instances, judged.nodes, judged.placed, judged.running()) == ({}, {}, {}, [])
    assert judged.has() and not judged.has(NODES)
    assert judge(EXPECTED, {NODES: {}, INSTANCES: {}}).has(NODES, INSTANCES)


def test_a_check_lacking_files_names_each_with_why_in_the_folder():
    evidence = Evidence("/tmp/folder", {NODES: {"items": []}}, {INSTANCES: Problem(INSTANCES, "not JSON (Expecting value)")})
    (found,) = Judge(EXPECTED, evidence).not_checked("the thing", [NODES, INSTANCES, TOPOLOGY], ("kubernetes",))
    assert found.as_json() == {
        "code": "conform.not-checked",
        "severity": "error",
        "path": "kubernetes",
        "file": None,
        "line": None,
        "column": None,
        "message": f"could not check the thing: {INSTANCES} is not JSON (Expecting value); {TOPOLOGY} is missing in /tmp/folder",
        "hint": "record the folder again with `railyard conform --record DIR` (docs/conform.md lists each file and the command that prints it)",
        "certificate": {"check": "the thing", "files": [INSTANCES, TOPOLOGY]},
    }
    assert Judge(EXPECTED, evidence).not_checked("the thing", [NODES]) == []


def test_a_message_lists_five_names_sorted_then_how_many_more():
    assert listed([]) == ""
    assert listed(["e", "a", "c", "b", "d"]) == "a, b, c, d, e"
    assert listed(["f", "e", "a", "c", "b", "d"]) == "a, b, c, d, e and 1 more"
    assert listed([f"n-{index}" for index in range(12)]) == "n-0, n-1, n-10, n-11, n-2 and 7 more"


def test_a_group_is_named_by_its_pool_node_group_and_first_zone():
    assert where(resized(TRAIN, availability_zones=("us-east-1b", "us-east-1a"))) == "pool 'train' (node group train-use1a, us-east-1b)"
