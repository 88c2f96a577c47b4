"""Day-2 changes `pulumi up` would have refused, caught before it runs (issue 41, items 1 to 4 of the v3 audit).

* a node group created or replaced at a held version (CreateNodegroup takes only the cluster's);
* a large rolling update outlasting the provider's 60-minute wait (the node groups wait for their waves);
* an EKS-AMI pool moved to a custom AMI (updated in place by the provider, refused by EKS);
* a pinned subnet whose failure domain moves to another zone (replaced on its own range: EC2 refuses the overlap).

Each compares an example with an edited copy, both previewed offline at the same instant, as `railyard diff` does.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from railyard.change.compare import compare
from railyard.change.diff import diff, side_of
from railyard.change.replace_table import ReplaceTable, ResourceRules
from railyard.cli import main
from railyard.mocked import PreviewResource
from railyard.pipeline import validate
from tests.preview.conftest import AT
from tests.yaml_text import edited_copy

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
DEV = EXAMPLES / "dev-g6e.yaml"
P5 = EXAMPLES / "p5-capacity-block.yaml"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
DEV_POOL = "  - name: dev\n    instance_type: g6e.xlarge\n"
HELD = DEV_POOL + '    kubernetes_version: "1.34"\n'
NEW_HELD_POOL = (
    '  - name: eval\n    instance_type: g6e.xlarge\n    role: dev\n    kubernetes_version: "1.34"\n'
    "    nodes: {min: 0, max: 2, desired: 2}\n    placement:\n      domains: [usw2a]\n"
)


def _diff(old: Path, new: Path):
    return diff(side_of(str(old)), side_of(str(new)), at=AT)


def _locked(source: Path, directory: Path, *edits: tuple[str, str]) -> Path:
    """An edited copy of `source`, pinned by `railyard lock --write` as a deployed cluster keeps it."""
    directory.mkdir(parents=True, exist_ok=True)
    path = edited_copy(source, directory, *edits)
    assert main(["lock", str(path), "--write"]) == 0
    return path


def _codes(result, code: str) -> list:
    return [finding for finding in result.findings if finding.code == code]


def test_a_pool_added_already_held_is_refused_naming_its_node_group_and_the_rule(tmp_path):
    old = _locked(DEV, tmp_path / "old")
    new = edited_copy(old, tmp_path, ("storage:\n  - ", NEW_HELD_POOL + "storage:\n  - "))
    result = _diff(old, new)
    (held,) = _codes(result, "change.held-group-created")
    assert held.severity == "error" and held.path == ("pools", 1, "kubernetes_version")
    assert held.message.startswith("node group eval-usw2a (pool 'eval') is held at Kubernetes 1.34, and this change creates it")
    assert '"this is the only accepted specified value"' in held.message
    assert "drop this pool's kubernetes_version for the change (its new groups join at 1.35)" in held.hint
    assert not result.ok


def test_a_held_group_replaced_is_refused_but_one_that_stays_behind_and_resizes_is_not(tmp_path):
    old = _locked(DEV, tmp_path / "old", (DEV_POOL, HELD))
    (tmp_path / "spot").mkdir()
    (tmp_path / "resized").mkdir()
    spot = edited_copy(old, tmp_path / "spot", ("    role: dev\n", "    role: dev\n    capacity: {kind: spot}\n"))
    replaced = _diff(old, spot)
    group = next(change for change in replaced.changes if change.type == NODE_GROUP and change.name.endswith("-dev-usw2a"))
    assert group.action == "replace"
    (held,) = _codes(replaced, "change.held-group-created")
    assert "this change replaces (deletes, then creates) it" in held.message
    resized = edited_copy(old, tmp_path / "resized", ("nodes: {min: 0, max: 1, desired: 1}", "nodes: {min: 0, max: 2, desired: 2}"))
    assert _codes(_diff(old, resized), "change.held-group-created") == []


def test_an_eks_ami_pool_moved_to_a_custom_ami_updates_in_place_and_is_refused(tmp_path):
    new = edited_copy(DEV, tmp_path, (DEV_POOL, DEV_POOL + "    ami_id: ami-0123456789abcdef0\n"))
    result = _diff(DEV, new)
    group = next(change for change in result.changes if change.type == NODE_GROUP and change.name.endswith("-dev-usw2a"))
    # amiType and version are optional and computed: dropped, they make no diff; only the template's version moves.
    assert group.action == "update"
    assert [(item.path, item.cause) for item in group.inputs] == [("launchTemplate.version", "recomputed")]
    (switch,) = _codes(result, "change.ami-switch")
    assert switch.severity == "error" and switch.path == ("pools", 0, "ami_id")
    assert "You must create a new node group to switch between specifying an AMI ID" in switch.message
    assert switch.hint.startswith("add a pool of its own beside this one (a new name, so a new node group)")


def test_a_custom_ami_pool_moved_back_to_the_eks_ami_is_replaced_with_a_warning(tmp_path):
    (tmp_path / "old").mkdir()
    old = edited_copy(DEV, tmp_path / "old", (DEV_POOL, DEV_POOL + "    ami_id: ami-0123456789abcdef0\n"))
    result = _diff(old, DEV)
    group = next(change for change in result.changes if change.type == NODE_GROUP and change.name.endswith("-dev-usw2a"))
    assert group.action == "replace" and [item.path for item in group.inputs if item.effect.kind == "replace"] == ["amiType"]
    (switch,) = _codes(result, "change.ami-switch")
    assert switch.severity == "warning" and "the group is replaced, deleted before its replacement is created" in switch.message


def test_an_optional_computed_input_dropped_from_the_config_is_no_change_but_a_new_value_is():
    token = "t:m/group:Group"
    rules = ResourceRules(token, token, MappingProxyType({"image": "replace", "size": "update"}), (), "unknown", frozenset({"image"}))
    unrecorded = replace(rules, optional_computed=None)

    def resource(inputs):
        return PreviewResource(f"urn:pulumi:s::p::{token}::g", token, "g", "", inputs, "id-g")

    with_image, without = resource({"image": "a", "size": 1}), resource({"size": 1})
    table = ReplaceTable(MappingProxyType({}), MappingProxyType({token: rules}))
    assert compare([with_image], [without], table) == []
    (added,) = compare([without], [with_image], table)
    assert added.action == "replace"
    # A table that didn't record the attribute's flags keeps the conservative reading: the drop replaces.
    (dropped,) = compare([with_image], [without], ReplaceTable(MappingProxyType({}), MappingProxyType({token: unrecorded})))
    assert dropped.action == "replace"


def test_a_rolling_update_says_how_long_pulumi_waits_and_the_arithmetic(tmp_path):
    (tmp_path / "old").mkdir()
    old = edited_copy(DEV, tmp_path / "old", ('version: "1.35"', 'version: "1.34"'))
    result = _diff(old, DEV)
    rolling = next(impact for impact in result.impacts if impact.kind == "rolling" and impact.subject == "pool dev")
    # One node at most: one wave of one node, 15 + 1 + 15 minutes, on the provider's 60.
    assert rolling.figures["update_timeout"] == "91m"
    assert rolling.figures["timeout_arithmetic"] == ("1 waves of up to 1 node x 31 min (launch and join 15, cordon wait 1, drain 15) + 60 = 91 min")
    assert "Pulumi waits up to 91m per group" in rolling.summary


def test_the_upgrade_order_says_the_later_add_ons_wait_for_the_system_groups_only(tmp_path):
    (tmp_path / "old").mkdir()
    old = edited_copy(DEV, tmp_path / "old", ('version: "1.35"', 'version: "1.34"'))
    (upgrade,) = [impact for impact in _diff(old, DEV).impacts if impact.kind == "upgrade"]
    assert upgrade.summary.endswith(
        "(the add-ons after the node groups wait for system only; the other node groups may still be rolling while they update)"
    )


def test_lock_writes_each_pin_with_the_zone_it_was_deployed_in(tmp_path):
    path = _locked(P5, tmp_path)
    pins = validate(str(path)).load.blueprint.cloud
    assert pins.pinned_zones == {
        "efa-ultra-use1a": "us-east-1a",
        "private-us-east-1a": "us-east-1a",
        "private-us-east-1b": "us-east-1b",
        "public-us-east-1a": "us-east-1a",
        "public-us-east-1b": "us-east-1b",
    }
    assert "    efa-ultra-use1a: {cidr: 10.0.0.0/17, availability_zone: us-east-1a}\n" in path.read_text()


MOVED = (
    ("    - name: use1a\n      availability_zone: us-east-1a", "    - name: use1a\n      availability_zone: us-east-1b"),
    ("      zone: us-east-1a\n", "      zone: us-east-1b\n"),
)


def test_a_pinned_subnet_whose_failure_domain_moves_zone_is_refused_by_validate(tmp_path):
    old = _locked(P5, tmp_path / "old")
    moved = validate(str(edited_copy(old, tmp_path, *MOVED)))
    (finding,) = [finding for finding in moved.findings if finding.code == "compile.pin-zone-moved"]
    assert finding.severity == "error" and finding.path == ("cloud", "subnet_cidrs", "efa-ultra-use1a")
    assert finding.message.startswith("subnet 'efa-ultra-use1a' is pinned at 10.0.0.0/17 in us-east-1a, but the plan now puts it in us-east-1b")
    assert finding.hint.startswith("keep the failure domain in us-east-1a; to use us-east-1b, add a failure domain of its own there")


def test_a_range_only_pin_still_reads_and_diff_refuses_its_zone_move(tmp_path):
    locked = _locked(P5, tmp_path / "locked")
    # A lock file from before pins knew their zone: ranges alone.
    (tmp_path / "old").mkdir()
    old = tmp_path / "old" / P5.name
    old.write_text(re.sub(r"\{cidr: ([0-9./]+), availability_zone: [a-z0-9-]+\}", r"\1", locked.read_text()))
    loaded = validate(str(old))
    assert loaded.ok and str(loaded.load.blueprint.cloud.pinned_ranges["efa-ultra-use1a"]) == "10.0.0.0/17"
    assert loaded.load.blueprint.cloud.pinned_zones == {}
    result = _diff(old, edited_copy(old, tmp_path, *MOVED))
    (finding,) = _codes(result, "change.subnet-zone-moved")
    assert finding.severity == "error" and finding.path == ("cloud", "subnet_cidrs", "efa-ultra-use1a")
    assert "moves from us-east-1a to us-east-1b at the same range 10.0.0.0/17" in finding.message
    assert "`railyard lock --write` on the deployed blueprint first" in finding.hint
