"""railyard/change/ultraserver_roll.py, running_pools.py and protected.py on built sides and changes: an UltraServer pool's
groups rolled in place unless stated scaled to 0 (`change.ultraserver-roll`); the acceptance gate turned on over running
nodes (`change.acceptance-on-running`, with the pool's nodes and accelerators); a protected resource deleted
(`change.protected-delete`, with the two steps), and the protection lifted. Each finding's code, path and words; each
condition's other side gives nothing."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from railyard.change.protected import protected_delete, protection_lifted, unprotected_tier
from railyard.change.running_pools import acceptance_on_running, applies_to_running_nodes, gated_running_pools
from railyard.change.ultraserver_roll import EKS_ULTRASERVER_GUIDE, ultraserver_pools, ultraserver_roll_findings
from tests.change.built import blueprint, change, group, pool, resource, side

GB200 = "p6e-gb200.36xlarge"
ULTRA = {"nodeGroupName": "ultra-a-ng", "clusterName": "prod", "labels": {"railyard.dev/pool": "ultra"}}


def _ultra_side(scaled: bool = False):
    return side(blueprint(pool("p5"), pool("ultra", instance_type=GB200, scaled_to_zero=scaled), pool("trn", instance_type="trn2u.48xlarge")))


# --- ultraserver_roll.py ---------------------------------------------------------------------------------------------------


def test_the_ultraserver_pools_are_those_whose_nvlink_domain_spans_instances():
    assert ultraserver_pools(_ultra_side()) == {"ultra"}  # p5: one instance per domain; trn2u: NeuronLink, not NVLink
    assert ultraserver_pools(side(None)) == set()


def test_an_ultraserver_group_rolled_in_place_is_refused_with_the_drain_step():
    rolled = [
        group("ultra-b", "update", ULTRA, {**ULTRA, "nodeGroupName": "ultra-b-ng"}, {"version": "update"}),
        group("ultra-a", "update", ULTRA, {**ULTRA, "clusterName": None}, {"launchTemplate.version": "update"}),  # the first group's cluster
    ]
    (finding,) = ultraserver_roll_findings(rolled, _ultra_side())
    assert (finding.code, finding.severity, finding.path, finding.line) == ("change.ultraserver-roll", "error", ("pools", 1), 1)
    assert finding.message == (
        f"pool 'ultra' ({GB200}, UltraServers) would roll node group(s) ultra-a-ng, ultra-b-ng in place (a new Kubernetes version, "
        'AMI release or launch template): the EKS user guide says "When upgrading EKS managed node groups with P6e-GB200 UltraServers, '
        f'you must set the desired size of the node group to 0 before upgrading" ({EKS_ULTRASERVER_GUIDE})'
    )
    assert finding.hint == (
        "for G in ultra-a-ng ultra-b-ng: `aws eks update-nodegroup-config --cluster-name prod --nodegroup-name $G --scaling-config "
        "desiredSize=0`; wait until their nodes are gone; set pools[1].scaled_to_zero: true; `pulumi up`; then restore each group's "
        "desired size and drop scaled_to_zero (or hold the pool's kubernetes_version until its jobs allow the drain)"
    )
    assert finding.certificate == {"pool": "ultra", "groups": ["ultra-a-ng", "ultra-b-ng"]}


def test_a_group_without_names_is_named_by_its_resource_and_the_cluster_left_as_a_placeholder():
    bare = {"labels": {"railyard.dev/pool": "ultra"}}
    (finding,) = ultraserver_roll_findings([group("u", "update", bare, bare, {"releaseVersion": "update"})], _ultra_side())
    assert finding.certificate["groups"] == ["u"]
    assert "--cluster-name <cluster> --nodegroup-name $G" in finding.hint


def test_the_cluster_is_named_by_any_rolled_group_that_names_it_not_only_the_first():
    rolled = [
        group("ultra-a", "update", ULTRA, {**ULTRA, "clusterName": None}, {"version": "update"}),
        group("ultra-b", "update", ULTRA, {**ULTRA, "nodeGroupName": "ultra-b-ng", "clusterName": ""}, {"version": "update"}),
        group("ultra-c", "update", ULTRA, {**ULTRA, "nodeGroupName": "ultra-c-ng"}, {"version": "update"}),
    ]
    (finding,) = ultraserver_roll_findings(rolled, _ultra_side())
    assert "for G in ultra-a-ng ultra-b-ng ultra-c-ng: `aws eks update-nodegroup-config --cluster-name prod --nodegroup-name $G" in finding.hint


@pytest.mark.parametrize(
    "item",
    [
        group("ultra-a", "update", ULTRA, ULTRA, {"scalingConfig.desiredSize": "update"}),  # not UpdateNodegroupVersion's
        group("ultra-a", "replace", ULTRA, ULTRA, {"version": "update"}),
        group("p5-a", "update", {"labels": {"railyard.dev/pool": "p5"}}, {"labels": {"railyard.dev/pool": "p5"}}, {"version": "update"}),
        group("x", "update", {}, {}, {"version": "update"}),  # no pool label
        change("ultra-a", "aws:eks/addon:Addon", "update", ULTRA, ULTRA, {"version": "update"}),
    ],
)
def test_no_ultraserver_roll(item):
    assert ultraserver_roll_findings([item], _ultra_side()) == []


def test_a_pool_stated_scaled_to_zero_or_a_side_that_did_not_load_passes():
    rolled = [group("ultra-a", "update", ULTRA, ULTRA, {"version": "update"})]
    assert ultraserver_roll_findings(rolled, _ultra_side(scaled=True)) == []
    assert ultraserver_roll_findings(rolled, side(None)) == []
    unnew = group("ultra-a", "update", ULTRA, ULTRA, {"version": "update"})
    unnew.new = None
    assert ultraserver_roll_findings([unnew], _ultra_side()) == []


def test_each_ultraserver_pool_is_refused_in_blueprint_order():
    pools = (pool("z", instance_type=GB200, scaled_to_zero=False), pool("a", instance_type=GB200, scaled_to_zero=False))
    rolled = [
        group(name, "update", {"labels": {"railyard.dev/pool": name}}, {"labels": {"railyard.dev/pool": name}}, {"version": "update"})
        for name in "az"
    ]
    assert [finding.path for finding in ultraserver_roll_findings(rolled, side(blueprint(*pools)))] == [("pools", 0), ("pools", 1)]


# --- running_pools.py -------------------------------------------------------------------------------------------------------

GATE = [{"key": "railyard.dev/acceptance", "value": "pending", "effect": "NO_SCHEDULE"}]


def _gated(name: str = "train-a", pool_name: str = "train", desired: int | None = 3, before: list | None = None, action: str = "update", **inputs):
    base = {"nodeGroupName": f"{name}-ng", "labels": {"railyard.dev/pool": pool_name}, "scalingConfig": {"desiredSize": desired}}
    return group(name, action, {**base, "taints": before or []}, {**base, "taints": GATE, **inputs}, {"taints": "update"})


def test_the_rule_quoted_is_botocores_text_for_update_nodegroup_config_taints():
    assert applies_to_running_nodes() == "The Kubernetes taints to be applied to the nodes in the node group after the update."


def test_the_gate_turned_on_over_running_nodes_is_warned_per_pool_with_nodes_and_accelerators():
    items = [_gated("train-b", desired=2), _gated("train-a", desired=3)]
    new = side(blueprint(pool("infer"), pool("train")))
    impacts, findings = acceptance_on_running(items, new)
    assert impacts == [("acceptance-on-running", "pool train", {"nodes": 5, "accelerators": 40, "node_groups": 2})]
    (finding,) = findings
    assert (finding.code, finding.severity, finding.path, finding.line) == ("change.acceptance-on-running", "warning", ("pools", 1, "acceptance"), 1)
    assert finding.message == (
        "pool train turns the acceptance gate on while its node groups (train-a-ng, train-b-ng) run 5 nodes (40 accelerators): EKS taints "
        f'and labels the running nodes too (UpdateNodegroupConfig: "{applies_to_running_nodes()}"), so the checker starts on every one; '
        "its DCGM diagnostic runs on GPUs that jobs hold and fails, and the node stays tainted after its jobs end"
    )
    assert finding.hint == (
        "turn the gate on while the pool runs no node (outside its Capacity Block's window, or drained to 0 first), or in the same change "
        "as one that rolls the pool, so only new nodes join under it (docs/acceptance.md)"
    )
    assert finding.certificate == {"pool": "train"}


def test_pools_come_in_name_order_and_a_pool_the_blueprint_lacks_is_at_the_root_with_no_accelerators_known():
    items = [_gated("z-a", "zeta", 1), _gated("a-a", "alpha", 1, instance=None)]
    new = side(blueprint(pool("alpha", instance_type="no.such")))
    impacts, findings = acceptance_on_running(items, new)
    assert [(subject, figures["accelerators"]) for _, subject, figures in impacts] == [("pool alpha", 0), ("pool zeta", 0)]
    assert [finding.path for finding in findings] == [("pools", 0, "acceptance"), ()]


@pytest.mark.parametrize(
    "item",
    [
        _gated(desired=0),  # no node runs: only the nodes that join later are gated
        _gated(desired=None),
        _gated(before=GATE),  # gated already
        _gated(action="replace"),
        _gated(taints=[{"key": "other", "value": "x"}]),  # another taint
        change("x", "aws:eks/addon:Addon", "update", {"taints": []}, {"taints": GATE, "scalingConfig": {"desiredSize": 3}}),
    ],
)
def test_no_gate_over_running_nodes(item):
    assert gated_running_pools([item]) == {}


def test_a_gated_group_running_one_node_counts_and_a_side_that_did_not_load_says_nothing():
    assert list(gated_running_pools([_gated(desired=1)])) == ["train"]
    assert acceptance_on_running([_gated()], side(None)) == ([], [])
    created = _gated(action="create")
    created.old = None
    deleted = _gated()
    deleted.new = None
    assert gated_running_pools([created, deleted]) == {}


def test_a_gated_group_after_changes_that_are_not_gated_updates_still_counts():
    created = _gated("train-new", action="create")
    created.old = None
    addon = change("x", "aws:eks/addon:Addon", "update", {"taints": []}, {"taints": GATE, "scalingConfig": {"desiredSize": 3}})
    gated = _gated("train-a")
    assert gated_running_pools([addon, created, _gated(action="replace"), gated]) == {"train": [gated]}


# --- protected.py ---------------------------------------------------------------------------------------------------------------

FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
BUCKET = "aws:s3/bucket:Bucket"


def _storage(*tiers):
    return side(blueprint(storage=list(tiers)))


def _tier(name: str, kind: str = "fsx_lustre", protect: bool = True):
    return SimpleNamespace(name=name, kind=kind, protect=protect)


def test_a_protected_tiers_delete_gives_the_two_steps_on_the_tier():
    old = _storage(_tier("ckpt", "s3"), _tier("scratch"))
    finding = protected_delete(change("prod-scratch", FSX, "delete", {}, None), old, "its file system")
    assert (finding.code, finding.severity, finding.path, finding.line) == ("change.protected-delete", "error", ("storage", 1), 1)
    assert finding.message == (
        "prod-scratch is deleted, which loses its file system, and the deployed stack has it protected: Pulumi refuses to delete a "
        "protected resource in the run that removes it from the program, whatever the new blueprint says"
    )
    assert finding.hint == (
        "two changes: first keep storage tier 'scratch' and set `protect: false` on it (storage[1], this tier alone) and run "
        "`pulumi up`, which only unprotects it in the stack's state; then remove the tier and run `pulumi up` again (docs/day2.md)"
    )


def test_a_protected_resource_of_no_tier_gives_the_two_steps_on_the_cloud_setting():
    old = _storage(_tier("scratch"))
    for item in (change("prod-key", "aws:kms/key:Key", "delete", {}, None), change("prod-other", FSX, "delete", {}, None)):
        finding = protected_delete(item, old, "the key")
        assert finding.path == ()
        assert finding.hint == (
            "two changes: first keep it and set `cloud.protect_stateful: false` and run `pulumi up`, which only unprotects it in the "
            "stack's state; then remove it and run `pulumi up` again (docs/day2.md)"
        )
    assert protected_delete(change("prod-scratch", FSX, "delete", {}, None), side(None), "x").path == ()


def test_a_tier_is_matched_by_kind_and_name_suffix():
    old = _storage(_tier("scratch", "s3"), _tier("ckpt"))
    assert protected_delete(change("prod-scratch", FSX, "delete", {}, None), old, "x").path == ()  # an s3 tier, not this file system's
    assert protected_delete(change("prod-scratch", BUCKET, "delete", {}, None), old, "x").path == ("storage", 0)
    assert protected_delete(change("prodckpt", FSX, "delete", {}, None), old, "x").path == ()  # the name must end in -<tier>


def test_a_tier_compiled_unprotected_is_named_and_a_protected_or_unknown_one_is_not():
    validation = _storage(_tier("a"), _tier("b", protect=False))
    assert unprotected_tier(change("prod-b", FSX, "replace", {}, {}), validation) == "storage[1].protect: false"
    assert unprotected_tier(change("prod-a", FSX, "replace", {}, {}), validation) is None
    assert unprotected_tier(change("prod-c", FSX, "replace", {}, {}), validation) is None
    assert unprotected_tier(change("prod-b", FSX, "replace", {}, {}), side(None)) is None
    bare = side(blueprint(storage=[SimpleNamespace(name="b", kind="fsx_lustre")]))  # a tier with no protect field is protected
    assert unprotected_tier(change("prod-b", FSX, "replace", {}, {}), bare) is None


def test_protection_lifted_names_each_stateful_resource_the_new_side_unprotects():
    before = [
        resource("fs", FSX, {}, protect=True),
        resource("key", "aws:kms/key:Key", {}, protect=True),
        resource("vpc", "aws:ec2/vpc:Vpc", {}, protect=True),
        resource("bucket", BUCKET, {}, protect=False),
    ]
    after = [
        resource("fs", FSX, {}, stack="prod", protect=False),
        resource("key", "aws:kms/key:Key", {}, protect=True),
        resource("vpc", "aws:ec2/vpc:Vpc", {}, protect=False),
        resource("bucket", BUCKET, {}, protect=False),
        resource("new", FSX, {}, protect=False),
    ]
    assert protection_lifted(before, after) == [
        (
            "fs",
            "fs is no longer protected: this `pulumi up` changes only the stack's state, and a later change may delete or replace it "
            "(the first of the two steps of removing it)",
            {"type": FSX},
        )
    ]
