"""railyard/change/upgrade.py on built resources and sides: the cluster's version read from a preview, a node group's
adopted `version` settled, `change.version-skip` at each step size (down, same, one up, two up), and the upgrade's phases
as dependency depths with the node groups the later add-ons wait for."""

from __future__ import annotations

from dataclasses import replace

import pytest

from railyard.change.upgrade import CLUSTER, NODE_GROUP, cluster_version, settle_adopted_versions, upgrade_order, version_findings
from tests.change.built import blueprint, change, group, resource, side

ADDON = "aws:eks/addon:Addon"


def test_the_cluster_version_is_the_first_eks_cluster_with_one():
    bare = resource("c0", CLUSTER, {})
    assert cluster_version([resource("g", NODE_GROUP, {"version": "1.29"}), bare, resource("c", CLUSTER, {"version": 1.3})]) == "1.3"
    assert cluster_version([resource("c", CLUSTER, {"version": ""}), resource("g", NODE_GROUP, {"version": "1.29"})]) is None
    assert cluster_version([]) is None


def test_a_group_adopting_the_running_version_settles_to_no_change_and_its_other_changes_stay():
    running = [resource("c", CLUSTER, {"version": "1.31"})]
    alone = group("ng", "update", {}, {"version": "1.31"}, {"version": "update"})
    assert settle_adopted_versions([alone], running) == []
    beside = group("ng", "update", {"size": 1}, {"size": 2, "version": "1.31"}, {"version": "update", "size": "update"})
    (settled,) = settle_adopted_versions([beside], running)
    assert [item.path for item in settled.inputs] == ["size"]


@pytest.mark.parametrize(
    ("old", "new", "via"),
    [
        ({}, {"version": "1.32"}, ""),  # another version than the running one: a real upgrade
        ({"version": "1.30"}, {"version": "1.31"}, ""),  # set before: a real change
        ({}, {"version": "1.31"}, "urn:flowed"),  # a flowed change, not the group's own
    ],
)
def test_only_an_unset_version_becoming_the_running_one_is_settled(old, new, via):
    item = group("ng", "update", old, new, {"version": "update"})
    item.inputs = [replace(item.inputs[0], via=via)]
    assert settle_adopted_versions([item], [resource("c", CLUSTER, {"version": "1.31"})]) == [item]


def test_nothing_is_settled_without_a_running_version_or_for_another_type_or_a_created_group():
    adopted = group("ng", "update", {}, {"version": "1.31"}, {"version": "update"})
    assert settle_adopted_versions([adopted], []) == [adopted]
    addon = change("a", ADDON, "update", {}, {"version": "1.31"}, {"version": "update"})
    created = group("new", "create", None, {"version": "1.31"}, {"version": "update"})
    deleted = group("gone", "delete", {"version": "1.31"}, None, {"version": "update"})
    running = [resource("c", CLUSTER, {"version": "1.31"})]
    assert settle_adopted_versions([addon, created, deleted], running) == [addon, created, deleted]


def _versions(before: str, after: str):
    return version_findings(side(blueprint(version=before)), side(blueprint(version=after)))


@pytest.mark.parametrize(("before", "after"), [("1.31", "1.31"), ("1.31", "1.32"), ("1.9", "1.10")])
def test_staying_or_one_minor_up_is_allowed(before, after):
    assert _versions(before, after) == []


def test_two_minors_up_is_refused_with_the_next_step():
    (finding,) = _versions("1.30", "1.32")
    assert (finding.code, finding.severity, finding.path, finding.line) == ("change.version-skip", "error", ("kubernetes", "version"), 1)
    assert finding.message == "kubernetes.version goes from 1.30 to 1.32: EKS upgrades a control plane one minor version at a time"
    assert finding.hint == "upgrade to 1.31 first, apply it (control plane, add-ons, then the node groups), then to the next"


def test_one_minor_down_is_refused_as_a_downgrade():
    (finding,) = _versions("1.31", "1.30")
    assert (finding.code, finding.path) == ("change.version-skip", ("kubernetes", "version"))
    assert finding.message == "kubernetes.version goes from 1.31 down to 1.30: EKS never downgrades a control plane"
    assert finding.hint == "keep 1.31; a cluster on an older version is a new cluster"


def test_a_side_that_did_not_load_is_not_judged():
    assert version_findings(side(None), side(blueprint(version="1.33"))) == []
    assert version_findings(side(blueprint(version="1.20")), side(None)) == []
    assert upgrade_order([], side(None), side(blueprint(version="1.32")), []) == []
    assert upgrade_order([], side(blueprint(version="1.31")), side(None), []) == []


# --- the upgrade's order ---------------------------------------------------------------------------------------------------


def _urn(name: str, token: str) -> str:
    return resource(name, token, {}).urn


def _cluster_and_nodes(system_block: bool = False):
    """The control plane, the VPC CNI on it, a system and a GPU node group after both, CoreDNS on the system group, and an
    unchanged IAM role the cluster reads."""
    cluster, cni = _urn("c", CLUSTER), _urn("cni", ADDON)
    system_inputs = {"nodeGroupName": "sys-ng", **({"capacityType": "CAPACITY_BLOCK"} if system_block else {})}
    resources = [
        resource("role", "aws:iam/role:Role", {}),
        resource("c", CLUSTER, {"version": "1.32"}, deps={"roleArn": [_urn("role", "aws:iam/role:Role")]}),
        resource("cni", ADDON, {"addonName": "vpc-cni"}, deps={"clusterName": [cluster]}),
        resource("sys", NODE_GROUP, system_inputs, deps={"clusterName": [cluster], "x": [cni]}),
        resource("gpu", NODE_GROUP, {}, deps={"clusterName": [cluster], "x": [cni]}),
        resource("dns", ADDON, {"addonName": "coredns"}, deps={"clusterName": [cluster], "x": [_urn("sys", NODE_GROUP)]}),
    ]
    changes = [
        change("c", CLUSTER, "update", {"version": "1.31"}, {"version": "1.32"}, {"version": "update"}),
        change("cni", ADDON, "update", {"addonName": "vpc-cni"}, {"addonName": "vpc-cni"}, {"addonVersion": "update"}),
        group("sys", "update", system_inputs, system_inputs, {"version": "update"}),
        group("gpu", "update", {}, {}, {"version": "update"}),
        change("dns", ADDON, "update", {"addonName": "coredns"}, {"addonName": "coredns"}, {"addonVersion": "update"}),
    ]
    return changes, resources


def test_an_upgrade_is_ordered_by_dependency_depth_naming_the_groups_the_later_add_ons_wait_for():
    changes, resources = _cluster_and_nodes()
    (impact,) = upgrade_order(changes, side(blueprint(version="1.31")), side(blueprint(version="1.32")), resources)
    assert (impact.kind, impact.subject) == ("upgrade", "kubernetes 1.32")
    assert impact.summary == (
        "Kubernetes 1.31 -> 1.32, applied by `pulumi up` in this order: 1. control plane; 2. add-on vpc-cni; "
        "3. node group gpu rolls, node group sys-ng rolls; 4. add-on coredns (the add-ons after the node groups wait for sys-ng only; "
        "the other node groups may still be rolling while they update)"
    )
    assert impact.figures == {
        "from": "1.31",
        "to": "1.32",
        "phases": [["control plane"], ["add-on vpc-cni"], ["node group sys-ng rolls", "node group gpu rolls"], ["add-on coredns"]],
    }


def test_a_capacity_block_group_says_its_desired_size_goes_to_zero_first():
    changes, resources = _cluster_and_nodes(system_block=True)
    (impact,) = upgrade_order(changes, side(blueprint(version="1.31")), side(blueprint(version="1.32")), resources)
    assert "node group sys-ng rolls (a Capacity Block group: desired size 0 first, see change.capacity-block-roll)" in impact.summary


def test_add_ons_waiting_for_every_group_or_none_name_no_group():
    changes, resources = _cluster_and_nodes()
    everyone = [*resources[:-1], resource("dns", ADDON, {"addonName": "coredns"}, deps={"x": [_urn("sys", NODE_GROUP), _urn("gpu", NODE_GROUP)]})]
    (impact,) = upgrade_order(changes, side(blueprint(version="1.31")), side(blueprint(version="1.32")), everyone)
    assert impact.summary.endswith("; 4. add-on coredns")
    (impact,) = upgrade_order(changes[:2] + changes[4:], side(blueprint(version="1.31")), side(blueprint(version="1.32")), resources)
    assert impact.summary.endswith("1. control plane; 2. add-on vpc-cni; 3. add-on coredns")


def test_created_resources_other_types_and_resources_not_previewed_take_no_phase():
    changes, resources = _cluster_and_nodes()
    extra = [
        group("new", "create", None, {}),
        change("role", "aws:iam/role:Role", "update", {}, {}, {"x": "update"}),
        group("ghost", "update", {}, {}, {"version": "update"}),  # in no preview
    ]
    (impact,) = upgrade_order(changes + extra, side(blueprint(version="1.31")), side(blueprint(version="1.32")), resources)
    assert [label for phase in impact.figures["phases"] for label in phase] == [
        "control plane",
        "add-on vpc-cni",
        "node group sys-ng rolls",
        "node group gpu rolls",
        "add-on coredns",
    ]


@pytest.mark.parametrize(("before", "after"), [("1.31", "1.31"), ("1.31", "1.33"), ("1.32", "1.31")])
def test_no_order_unless_the_version_moves_up_by_exactly_one(before, after):
    changes, resources = _cluster_and_nodes()
    assert upgrade_order(changes, side(blueprint(version=before)), side(blueprint(version=after)), resources) == []


def test_a_resource_unnamed_in_its_inputs_is_named_by_its_resource_and_deleted_ones_count_as_their_old_side():
    cluster = resource("c", CLUSTER, {"version": "1.32"})
    addon = resource("a", ADDON, {}, deps={"clusterName": [cluster.urn]})
    changes = [
        change("c", CLUSTER, "update", {}, {"version": "1.32"}, {"version": "update"}),
        change("a", ADDON, "update", {}, {}, {"addonVersion": "update"}),
    ]
    (impact,) = upgrade_order(changes, side(blueprint(version="1.31")), side(blueprint(version="1.32")), [cluster, addon])
    assert impact.figures["phases"] == [["control plane"], ["add-on a"]]


def test_a_settled_group_does_not_stop_the_changes_after_it():
    running = [resource("c", CLUSTER, {"version": "1.31"})]
    adopted = group("a", "update", {}, {"version": "1.31"}, {"version": "update"})
    resized = group("b", "update", {"size": 1}, {"size": 2}, {"size": "update"})
    assert settle_adopted_versions([adopted, resized], running) == [resized]


@pytest.mark.parametrize(("before", "after"), [("1.31", "1.29"), ("1.31", "1.34")])
def test_a_step_of_two_or_more_either_way_is_refused_in_its_own_words(before, after):
    (finding,) = _versions(before, after)
    assert finding.message == (
        f"kubernetes.version goes from {before} down to {after}: EKS never downgrades a control plane"
        if after < before
        else f"kubernetes.version goes from {before} to {after}: EKS upgrades a control plane one minor version at a time"
    )


def _linked(name: str, token: str, inputs: dict, dependencies: tuple[str, ...] = (), **fields):
    """A resource with explicit dependencies (the engine's `dependsOn` and its other links), beside any property dependencies."""
    return replace(resource(name, token, inputs, **fields), dependencies=dependencies)


def _both_links():
    """A control plane; the VPC CNI on it (an explicit dependency); three node groups after both (inf renamed on its new side);
    CoreDNS after gpu through an unchanged resource (an explicit dependency) and EBS CSI after sys; an add-on created on inf."""
    urn = {name: _urn(name, token) for name, token in (("c", CLUSTER), ("cni", ADDON), ("sys", NODE_GROUP), ("gpu", NODE_GROUP))}
    mid = "aws:eks/accessEntry:AccessEntry"
    after_cni = {"deps": {"clusterName": [urn["c"]]}, "dependencies": (urn["cni"],)}
    resources = [
        resource("c", CLUSTER, {"version": "1.32"}),
        _linked("cni", ADDON, {"addonName": "vpc-cni"}, dependencies=(urn["c"],)),
        _linked("sys", NODE_GROUP, {"nodeGroupName": "sys-ng"}, **after_cni),
        _linked("gpu", NODE_GROUP, {}, **after_cni),
        _linked("inf", NODE_GROUP, {"nodeGroupName": "inf-ng"}, **after_cni),
        _linked("mid", mid, {}, dependencies=(urn["gpu"],)),
        _linked("dns", ADDON, {"addonName": "coredns"}, deps={"x": [_urn("mid", mid)]}, dependencies=(urn["c"],)),
        resource("ebs", ADDON, {"addonName": "ebs-csi"}, deps={"x": [urn["sys"]]}),
        resource("extra", ADDON, {"addonName": "extra"}, deps={"x": [_urn("inf", NODE_GROUP)]}),
    ]
    changes = [
        change("c", CLUSTER, "update", {"version": "1.31"}, {"version": "1.32"}, {"version": "update"}),
        change("cni", ADDON, "update", {"addonName": "vpc-cni"}, {"addonName": "vpc-cni"}, {"addonVersion": "update"}),
        group("sys", "update", {"nodeGroupName": "sys-ng"}, {"nodeGroupName": "sys-ng"}, {"version": "update"}),
        group("gpu", "update", {}, {}, {"version": "update"}),
        group("inf", "update", {}, {"nodeGroupName": "inf-ng"}, {"version": "update"}),
        change("dns", ADDON, "update", {"addonName": "coredns"}, {"addonName": "coredns"}, {"addonVersion": "update"}),
        change("ebs", ADDON, "update", {"addonName": "ebs-csi"}, {"addonName": "ebs-csi"}, {"addonVersion": "update"}),
        change("extra", ADDON, "create", None, {"addonName": "extra"}),
    ]
    return changes, resources


def test_explicit_dependencies_and_unchanged_resources_between_are_followed_and_created_ones_take_no_phase():
    changes, resources = _both_links()
    (impact,) = upgrade_order(changes, side(blueprint(version="1.31")), side(blueprint(version="1.32")), resources)
    assert impact.figures["phases"] == [
        ["control plane"],
        ["add-on vpc-cni"],
        ["node group sys-ng rolls", "node group gpu rolls", "node group inf-ng rolls"],
        ["add-on coredns", "add-on ebs-csi"],  # coredns through the unchanged access entry: no phase of its own
    ]
    assert impact.summary.endswith(
        "4. add-on coredns, add-on ebs-csi (the add-ons after the node groups wait for gpu, sys-ng only; the other node groups may "
        "still be rolling while they update)"
    )


def test_the_add_ons_waiting_on_one_group_each_name_both_and_one_waiting_on_none_changes_nothing():
    changes, resources = _both_links()
    on_cluster = resource("kp", ADDON, {"addonName": "kube-proxy"}, deps={"clusterName": [_urn("c", CLUSTER)]})
    later = change("kp", ADDON, "update", {"addonName": "kube-proxy"}, {"addonName": "kube-proxy"}, {"addonVersion": "update"})
    (impact,) = upgrade_order([*changes, later], side(blueprint(version="1.31")), side(blueprint(version="1.32")), [*resources, on_cluster])
    assert impact.summary.endswith(
        "(the add-ons after the node groups wait for gpu, sys-ng only; the other node groups may still be rolling while they update)"
    )


def test_a_dependency_cycle_which_no_pulumi_program_has_ends_and_counts_the_resource_met_again_at_depth_zero():
    urns = {name: _urn(name, ADDON) for name in "abcd"}
    resources = [
        _linked("a", ADDON, {}, dependencies=(urns["b"],)),
        _linked("b", ADDON, {}, dependencies=(urns["a"],)),
        resource("c", ADDON, {}),
        _linked("d", ADDON, {}, dependencies=(urns["c"],)),
    ]
    changes = [change(name, ADDON, "update", {}, {}, {"addonVersion": "update"}) for name in "abcd"]
    (impact,) = upgrade_order(changes, side(blueprint(version="1.31")), side(blueprint(version="1.32")), resources)
    assert impact.figures["phases"] == [["add-on c"], ["add-on b", "add-on d"], ["add-on a"]]
