"""railyard/change/node_group_steps.py on built changes: a held group created or replaced (`change.held-group-created`), a
move between the EKS AMI and a custom one (`change.ami-switch`, an error one way and a warning the other) and a version
going down (`change.version-down`, whose hint and path depend on whether the pool holds its version). Each finding's
code, path and words; each condition's other side gives nothing."""

from __future__ import annotations

import pytest

from railyard.change.node_group_steps import TWO_STEPS, ami_switches, held_groups_created, version_goes_down, versions_down
from railyard.change.upgrade import CLUSTER
from tests.change.built import blueprint, change, group, pool, resource, side

NEW = side(blueprint(pool("infer"), pool("train", kubernetes_version="1.30"), version="1.31"))
RUNNING = [resource("c", CLUSTER, {"version": "1.31"})]
TRAIN = {"nodeGroupName": "train-a-ng", "labels": {"railyard.dev/pool": "train"}}


def _created(action: str = "create", version: object = "1.30", **inputs):
    old = None if action == "create" else {**TRAIN, "version": version}
    return group("train-a", action, old, {**TRAIN, "version": version, **inputs})


def test_a_held_group_created_is_refused_at_its_pools_hold():
    (finding,) = held_groups_created([_created()], NEW, RUNNING)
    assert (finding.code, finding.severity, finding.path, finding.line) == (
        "change.held-group-created",
        "error",
        ("pools", 1, "kubernetes_version"),
        1,
    )
    assert finding.message == (
        "node group train-a-ng (pool 'train') is held at Kubernetes 1.30, and this change creates it: EKS creates a node group only at "
        'the cluster\'s version (1.31; CreateNodegroup `version`: "this is the only accepted specified value"), so `pulumi up` is refused'
    )
    assert finding.hint == (
        "a hold applies only to node groups that exist: drop this pool's kubernetes_version for the change (its new groups join at "
        "1.31), or make the change once the pool has been brought to 1.31"
    )


def test_a_held_group_replaced_says_it_is_deleted_then_created_and_an_unlabelled_one_is_at_the_root():
    (finding,) = held_groups_created([_created("replace")], NEW, RUNNING)
    assert "and this change replaces (deletes, then creates) it: " in finding.message
    bare = group("lone", "create", None, {"version": "1.30"})
    (finding,) = held_groups_created([bare], NEW, RUNNING)
    assert finding.path == ()
    assert finding.message.startswith("node group lone (pool '') is held at Kubernetes 1.30")


@pytest.mark.parametrize(
    ("item", "resources"),
    [
        (_created(version="1.31"), RUNNING),  # at the cluster's version
        (_created(version=None), RUNNING),  # no version: the cluster's
        (_created(), []),  # no cluster version known
        (_created("update"), RUNNING),  # updated, not created
        (_created("may-replace"), RUNNING),
        (change("x", "aws:eks/addon:Addon", "create", None, {"version": "1.30"}), RUNNING),
        (group("gone", "delete", {"version": "1.30"}, None), RUNNING),
    ],
)
def test_no_held_group_created(item, resources):
    assert held_groups_created([item], NEW, resources) == []


def test_a_version_written_as_a_number_is_compared_as_text():
    assert held_groups_created([_created(version=1.31)], side(blueprint(version="1.31")), RUNNING) == []


def test_every_held_group_created_is_refused_in_order():
    second = group("train-b", "create", None, {"nodeGroupName": "train-b-ng", "version": "1.29"})
    assert [f.message.split(" ")[2] for f in held_groups_created([_created(version="1.31"), _created(), second], NEW, RUNNING)] == [
        "train-a-ng",
        "train-b-ng",
    ]


# --- AMI switches ------------------------------------------------------------------------------------------------------


def test_from_the_eks_ami_to_a_custom_one_is_refused_with_the_two_steps():
    item = group("train-a", "update", {**TRAIN, "amiType": "AL2023_x86_64_NVIDIA"}, TRAIN)
    (finding,) = ami_switches([item], NEW)
    assert (finding.code, finding.severity, finding.path, finding.line) == ("change.ami-switch", "error", ("pools", 1, "ami_id"), 1)
    assert finding.message == (
        "pool 'train' moves node group train-a-ng from the EKS AMI (AL2023_x86_64_NVIDIA) to a custom AMI: the provider updates the "
        "group in place (amiType and version are optional and computed, so dropping them is no change) and EKS refuses it: "
        '"You must create a new node group to switch between specifying an AMI ID in a launch template and not specifying an AMI ID"'
    )
    assert finding.hint == TWO_STEPS


def test_from_a_custom_ami_to_the_eks_one_is_a_warning_that_the_group_is_replaced():
    item = group("lone", "replace", {}, {"amiType": "AL2023_x86_64_NVIDIA"})
    (finding,) = ami_switches([item], NEW)
    assert (finding.code, finding.severity, finding.path, finding.line) == ("change.ami-switch", "warning", (), 1)
    assert finding.message == (
        "pool '' moves node group lone from a custom AMI to the EKS AMI (AL2023_x86_64_NVIDIA): the group is replaced, deleted before "
        "its replacement is created, so every node of it is out until the new group is up"
    )
    assert finding.hint == TWO_STEPS


@pytest.mark.parametrize(
    "item",
    [
        group("a", "update", {"amiType": "X"}, {"amiType": "Y"}),  # EKS AMI on both sides
        group("a", "update", {}, {}),  # custom on both sides
        group("a", "create", None, {"amiType": "X"}),
        group("a", "delete", {"amiType": "X"}, None),
        change("a", "aws:eks/addon:Addon", "update", {"amiType": "X"}, {}),
    ],
)
def test_no_switch(item):
    assert ami_switches([item], NEW) == []


# --- a version going down --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "down"),
    [
        ("1.31", "1.30", True),
        ("1.10", "1.9", True),  # by number, not text
        ("1.30", "1.30", False),
        ("1.30", "1.31", False),
        ("1.31", None, False),
        (None, "1.30", False),
        ("1.31", "1.30.2", False),  # not a 1.NN version
        ("1.31", "1.x", False),
        ("latest", "1.30", False),
    ],
)
def test_a_version_goes_down_only_between_two_minor_versions(before, after, down):
    assert version_goes_down(group("g", "update", {"version": before}, {"version": after})) is down


def test_a_version_going_down_needs_both_sides_of_a_node_group():
    assert version_goes_down(group("g", "delete", {"version": "1.31"}, None)) is False
    assert version_goes_down(group("g", "create", None, {"version": "1.30"})) is False
    assert version_goes_down(change("a", "aws:eks/addon:Addon", "update", {"version": "1.31"}, {"version": "1.30"})) is False


def test_a_held_pools_group_going_down_is_told_to_drop_the_hold():
    item = group("train-a", "update", {**TRAIN, "version": "1.31"}, {**TRAIN, "version": "1.30"})
    (finding,) = versions_down([item], NEW)
    assert (finding.code, finding.severity, finding.path, finding.line) == ("change.version-down", "error", ("pools", 1, "kubernetes_version"), 1)
    assert finding.message == (
        "node group train-a-ng (pool 'train') goes from Kubernetes 1.31 down to 1.30: EKS refuses it "
        '("You cannot roll back a node group to an earlier Kubernetes version or AMI version", UpdateNodegroupVersion)'
    )
    assert finding.hint == (
        "a hold only keeps a group that still runs that version: drop pools[1].kubernetes_version (the group stays at 1.31); "
        "to run 1.30 again, add a pool of its own beside this one at the cluster's version"
    )
    assert finding.certificate == {"node_group": "train-a"}


def test_an_unheld_pools_group_going_down_is_told_to_keep_its_version_at_the_pool():
    infer = {"nodeGroupName": "infer-a-ng", "labels": {"railyard.dev/pool": "infer"}}
    (finding,) = versions_down([group("infer-a", "update", {**infer, "version": "1.31"}, {**infer, "version": "1.29"})], NEW)
    assert finding.path == ("pools", 0)
    assert finding.hint == "keep Kubernetes 1.31 for this group; a node group never goes back to an earlier version"


def test_a_group_of_no_pool_going_down_is_at_the_root_and_named_by_its_resource():
    (finding,) = versions_down([group("lone", "update", {"version": "1.31"}, {"version": "1.30"})], NEW)
    assert finding.path == ()
    assert finding.message.startswith("node group lone (pool '') goes from Kubernetes 1.31 down to 1.30")
    assert finding.hint.startswith("keep Kubernetes 1.31 for this group")


def test_a_new_side_that_did_not_load_counts_no_pool_and_no_hold():
    item = group("train-a", "update", {**TRAIN, "version": "1.31"}, {**TRAIN, "version": "1.30"})
    (finding,) = versions_down([item], side(None))
    assert finding.path == ()
    assert (
        held_groups_created([_created()], side(None), RUNNING)[0].path,
        ami_switches([group("a", "update", {"amiType": "X"}, {})], side(None))[0].path,
    ) == ((), ())


def test_versions_not_going_down_say_nothing_and_each_one_going_down_is_refused():
    up = group("a", "update", {"version": "1.30"}, {"version": "1.31"})
    down = [group(name, "update", {"version": "1.31"}, {"version": "1.30"}) for name in ("b", "c")]
    assert [finding.certificate["node_group"] for finding in versions_down([up, *down], NEW)] == ["b", "c"]


def test_a_held_group_created_after_changes_that_are_not_creations_is_still_refused():
    skipped = [_created("update"), change("x", "aws:eks/addon:Addon", "create", None, {"version": "1.30"})]
    assert [finding.code for finding in held_groups_created([*skipped, _created()], NEW, RUNNING)] == ["change.held-group-created"]


def test_a_switch_after_groups_that_do_not_switch_is_still_found_and_a_pools_warning_is_at_its_ami_id():
    to_eks = group("train-a", "replace", TRAIN, {**TRAIN, "amiType": "AL2023_x86_64_NVIDIA"})
    skipped = [group("a", "create", None, {"amiType": "X"}), group("b", "update", {"amiType": "X"}, {"amiType": "Y"})]
    (finding,) = ami_switches([*skipped, to_eks], NEW)
    assert (finding.code, finding.severity, finding.path) == ("change.ami-switch", "warning", ("pools", 1, "ami_id"))
    assert finding.message.startswith("pool 'train' moves node group train-a-ng from a custom AMI to the EKS AMI (AL2023_x86_64_NVIDIA)")
