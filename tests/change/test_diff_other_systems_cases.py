"""The six cases of issue 50, each as `diff` and `diff --markdown` show it: what EKS, Karpenter, Kueue and Pulumi
do with a change railyard itself classifies as an update, a create or a delete.

Each case edits a shipped example (as YAML data) and diffs it against the original at a fixed instant.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from pathlib import Path

import yaml

from railyard.change.diff import diff, side_of
from railyard.change.render import markdown_report, text_report

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
BEFORE_BLOCK = datetime(2026, 11, 26, tzinfo=UTC)  # p5-capacity-block's block runs 2026-12-01T11:30Z to 12-15
IN_BLOCK = datetime(2026, 12, 2, tzinfo=UTC)


def _example(name: str) -> dict:
    return yaml.safe_load((EXAMPLES / f"{name}.yaml").read_text(encoding="utf-8"))


def _diff(tmp_path: Path, old: dict, new: dict, at: datetime):
    paths = []
    for label, document in (("old", old), ("new", new)):
        path = tmp_path / f"{label}.yaml"
        path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
        paths.append(str(path))
    result = diff(side_of(paths[0]), side_of(paths[1]), at=at)
    assert result.compared
    return result


def _codes(result, severity: str) -> list[str]:
    return sorted(finding.code for finding in result.findings if finding.severity == severity)


def _shown(result, text: str) -> None:
    """The line is in the terminal report and in the pull-request comment alike."""
    assert text in text_report(result) and text in markdown_report(result).replace("\\|", "|")


def test_a_hold_added_after_the_roll_is_refused_not_rolled(tmp_path):
    old = _example("p5-capacity-block")
    new = copy.deepcopy(old)
    new["pools"][0]["kubernetes_version"] = "1.34"
    result = _diff(tmp_path, old, new, IN_BLOCK)
    assert not result.ok and _codes(result, "error") == ["change.version-down"]
    (refused,) = [finding for finding in result.findings if finding.code == "change.version-down"]
    assert refused.path == ("pools", 0, "kubernetes_version")
    assert refused.message == (
        "node group train-use1a (pool 'train') goes from Kubernetes 1.35 down to 1.34: EKS refuses it "
        '("You cannot roll back a node group to an earlier Kubernetes version or AMI version", UpdateNodegroupVersion)'
    )
    assert refused.hint.startswith("a hold only keeps a group that still runs that version: drop pools[0].kubernetes_version")
    # Nothing rolls, so no "0 nodes in 0 waves" and no Capacity Block roll warning.
    assert [impact.kind for impact in result.impacts if impact.kind == "rolling"] == []
    assert "change.capacity-block-roll" not in _codes(result, "warning")
    (refused_impact,) = [impact for impact in result.impacts if impact.kind == "version-refused"]
    assert refused_impact.summary == (
        "Kubernetes version going down: EKS refuses it, so `pulumi up` fails on this group and nothing of it rolls "
        "(64 nodes, 512 accelerators stay as they are; change.version-down)"
    )
    _shown(result, "change.version-down")


def test_an_upgrade_names_each_karpenter_pools_drift_its_nodes_and_its_budget(tmp_path):
    new = _example("ai-on-eks")
    old = copy.deepcopy(new)
    old["kubernetes"]["version"] = "1.34"
    result = _diff(tmp_path, old, new, IN_BLOCK)
    drifted = {impact.subject: impact for impact in result.impacts if impact.kind == "karpenter-drift"}
    assert set(drifted) == {"pool gpu-inference", "pool neuron-inference"}
    gpu = drifted["pool gpu-inference"]
    assert (gpu.figures["nodes"], gpu.figures["accelerators"], gpu.figures["nodes_per_wave"], gpu.figures["budget"]) == (16, 64, 2, "10%")
    expected = (
        "Karpenter replaces drifted nodes across 2 NodePools (Kubernetes 1.34 -> 1.35: EC2NodeClass alias al2023@v20260724 resolves "
        "to the new version's AMI (AMIDrift)): every node of the pool, up to 16 nodes (64 accelerators) at its limit, 2 at a time "
        "(8 accelerators), the NodePool's disruption budget (nodes: 10%)"
    )
    assert gpu.summary == expected
    _shown(result, expected)


def test_a_karpenter_ceiling_halved_is_called_out(tmp_path):
    old = _example("ai-on-eks")
    new = copy.deepcopy(old)
    new["pools"][1]["nodes"] = {"min": 0, "max": 8}
    result = _diff(tmp_path, old, new, IN_BLOCK)
    (lowered,) = [impact for impact in result.impacts if impact.kind == "karpenter-limit"]
    assert lowered.subject == "pool gpu-inference"
    assert (lowered.figures["cpu_before"], lowered.figures["cpu_after"], lowered.figures["nodes_before"], lowered.figures["nodes"]) == (
        768,
        384,
        16,
        8,
    )
    _shown(result, "NodePool limit lowered across 2 NodePools: cpu 768 -> 384, 16 -> 8 nodes (32 accelerators) at the limit")


def test_the_gate_turned_on_for_a_running_pool_warns_in_nodes_and_accelerators(tmp_path):
    new = _example("adt-eks-capacity-block")
    old = copy.deepcopy(new)
    old["pools"][0].pop("acceptance")
    result = _diff(tmp_path, old, new, IN_BLOCK)
    (warned,) = [finding for finding in result.findings if finding.code == "change.acceptance-on-running"]
    assert warned.path == ("pools", 0, "acceptance")
    assert warned.message.startswith("pool p5 turns the acceptance gate on while its node groups (p5-az2) run 8 nodes (64 accelerators): ")
    assert '"The Kubernetes taints to be applied to the nodes in the node group after the update."' in warned.message
    (gated,) = [impact for impact in result.impacts if impact.kind == "acceptance-on-running"]
    assert (gated.figures["nodes"], gated.figures["accelerators"]) == (8, 64)
    _shown(result, "acceptance gate on for running nodes: EKS taints and labels all 8 running nodes (64 accelerators) as pending")


def test_the_gate_turned_on_before_a_block_starts_gates_only_the_nodes_to_come(tmp_path):
    old = _example("p5-capacity-block")
    new = copy.deepcopy(old)
    new["pools"][0]["acceptance"] = {"level": "standard"}
    result = _diff(tmp_path, old, new, BEFORE_BLOCK)
    assert "change.acceptance-on-running" not in _codes(result, "warning")
    assert [impact for impact in result.impacts if impact.kind == "acceptance-on-running"] == []


def test_deleting_a_protected_tier_takes_two_steps_and_diff_says_so(tmp_path):
    deployed = _example("ai-on-eks")
    removed = copy.deepcopy(deployed)
    removed["storage"] = [tier for tier in removed["storage"] if tier["name"] != "fsx"]
    for pool in removed["pools"]:
        pool.pop("storage", None)
    removed["cloud"]["protect_stateful"] = False
    (tmp_path / "at-once").mkdir()
    result = _diff(tmp_path / "at-once", deployed, removed, IN_BLOCK)
    assert not result.ok
    refused = [finding for finding in result.findings if finding.code == "change.protected-delete"]
    assert {finding.path for finding in refused} == {("storage", 0), ()}
    tier = next(finding for finding in refused if finding.path == ("storage", 0))
    assert tier.hint.startswith("two changes: first keep storage tier 'fsx' and set `protect: false` on it (storage[0], this tier alone)")
    _shown(result, "refused while the deployed stack protects it: unprotect it in one `pulumi up`, then delete it in another")
    # Step one: the tier alone unprotected; only the state changes, and the diff says so.
    unprotected = copy.deepcopy(deployed)
    next(tier for tier in unprotected["storage"] if tier["name"] == "fsx")["protect"] = False
    (tmp_path / "step-1").mkdir()
    first = _diff(tmp_path / "step-1", deployed, unprotected, IN_BLOCK)
    assert first.ok and first.changes == []
    assert {impact.kind for impact in first.impacts} == {"protection-lifted"}
    # Step two: the delete is now a loss the deployed blueprint accepted.
    removed["cloud"].pop("protect_stateful")
    (tmp_path / "step-2").mkdir()
    second = _diff(tmp_path / "step-2", unprotected, removed, IN_BLOCK)
    assert second.ok and _codes(second, "error") == []
    accepted = [impact.figures["accepted_by"] for impact in second.impacts if impact.kind == "state-lost"]
    assert "the deployed blueprint, which left it unprotected (storage[0].protect: false)" in accepted


def test_a_new_block_pool_says_when_its_capacity_arrives_and_a_roll_with_no_node_says_nothing_drains(tmp_path):
    new = _example("p5-capacity-block")
    old = copy.deepcopy(new)
    old["pools"][0]["name"] = "train-old"  # another name: its groups go, the new pool's are created
    result = _diff(tmp_path, old, new, BEFORE_BLOCK)
    added = next(impact for impact in result.impacts if impact.kind == "capacity-added" and impact.subject == "pool train")
    assert added.summary == (
        "new capacity: no node now: +64 nodes (+512 accelerators) when its Capacity Block starts at 2026-12-01T11:30:00Z "
        "(a scheduled scale-up; the group is created at desired size 0)"
    )
    for impact in result.impacts:
        assert "+0 nodes" not in impact.summary and " in 0 waves" not in impact.summary, impact.summary
    rolled = copy.deepcopy(new)
    rolled["pools"][0]["root_volume"] = {"size_gib": 400}
    (tmp_path / "roll").mkdir()
    roll = _diff(tmp_path / "roll", new, rolled, BEFORE_BLOCK)
    (rolling,) = [impact for impact in roll.impacts if impact.kind == "rolling"]
    assert "no node runs in it at this moment (desired size 0), so only the launch template and version move and nothing drains" in (rolling.summary)


def test_capacity_split_across_kueue_flavors_is_named(tmp_path):
    old = _example("inference-fleet")
    new = copy.deepcopy(old)
    half = {"min": 240, "max": 480, "desired": 360}
    other = {**copy.deepcopy(new["pools"][0]), "name": "serve-b", "nodes": dict(half)}
    new["pools"][0]["nodes"] = dict(half)
    new["pools"].append(other)
    result = _diff(tmp_path, old, new, IN_BLOCK)
    (split,) = [impact for impact in result.impacts if impact.kind == "flavor-split"]
    assert (split.figures["largest_before"], split.figures["largest_after"], split.figures["pools"]) == (3840, 1920, ["serve", "serve-b"])
    _shown(result, "capacity split across Kueue flavors: the largest nvidia.com/gpu quota one flavor holds goes from 3,840 to 1,920 GPUs")
