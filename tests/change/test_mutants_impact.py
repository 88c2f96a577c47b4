"""railyard/change/impact.py on built changes and sides: each node-group change in accelerator terms (capacity added or
removed, a Capacity Block's nodes arriving later, a resize, a replacement, a refused version, a rolling update with its
waves, surge and timeout), a pool's groups merged, and each stateful resource lost, accepted, at risk or refused while
protected. Exact figures and words; each threshold and one past it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from railyard.change.compare import InputChange
from railyard.change.impact import _merged, _minutes, block_starts, impacts, per_wave, rolling_inputs
from railyard.change.karpenter_drift import NODE_POOL
from railyard.change.replace_table import Effect
from tests.change.built import blueprint, change, group, pool, resource, side

P5 = {"labels": {"railyard.dev/pool": "train"}}
FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"


def _side(protect: bool = True, storage: list | None = None):
    return side(
        blueprint(
            pool("infer", instance_type="g6e.12xlarge"),
            pool("train"),
            cloud=SimpleNamespace(protect_stateful=protect, subnet_cidrs={}),
            storage=storage or [],
        )
    )


NEW = _side()


def _sized(desired: int | None, **inputs) -> dict:
    return {**P5, "scalingConfig": {"desiredSize": desired}, **inputs}


def _impacts(*changes, old=NEW, new=NEW, resources=None):
    found, findings = impacts(list(changes), old, new, resources)
    return [(impact.kind, impact.subject, impact.summary, impact.figures) for impact in found], findings


# --- inputs and small figures ----------------------------------------------------------------------------------------------


def test_the_rolling_inputs_are_update_nodegroup_versions_members_less_the_request_fields():
    assert rolling_inputs() == frozenset({"launchTemplate", "version", "releaseVersion"})


@pytest.mark.parametrize(
    ("config", "desired", "wave"),
    [
        ({}, 10, 1),  # EKS's default: one node
        ({"maxUnavailable": 5}, 10, 5),
        ({"maxUnavailable": 100}, 10, 100),
        ({"maxUnavailable": 101}, 10, 100),  # at most 100 nodes
        ({"maxUnavailablePercentage": 25}, 10, 3),  # 2.5 rounded up
        ({"maxUnavailablePercentage": 20}, 10, 2),
        ({"maxUnavailablePercentage": 50}, 0, 1),  # at least one node
        ({"maxUnavailablePercentage": 100}, 100, 100),
        ({"maxUnavailablePercentage": 100}, 101, 100),
        ({"maxUnavailable": 0, "maxUnavailablePercentage": 50}, 10, 5),
    ],
)
def test_nodes_per_wave(config, desired, wave):
    assert per_wave({"updateConfig": config, "scalingConfig": {"desiredSize": desired}}) == wave


def test_per_wave_reads_absent_settings_as_the_default():
    assert per_wave({}) == 1
    assert per_wave({"updateConfig": None, "scalingConfig": None}) == 1
    assert per_wave({"updateConfig": {"maxUnavailablePercentage": 10}, "scalingConfig": {"desiredSize": None}}) == 1


def test_a_timeouts_minutes_are_read_from_a_duration_or_the_arithmetics_last_figure():
    assert _minutes("401m") == 401
    assert _minutes("2 waves of up to 1 node x 29 min (...) + 40 = 98 min") == 98


def test_block_starts_are_the_block_start_schedules_by_group():
    schedule = "aws:autoscaling/schedule:Schedule"
    resources = [
        resource("train-a-block-start", schedule, {"startTime": "2026-12-01T11:30:00Z", "desiredCapacity": 4}),
        resource("train-b-block-start", schedule, {"startTime": "2026-12-02T11:30:00Z"}),
        resource("train-a-scale-down", schedule, {"startTime": "x", "desiredCapacity": 0}),
        resource("other-block-start", "aws:ec2/vpc:Vpc", {}),
    ]
    assert block_starts(resources) == {
        "train-a": {"starts_at": "2026-12-01T11:30:00Z", "nodes": 4},
        "train-b": {"starts_at": "2026-12-02T11:30:00Z", "nodes": 0},
    }


# --- capacity added and removed -------------------------------------------------------------------------------------------


def test_a_group_created_adds_its_nodes_and_accelerators_and_a_deleted_one_removes_them():
    found, findings = _impacts(
        group("train-a", "create", None, _sized(4)), group("old-a", "delete", _sized(3, labels={"railyard.dev/pool": "infer"}), None)
    )
    assert found == [
        ("capacity-added", "pool train", "new capacity: +4 nodes, +32 accelerators", {"nodes": 4, "accelerators": 32, "node_groups": 1}),
        ("capacity-removed", "pool infer", "removed capacity: -3 nodes, -12 accelerators", {"nodes": -3, "accelerators": -12, "node_groups": 1}),
    ]
    assert findings == []


def test_a_pools_groups_add_up_and_a_group_of_no_pool_is_named_by_its_resource_with_no_accelerators_known():
    found, _ = _impacts(
        group("train-a", "create", None, _sized(4)),
        group("train-b", "create", None, _sized(2)),
        group("lone", "create", None, {"scalingConfig": {"desiredSize": 1}}),
    )
    assert found == [
        (
            "capacity-added",
            "pool train",
            "new capacity across 2 node groups: +6 nodes, +48 accelerators",
            {"nodes": 6, "accelerators": 48, "node_groups": 2},
        ),
        ("capacity-added", "lone", "new capacity: +1 nodes, +0 accelerators", {"nodes": 1, "accelerators": 0, "node_groups": 1}),
    ]


def test_a_group_with_no_node_now_says_so():
    found, _ = _impacts(group("train-a", "create", None, _sized(0)))
    assert found[0][2] == "new capacity: no node runs in it at this moment (desired size 0)"
    found, _ = _impacts(group("train-a", "create", None, _sized(None)), group("train-b", "create", None, _sized(0)))
    assert found[0][2] == "new capacity across 2 node groups: no node runs in them at this moment (desired size 0)"


def test_a_block_group_created_before_its_block_starts_says_what_arrives_and_when():
    starts = [
        resource("train-a-block-start", "aws:autoscaling/schedule:Schedule", {"startTime": "2026-12-02T11:30:00Z", "desiredCapacity": 4}),
        resource("train-b-block-start", "aws:autoscaling/schedule:Schedule", {"startTime": "2026-12-01T11:30:00Z", "desiredCapacity": 2}),
    ]
    found, _ = _impacts(group("train-a", "create", None, _sized(0)), resources=starts)
    assert found == [
        (
            "capacity-added",
            "pool train",
            "new capacity: no node now: +4 nodes (+32 accelerators) when its Capacity Block starts at 2026-12-02T11:30:00Z (a scheduled "
            "scale-up; the group is created at desired size 0)",
            {"nodes": 0, "accelerators": 0, "node_groups": 1, "starts_at": "2026-12-02T11:30:00Z", "nodes_at_start": 4, "accelerators_at_start": 32},
        )
    ]
    # Two such groups: the earlier start, the nodes added up; a group running now beside them counts now.
    found, _ = _impacts(
        group("train-a", "create", None, _sized(0)),
        group("train-b", "create", None, _sized(0)),
        group("train-c", "create", None, _sized(1)),
        resources=starts,
    )
    assert found[0][2].startswith(
        "new capacity across 3 node groups: +1 nodes now, +6 nodes (+48 accelerators) when its Capacity Block starts at 2026-12-01T11:30:00Z"
    )


def test_no_arrival_for_a_group_running_now_a_deleted_group_or_one_with_no_schedule():
    starts = [resource("train-a-block-start", "aws:autoscaling/schedule:Schedule", {"startTime": "2026-12-02T11:30:00Z", "desiredCapacity": 4})]
    for item in (
        group("train-a", "create", None, _sized(2)),
        group("train-a", "delete", _sized(0), None),
        group("train-b", "create", None, _sized(0)),
    ):
        found, _ = _impacts(item, resources=starts)
        assert "starts_at" not in found[0][3]


# --- groups changed in place or replaced ----------------------------------------------------------------------------------------


def test_a_replaced_group_is_out_until_the_new_one_is_up_naming_the_inputs_that_replace_it():
    item = group(
        "train-a",
        "replace",
        _sized(4),
        _sized(4, instanceTypes=["p5e"], subnetIds=["b"]),
        {"instanceTypes": "replace", "subnetIds": "replace", "tags": "update"},
    )
    found, _ = _impacts(item)
    assert found == [
        (
            "node-group-replaced",
            "pool train",
            "replaced (instanceTypes, subnetIds): deleted before the replacement is created, so all 4 nodes (32 accelerators) are out "
            "until the new group is up",
            {"nodes": 4, "accelerators": 32, "node_groups": 1, "because": ["instanceTypes", "subnetIds"]},
        )
    ]


def test_a_resize_in_place_says_the_difference_and_no_difference_says_nothing():
    found, _ = _impacts(group("train-a", "update", _sized(4), _sized(6), {"scalingConfig.desiredSize": "update"}))
    assert found == [("resized", "pool train", "resized in place: +2 nodes, +16 accelerators", {"nodes": 2, "accelerators": 16, "node_groups": 1})]
    found, _ = _impacts(group("train-a", "update", _sized(4), _sized(3), {"scalingConfig.desiredSize": "update"}))
    assert found[0][2] == "resized in place: -1 nodes, -8 accelerators"
    assert _impacts(group("train-a", "update", _sized(4), _sized(4, tags={"a": "b"}), {"tags": "update"}))[0] == []


def test_a_version_going_down_is_refused_and_rolls_nothing():
    item = group("train-a", "update", _sized(4, version="1.31"), _sized(4, version="1.30"), {"version": "update"})
    found, _ = _impacts(item)
    assert found == [
        (
            "version-refused",
            "pool train",
            "Kubernetes version going down: EKS refuses it, so `pulumi up` fails on this group and nothing of it rolls (4 nodes, 32 "
            "accelerators stay as they are; change.version-down)",
            {"nodes": 4, "accelerators": 32, "node_groups": 1},
        )
    ]
    second = group("train-b", "update", _sized(1, version="1.31"), _sized(1, version="1.30"), {"version": "update"})
    found, _ = _impacts(item, second)
    assert found[0][2].startswith(
        "Kubernetes version going down across 2 node groups: EKS refuses it, so `pulumi up` fails on these groups and nothing of them "
        "rolls (5 nodes, 40"
    )


def test_a_version_going_down_beside_a_template_change_still_rolls_the_template():
    item = group("train-a", "update", _sized(2, version="1.31"), _sized(2, version="1.30"), {"version": "update", "launchTemplate.version": "update"})
    found, _ = _impacts(item)
    assert [(kind, figures.get("because")) for kind, _, _, figures in found] == [
        ("version-refused", None),
        ("rolling", ["launchTemplate.version changed"]),
    ]


def test_a_rolling_update_gives_its_waves_surge_and_strategy():
    item = group(
        "train-a",
        "update",
        _sized(10),
        _sized(10, updateConfig={"maxUnavailablePercentage": 25}, subnetIds=["a", "b"]),
        {"launchTemplate.version": "update"},
    )
    found, _ = _impacts(item)
    assert found == [
        (
            "rolling",
            "pool train",
            "rolling update (launchTemplate.version changed): 10 nodes (80 accelerators) in 4 waves of 3 nodes (24 accelerators drained at "
            "a time); up to 4 new nodes launch before the first drain",
            {
                "nodes": 10,
                "accelerators": 80,
                "node_groups": 1,
                "nodes_per_wave": 3,
                "accelerators_per_wave": 24,
                "waves": 4,
                "surge_nodes": 4,
                "strategy": "DEFAULT",
                "because": ["launchTemplate.version changed"],
            },
        )
    ]


@pytest.mark.parametrize(("zones", "wave", "surge"), [(1, 3, 3), (2, 3, 4), (2, 4, 4), (2, 5, 5), (0, 1, 1)])
def test_the_surge_is_twice_the_zones_or_the_wave_whichever_is_more(zones, wave, surge):
    inputs = _sized(20, updateConfig={"maxUnavailable": wave}, subnetIds=["s"] * zones)
    found, _ = _impacts(group("train-a", "update", _sized(20), inputs, {"releaseVersion": "update"}))
    assert found[0][3]["surge_nodes"] == surge


def test_a_minimal_strategy_drains_first_and_one_node_waves_are_singular():
    inputs = _sized(2, updateConfig={"updateStrategy": "MINIMAL"}, subnetIds=["a"])
    found, _ = _impacts(group("train-a", "update", _sized(2), inputs, {"version": "update"}))
    assert found[0][3]["surge_nodes"] == 0 and found[0][3]["strategy"] == "MINIMAL"
    assert found[0][2] == (
        "rolling update (version changed): 2 nodes (16 accelerators) in 2 waves of 1 node (8 accelerators drained at a time); MINIMAL "
        "strategy: drains before it launches"
    )


def test_a_roll_with_no_node_now_moves_only_the_template():
    found, _ = _impacts(group("train-a", "update", _sized(0), _sized(0), {"launchTemplate.version": "update"}))
    assert found[0][2] == (
        "rolling update (launchTemplate.version changed): no node runs in it at this moment (desired size 0), so only the launch "
        "template and version move and nothing drains; nodes that join later start on the new ones"
    )
    found, _ = _impacts(*(group(name, "update", _sized(0), _sized(0), {"version": "update"}) for name in ("train-a", "train-b")))
    assert "across 2 node groups (version changed): no node runs in them at this moment" in found[0][2]


def test_a_flowed_change_says_which_launch_template_or_resource_it_follows():
    template = "urn:pulumi:dev::proj::aws:ec2/launchTemplate:LaunchTemplate::train-a-lt"
    item = group("train-a", "update", _sized(1), _sized(1))
    item.inputs = [InputChange(path, None, None, Effect("update", path), template, "recomputed") for path in ("launchTemplate.version", "version")]
    found, _ = _impacts(item)
    assert found[0][3]["because"] == ["a new version of launch template train-a-lt", "version follows train-a-lt"]


def test_the_roll_says_how_long_pulumi_waits_per_group_with_its_arithmetic():
    inputs = _sized(4, scalingConfig={"desiredSize": 4, "maxSize": 8}, updateConfig={"maxUnavailablePercentage": 50})
    item = group("train-a", "update", _sized(4), inputs, {"version": "update"}, custom_timeouts={"update": "160m"})
    found, _ = _impacts(item)
    figures = found[0][3]
    assert figures["update_timeout"] == "160m"
    assert figures["timeout_arithmetic"].startswith("2 waves of up to 4 nodes x ")
    assert found[0][2].endswith(
        f"; Pulumi waits up to 160m per group ({figures['timeout_arithmetic']}); a drain over 15 min fails the update (PodEvictionFailure)"
    )
    untimed = group("train-a", "update", _sized(4), inputs, {"version": "update"}, custom_timeouts={"create": "30m"})
    assert "update_timeout" not in _impacts(untimed)[0][0][3]


def test_merging_takes_the_most_waves_the_longest_timeout_every_reason_and_a_mixed_strategy():
    merged = _merged(
        [
            (
                "resized",
                "pool p",
                {
                    "accelerators": 0,
                    "nodes": 2,
                    "waves": 2,
                    "update_timeout": "99m",
                    "timeout_arithmetic": "x = 99 min",
                    "because": ["b"],
                    "strategy": "DEFAULT",
                    "node_groups": 1,
                },
            ),
            (
                "resized",
                "pool p",
                {
                    "accelerators": 0,
                    "nodes": 3,
                    "waves": 1,
                    "update_timeout": "100m",
                    "timeout_arithmetic": "y = 100 min",
                    "because": ["a", "b"],
                    "strategy": "MINIMAL",
                    "node_groups": 1,
                },
            ),
            (
                "resized",
                "pool p",
                {
                    "accelerators": 0,
                    "nodes": 1,
                    "waves": 1,
                    "update_timeout": "98m",
                    "timeout_arithmetic": "z = 98 min",
                    "because": [],
                    "strategy": "DEFAULT",
                    "node_groups": 1,
                },
            ),
            (
                "resized",
                "pool q",
                {"accelerators": 0, "nodes": 1, "waves": 1, "strategy": "DEFAULT", "budget": "10%", "node_groups": 1, "because": []},
            ),
        ]
    )
    first = merged[0].figures
    assert first == {
        "accelerators": 0,
        "nodes": 6,
        "waves": 2,
        "update_timeout": "100m",
        "timeout_arithmetic": "y = 100 min",
        "because": ["a", "b"],
        "strategy": "mixed",
        "node_groups": 3,
    }
    assert merged[1].figures["strategy"] == "DEFAULT" and merged[1].figures["budget"] == "10%"
    same = _merged([("resized", "pool p", {"accelerators": 0, "strategy": "MINIMAL", "nodes": 0, "node_groups": 1, "because": []})] * 2)
    assert same[0].figures["strategy"] == "MINIMAL"


def test_a_gated_pool_over_running_nodes_is_an_impact_in_words():
    gate = [{"key": "railyard.dev/acceptance", "value": "pending", "effect": "NO_SCHEDULE"}]
    found, findings = _impacts(group("train-a", "update", _sized(3, taints=[]), _sized(3, taints=gate), {"taints": "update"}))
    assert found == [
        (
            "acceptance-on-running",
            "pool train",
            "acceptance gate on for running nodes: EKS taints and labels all 3 running nodes (24 accelerators) as pending, so the checker "
            "runs on each while jobs hold its GPUs, and no new pod lands on a node until it passes",
            {"nodes": 3, "accelerators": 24, "node_groups": 1},
        )
    ]
    assert [finding.code for finding in findings] == ["change.acceptance-on-running"]


# --- state ------------------------------------------------------------------------------------------------------------------------


def _tier(name: str, **fields):
    return SimpleNamespace(**{"name": name, "kind": "fsx_lustre", "protect": True, "accept_replacement": False, **fields})


def test_a_file_system_replaced_unaccepted_is_an_error_at_its_tier():
    new = _side(storage=[_tier("home"), _tier("scratch")])
    item = change("prod-scratch", FSX, "replace", {}, {}, {"deploymentType": "replace", "storageCapacity": "conditional", "tags": "update"})
    found, findings = _impacts(item, new=new)
    message = "prod-scratch is replaced (deploymentType, storageCapacity): that loses its file system and every file on it"
    assert found == [("state-lost", "prod-scratch", message, {"because": ["deploymentType", "storageCapacity"], "accepted_by": None})]
    (finding,) = findings
    assert (finding.code, finding.severity, finding.path, finding.message, finding.line) == ("change.state-lost", "error", ("storage", 1), message, 1)
    assert finding.hint == (
        "keep the old value; or, to replace it on purpose, set `accept_replacement: true` on this storage tier (the file system is then "
        "left unprotected)"
    )


def test_another_stateful_resource_replaced_unaccepted_names_the_protect_settings():
    found, findings = _impacts(change("prod-key", "aws:kms/key:Key", "replace", {}, {}, {"keySpec": "replace"}))
    assert (
        found[0][2]
        == "prod-key is replaced (keySpec): that loses the key (scheduled for deletion); data encrypted under it can't be read once it is gone"
    )
    (finding,) = findings
    assert finding.path == ()
    assert finding.hint == (
        "keep the old value; or, to let it go on purpose, set `protect: false` on its storage tier (that tier alone) or "
        "`cloud.protect_stateful: false` for this change"
    )


@pytest.mark.parametrize(
    ("new", "accepted"),
    [
        (_side(protect=False, storage=[_tier("scratch")]), "cloud.protect_stateful: false"),
        (_side(storage=[_tier("scratch", accept_replacement=True)]), "storage[0].accept_replacement: true"),
        (_side(storage=[SimpleNamespace(name="scratch", kind="fsx_lustre", protect=False, accept_replacement=False)]), "storage[0].protect: false"),
    ],
)
def test_a_replacement_the_new_side_accepts_is_a_warning_naming_the_setting(new, accepted):
    found, findings = _impacts(change("prod-scratch", FSX, "replace", {}, {}, {"deploymentType": "replace"}), new=new)
    message = "prod-scratch is replaced (deploymentType): that loses its file system and every file on it"
    assert found == [("state-lost", "prod-scratch", f"{message} (accepted by {accepted})", {"because": ["deploymentType"], "accepted_by": accepted})]
    (finding,) = findings
    assert (finding.code, finding.severity, finding.message, finding.hint) == (
        "change.state-lost-accepted",
        "warning",
        message,
        f"accepted by {accepted}",
    )


def test_acceptance_is_read_from_the_tier_the_file_system_belongs_to_and_a_bucket_has_none():
    new = _side(
        storage=[
            _tier("home", accept_replacement=True),
            _tier("scratch"),
            SimpleNamespace(name="x", kind="s3", protect=True, accept_replacement=True),
        ]
    )
    findings = _impacts(change("prod-scratch", FSX, "replace", {}, {}, {"deploymentType": "replace"}), new=new)[1]
    assert [finding.code for finding in findings] == ["change.state-lost"]
    findings = _impacts(change("prod-x", "aws:s3/bucket:Bucket", "replace", {}, {}, {"bucket": "replace"}), new=new)[1]
    assert [finding.code for finding in findings] == ["change.state-lost"]


def test_a_new_side_that_did_not_load_accepts_nothing():
    findings = _impacts(change("prod-scratch", FSX, "replace", {}, {}, {"deploymentType": "replace"}), new=side(None))[1]
    assert [(finding.code, finding.path) for finding in findings] == [("change.state-lost", ())]


def test_a_stateful_resource_that_may_be_replaced_is_a_warning_to_run_the_providers_preview():
    new = _side(storage=[_tier("scratch")])
    found, findings = _impacts(change("prod-scratch", FSX, "may-replace", {}, {}, {"storageCapacity": "conditional", "tags": "update"}), new=new)
    message = (
        "prod-scratch may be replaced (storageCapacity): the provider decides when it diffs, and a replacement loses its file system "
        "and every file on it"
    )
    assert found == [("state-at-risk", "prod-scratch", message, {"because": ["storageCapacity"]})]
    (finding,) = findings
    assert (finding.code, finding.severity, finding.path, finding.message) == ("change.may-replace-state", "warning", ("storage", 0), message)
    assert finding.hint == "run `pulumi preview --diff` to see the provider's decision before `pulumi up`"


def test_a_protected_resource_deleted_is_refused_in_one_step_and_says_the_two():
    old = _side(storage=[_tier("scratch")])
    found, findings = _impacts(change("prod-scratch", FSX, "delete", {}, None, protect=True), old=old, new=_side())
    assert found == [
        (
            "state-lost",
            "prod-scratch",
            "prod-scratch is deleted: that loses its file system and every file on it; refused while the deployed stack protects it: "
            "unprotect it in one `pulumi up`, then delete it in another",
            {"because": [], "accepted_by": None, "steps": 2},
        )
    ]
    assert [(finding.code, finding.path) for finding in findings] == [("change.protected-delete", ("storage", 0))]


@pytest.mark.parametrize(
    ("old", "by"),
    [
        (_side(protect=False), "cloud.protect_stateful: false"),
        (_side(storage=[SimpleNamespace(name="scratch", kind="fsx_lustre", protect=False)]), "storage[0].protect: false"),
        (_side(), "`protect: false` on every storage tier it serves"),
        (side(None), "`protect: false` on every storage tier it serves"),
    ],
)
def test_an_unprotected_resource_deleted_is_a_loss_the_deployed_side_accepted(old, by):
    found, findings = _impacts(change("prod-scratch", FSX, "delete", {}, None, protect=False), old=old, new=_side())
    accepted = f"the deployed blueprint, which left it unprotected ({by})"
    assert found[0][2] == f"prod-scratch is deleted: that loses its file system and every file on it (accepted by {accepted})"
    (finding,) = findings
    assert (finding.code, finding.hint) == ("change.state-lost-accepted", f"accepted by {accepted}")


def test_a_stateful_resource_created_or_updated_loses_nothing_and_other_types_are_not_state():
    items = [
        change("prod-scratch", FSX, "create", None, {}),
        change("prod-scratch2", FSX, "update", {}, {}, {"tags": "update"}),
        change("prod-vpc", "aws:ec2/vpc:Vpc", "replace", {}, {}, {"cidrBlock": "replace"}),
    ]
    assert _impacts(*items) == ([], [])


def test_unclassified_changes_are_one_note_naming_their_types():
    items = [
        change("a", "aws:x/b:B", "unclassified", {}, {}, {"q": "unknown"}),
        change("b", "aws:x/a:A", "unclassified", {}, {}, {"q": "unknown"}),
        change("c", "aws:x/a:A", "unclassified", {}, {}, {"q": "unknown"}),
        change("d", "aws:x/a:A", "update", {}, {}, {"q": "update"}),
    ]
    (finding,) = _impacts(*items)[1]
    assert (finding.code, finding.severity, finding.path) == ("change.unclassified", "info", ())
    assert finding.message == (
        "3 changed resource(s) have inputs the replace table does not cover (aws:x/a:A, aws:x/b:B): in place or replaced, "
        "`pulumi preview --diff` decides"
    )
    assert finding.hint == "the table lists the inputs its provider source names; see docs/diff.md for how it is made"


def test_node_group_impacts_come_before_state_and_findings_in_kind_order():
    new = _side(storage=[_tier("scratch")])
    subnet = change("prod-network-a", "aws:ec2/subnet:Subnet", "replace", {"cidrBlock": "1"}, {"cidrBlock": "2"}, {"cidrBlock": "replace"})
    items = [change("prod-scratch", FSX, "replace", {}, {}, {"x": "replace"}), group("train-a", "create", None, _sized(1)), subnet]
    found, findings = _impacts(*items, new=new)
    assert [kind for kind, *_ in found] == ["capacity-added", "state-lost"]
    assert [finding.code for finding in findings] == ["change.state-lost", "change.subnet-moved"]


# --- found by mutation testing: each figure's other source, each list of reasons joined, Karpenter's pools in impacts -----------


@pytest.mark.parametrize(("desired", "wave"), [(200, 50), (201, 51)])  # 50.25 rounds up to 51
def test_a_percentage_wave_rounds_up_past_a_whole_number(desired, wave):
    assert per_wave({"updateConfig": {"maxUnavailablePercentage": 25}, "scalingConfig": {"desiredSize": desired}}) == wave


def test_a_group_with_no_percentage_is_timed_one_node_a_wave_at_its_largest_size():
    inputs = _sized(4, scalingConfig={"desiredSize": 4, "maxSize": 200})
    found, _ = _impacts(group("train-a", "update", _sized(4), inputs, {"version": "update"}, custom_timeouts={"update": "6000m"}))
    assert found[0][3]["timeout_arithmetic"].startswith("200 waves of up to 1 node x ")


def test_accelerators_are_read_from_the_side_that_has_the_group():
    old = side(blueprint(pool("legacy", instance_type="g6e.12xlarge")))  # 4 GPUs a node; the new side has no such pool
    legacy = {"labels": {"railyard.dev/pool": "legacy"}, "scalingConfig": {"desiredSize": 2}}
    found, _ = _impacts(group("train-a", "create", None, _sized(1)), group("legacy-a", "delete", legacy, None), old=old)
    assert [(kind, subject, figures["accelerators"]) for kind, subject, _, figures in found] == [
        ("capacity-added", "pool train", 8),
        ("capacity-removed", "pool legacy", -8),
    ]


def test_a_roll_with_no_node_counts_no_wave_and_several_reasons_are_joined():
    paths = {"launchTemplate.version": "update", "version": "update"}
    found, _ = _impacts(group("train-a", "update", _sized(0), _sized(0), paths))
    assert found[0][3]["waves"] == 0
    assert found[0][2].startswith("rolling update (launchTemplate.version changed; version changed): no node runs in it")
    found, _ = _impacts(group("train-a", "update", _sized(2), _sized(2), paths))
    assert found[0][2].startswith("rolling update (launchTemplate.version changed; version changed): 2 nodes (16 accelerators) in 2 waves")


def test_groups_merged_take_the_earliest_block_start_whichever_comes_first():
    starts = [
        resource("train-a-block-start", "aws:autoscaling/schedule:Schedule", {"startTime": "2026-12-01T11:30:00Z", "desiredCapacity": 4}),
        resource("train-b-block-start", "aws:autoscaling/schedule:Schedule", {"startTime": "2026-12-02T11:30:00Z", "desiredCapacity": 2}),
    ]
    found, _ = _impacts(group("train-a", "create", None, _sized(0)), group("train-b", "create", None, _sized(0)), resources=starts)
    assert found[0][3]["starts_at"] == "2026-12-01T11:30:00Z"


def test_a_deleted_file_system_the_deployed_side_left_unprotected_is_placed_at_its_old_tier():
    old = _side(protect=False, storage=[_tier("home"), _tier("scratch")])
    _, findings = _impacts(change("prod-scratch", FSX, "delete", {}, None, protect=False), old=old, new=_side())
    assert [(finding.code, finding.path) for finding in findings] == [("change.state-lost-accepted", ("storage", 1))]


def test_a_protected_delete_names_what_it_loses_and_a_replacement_that_may_come_names_every_reason():
    old = _side(storage=[_tier("scratch")])
    _, (finding,) = _impacts(change("prod-scratch", FSX, "delete", {}, None, protect=True), old=old, new=_side())
    assert finding.message.startswith("prod-scratch is deleted, which loses its file system and every file on it, and the deployed stack")
    item = change("prod-scratch", FSX, "may-replace", {}, {}, {"storageCapacity": "conditional", "throughputCapacity": "conditional"})
    found, _ = _impacts(item, new=old)
    assert found[0][2].startswith("prod-scratch may be replaced (storageCapacity, throughputCapacity): the provider decides")


def _node_pool(name: str, cpu: int = 1920):
    spec = {"template": {"metadata": {"labels": {"railyard.dev/pool": "train"}}, "spec": {"nodeClassRef": {"name": f"{name}-class"}}}}
    return resource(f"{name}-pool", NODE_POOL, {"metadata": {"name": name}, "spec": {**spec, "limits": {"cpu": cpu}}})


def test_a_pools_node_pools_drifting_are_one_impact_across_them_and_a_lowered_limit_is_worded_as_one():
    pools = [_node_pool("train-a"), _node_pool("train-b")]  # p5.48xlarge: 192 vCPUs, so 10 nodes each
    drifted = [change(item.name, NODE_POOL, "update", item.inputs, item.inputs, {"spec.template.spec.taints": "update"}) for item in pools]
    found, _ = _impacts(*drifted, resources=pools)
    assert found == [
        (
            "karpenter-drift",
            "pool train",
            "Karpenter replaces drifted nodes across 2 NodePools (NodePool spec.template.spec.taints): every node of the pool, up to 20 "
            "nodes (160 accelerators) at its limit, 2 at a time (16 accelerators), the NodePool's disruption budget (nodes: 10%)",
            {
                "nodes": 20,
                "accelerators": 160,
                "node_groups": 2,
                "nodes_per_wave": 2,
                "accelerators_per_wave": 16,
                "waves": 10,
                "because": ["NodePool spec.template.spec.taints"],
                "budget": "10%",
            },
        )
    ]
    lowered = change("train-a-pool", NODE_POOL, "update", pools[0].inputs, _node_pool("train-a", 960).inputs, {"spec.limits.cpu": "update"})
    found, _ = _impacts(lowered, resources=pools)
    assert [summary for _, _, summary, _ in found] == [
        "NodePool limit lowered: cpu 1920 -> 960, 10 -> 5 nodes (40 accelerators) at the limit; Karpenter removes no running node for "
        "it, but launches none (new or a drift replacement) while the pool is at or over it, so up to 5 nodes may run above it until "
        "they go on their own"
    ]
