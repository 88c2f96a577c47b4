"""`railyard diff` tells a reviewer what matters (issue 40, items 4 and 7).

* the new side's findings, and what changed in them against the old side: a version bump's new warning,
  a finding resolved, one whose figure moved (changed), and one that merely moved lines (unchanged);
* ceilings: raising a pool's `nodes.max` moves no node and costs nothing as planned, but its max nodes,
  accelerators, spend at max and every quota it needs at max move, and each row says what it counts;
* cost totals as before, after and change, never a change beside a new total.

The fleet below is the inference-fleet example at half its size, with its us-west-2 prices declared
(railyard's On-Demand table is us-east-1's): one pool `serve` of g6e.12xlarge (4 L40S, 48 vCPUs) over two
zones, one node group per zone.

    zone usw2a ── node group serve-usw2a ─┐
                                          ├─ pool serve, nodes.max 480 -> 900 (240 -> 450 a group)
    zone usw2b ── node group serve-usw2b ─┘
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blueprints.catalog.quotas import load_quotas
from blueprints.findings import Finding, info, warning
from railyard.change.diff import diff, side_of
from railyard.change.findings_change import findings_change
from railyard.change.render import markdown_report, text_report
from railyard.cli import main
from tests.preview.conftest import AT
from tests.yaml_text import edited_copy, line_of

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
FLEET = EXAMPLES / "inference-fleet.yaml"
DEV = EXAMPLES / "dev-g6e.yaml"
G6E_12XL_USD = 10.49264  # Karpenter's us-east-1 On-Demand rate, declared for us-west-2
SYSTEM_USD = 0.2016
HALF_FLEET = (
    ("nodes: {min: 480, max: 960, desired: 720}", "nodes: {min: 240, max: 480, desired: 360}"),
    (
        "kubernetes:\n  layer_stack",
        f"cost:\n  instance_usd_per_hour: {{g6e.12xlarge: {G6E_12XL_USD}, m7i.xlarge: {SYSTEM_USD}}}\nkubernetes:\n  layer_stack",
    ),
)
RAISED = ("max: 480,", "max: 900,")


def _diff(old: Path, new: Path):
    return diff(side_of(str(old)), side_of(str(new)), at=AT)


@pytest.fixture
def raised_ceiling(tmp_path):
    """The half fleet (old) and the same with its pool's nodes.max raised from 480 to 900 (new), in folders of their own."""
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old = edited_copy(FLEET, tmp_path / "old", *HALF_FLEET)
    new = edited_copy(FLEET, tmp_path / "new", *HALF_FLEET, RAISED)
    return old, new


def _rows(result):
    return {ceiling.key: ceiling for ceiling in result.ceilings}


def test_raising_a_pools_max_moves_nothing_as_planned_but_reports_every_ceiling_before_and_after(raised_ceiling):
    result = _diff(*raised_ceiling)
    assert result.ok and result.impacts == [] and result.cost is not None and result.cost.deltas == ()
    rows = _rows(result)
    figures = {key: (row.figures.before, row.figures.after, row.figures.change) for key, row in rows.items() if row.kind in ("total", "pool")}
    assert {key: value for key, value in figures.items() if "usd" not in key} == {
        "max_nodes": (480, 900, 420),
        "max_accelerators": (1920, 3600, 1680),
        "pool:serve:max_nodes": (480, 900, 420),
        "pool:serve:max_accelerators": (1920, 3600, 1680),
    }
    spend = rows["pool:serve:hourly_at_max_usd"].as_json()
    assert (spend["before"], spend["after"], spend["change"]) == (5036.47, 9443.38, 4406.91)  # 480 and 900 x 10.49264
    # The whole design's spend at max moves by the pool's alone: the system nodes and control plane stay put.
    # It is the cost model's own figure on each side (topology.cost), not worked out again.
    whole = rows["hourly_at_max_usd"].figures
    assert (whole.before, whole.after) == (result.cost.old.hourly_at_max_usd, result.cost.new.hourly_at_max_usd)
    assert whole.change == pytest.approx((900 - 480) * G6E_12XL_USD)


def test_every_quota_needed_at_max_is_a_labelled_row_with_the_new_sides_status(raised_ceiling):
    result = _diff(*raised_ceiling)
    moved = {
        row.label: (row.figures.before, row.figures.after, row.available, row.status)
        for row in result.ceilings
        if row.kind in ("service-quota", "queue-quota") and row.figures.moved
    }
    assert moved == {
        # 240 -> 450 nodes a group (one group per zone); EKS's default is 450.
        "Nodes per managed node group (L-BD136A63), nodes": (240, 450, 450, "ok"),
        # 48 vCPUs a g6e.12xlarge; AWS sets this quota per account, so the need is to check.
        "Running On-Demand G and VT instances (L-DB2E81BA), vCPUs": (480 * 48, 900 * 48, None, "check"),
        # 10 interfaces a node on card 0, plus the system nodes' 16; the blueprint declares 12,000.
        "Network interfaces per Region (L-DF5E4CA3), network interfaces": (4816, 9016, 12000, "ok"),
        # The Kueue ClusterQueue's quota for the pool's flavor is the pool at its max, per resource.
        "Kueue queue serve-fleet, pool serve: cpu nominal quota, vCPUs": (480 * 48, 900 * 48, None, None),
        "Kueue queue serve-fleet, pool serve: nvidia.com/gpu nominal quota, GPUs": (1920, 3600, None, None),
        # 384 GiB of memory a node, and 3,539 GiB of ephemeral storage (its local NVMe, as the kubelet reports it).
        "Kueue queue serve-fleet, pool serve: memory nominal quota, MiB": (480 * 393216, 900 * 393216, None, None),
        "Kueue queue serve-fleet, pool serve: ephemeral-storage nominal quota, GiB": (480 * 3539, 900 * 3539, None, None),
    }
    # The ClusterQueue's input lists its quotas by one wire path: the resource table shows the first (cpu) and counts
    # the others, which the ceilings above label one by one.
    (queue,) = [change for change in result.changes if change.type == "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"]
    assert [(item.path, item.old, item.new, item.more) for item in queue.inputs] == [
        ("spec.resourceGroups.flavors.resources.nominalQuota", "23040", "43200", 3)
    ]
    unchanged = {row.key for row in result.ceilings if row.kind == "service-quota" and not row.figures.moved}
    assert unchanged == {
        "quota:L-6D54EA21",
        "quota:L-1216C47A",
        "quota:L-F678F1CE",
        "quota:L-0263D0A3",
        "quota:L-407747CB",
        "quota:L-83CA0A9D",
        "quota:L-FE5A380F",
    }


def test_the_text_and_markdown_show_the_ceilings_that_moved_with_before_after_and_change_apart(raised_ceiling):
    result = _diff(*raised_ceiling)
    text, markdown = text_report(result), markdown_report(result)
    assert "no capacity, node, data or cost impact" not in text
    assert "at the planned size nothing changes" in text
    gpu = "Kueue queue serve-fleet, pool serve: nvidia.com/gpu nominal quota, GPUs"
    assert f"| {gpu} | 1,920 | 3,600 | +1,680 |  |" in markdown
    assert "| pool serve: spend at max, USD/h | 5,036.47 | 9,443.38 | +4,406.91 |  |" in markdown
    assert "| Running On-Demand G and VT instances (L-DB2E81BA), vCPUs | 23,040 | 43,200 | +20,160 | check |" in markdown
    line = next(line for line in text.splitlines() if line.startswith(gpu))
    assert line.split()[-3:] == ["1,920", "3,600", "+1,680"]
    # The seven service quotas the raise leaves alone are counted, not listed.
    assert "7 other ceiling(s) unchanged (`--json` lists every one)" in text


def test_cost_totals_are_before_after_and_change_in_text_markdown_and_json(dev_with_a_new_priced_pool):
    result = _diff(*dev_with_a_new_priced_pool)
    # As planned: one g6e.xlarge, two m7i.xlarge system nodes and the control plane; the new pool adds two g6e.xlarge.
    before = 1.861 + 2 * 0.2016 + 0.10
    totals = result.as_json()["cost"]["totals"]
    # The change is the difference of the figures shown (2.36 -> 6.09), so before + change = after to the cent;
    # the pool's own line, unrounded 3.722, reads +3.72.
    assert totals["hourly_usd"] == {"before": 2.36, "after": 6.09, "change": 3.73}
    assert (round(before, 2), round(before + 2 * 1.861, 2)) == (2.36, 6.09)
    assert totals["monthly_usd"]["change"] == round(round((before + 2 * 1.861) * 730, 2) - round(before * 730, 2), 2)
    assert totals["unpriced_lines"] == {"before": 2, "after": 2, "change": 0}  # root volumes and NAT gateways
    assert totals["upfront_usd"] == {"before": 0.0, "after": 0.0, "change": 0.0}
    assert "| USD per hour as planned | 2.36 | 6.09 | +3.73 |" in markdown_report(result)
    assert "+3.72 USD/h" in text_report(result) and "cost: total" not in text_report(result)
    line = next(line for line in result.as_json()["cost"]["lines"] if line["key"] == "pool:eval")
    assert line == {
        "key": "pool:eval",
        "item": "pool eval: g6e.xlarge",
        "what": "added",
        "moved": ["hourly_usd"],
        "hourly_usd": {"before": 0.0, "after": 3.72, "change": 3.72},
        "upfront_usd": {"before": 0.0, "after": 0.0, "change": 0.0},
    }


def _on(version: str, directory: Path, source: Path = DEV, *more: tuple[str, str]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    return edited_copy(source, directory, ('version: "1.35"', f'version: "{version}"'), *more)


def test_a_version_bump_shows_the_new_sides_warning_as_new(tmp_path, capsys):
    new = _on("1.36", tmp_path / "new")
    result = _diff(DEV, new)
    assert [(finding.code, finding.severity) for finding in result.new_side.added] == [("k8s.version-unknown", "warning")]
    assert result.new_side.resolved == () and result.new_side.changed == ()
    assert [(status, finding.code) for status, finding in result.new_side.listed()] == [("new", "k8s.version-unknown")]
    assert "the new side: 0 error(s), 1 warning(s)" in markdown_report(result)
    assert "| new | warning | k8s.version-unknown |" in markdown_report(result)
    assert main(["diff", str(DEV), str(new), "--json", "--at", "2026-11-24T00:00:00Z"]) == 0
    document = json.loads(capsys.readouterr().out)["new_side_findings"]
    assert document["new"] == {"error": 0, "warning": 1, "info": 0} and document["resolved"] == {"error": 0, "warning": 0, "info": 0}
    assert [(entry["code"], entry["status"]) for entry in document["findings"] if entry["severity"] != "info"] == [("k8s.version-unknown", "new")]


def test_going_back_to_a_known_version_resolves_the_warning(tmp_path):
    old = _on("1.36", tmp_path / "old")
    result = _diff(old, DEV)
    assert [finding.code for finding in result.new_side.resolved] == ["k8s.version-unknown"] and result.new_side.added == ()
    assert ("resolved", "k8s.version-unknown") in [(status, finding.code) for status, finding in result.new_side.listed()]


def test_a_finding_that_only_moved_lines_is_unchanged(tmp_path):
    # Ten comment lines on top move every finding of the new side down ten lines; none of them is new.
    old = _on("1.36", tmp_path / "old")
    new = _on("1.36", tmp_path / "new", DEV, ("version: 1\n", "# a note\n" * 10 + "version: 1\n"))
    result = _diff(old, new)
    (moved,) = [finding for finding in result.new_side.new_side if finding.code == "k8s.version-unknown"]
    assert moved.line == line_of(old.read_text(), 'version: "1.36"') + 10 == line_of(new.read_text(), 'version: "1.36"')
    assert result.new_side.added == () and result.new_side.changed == () and result.new_side.resolved == ()
    assert {result.new_side.status(finding) for finding in result.new_side.new_side} == {"unchanged"}


def test_findings_are_matched_without_file_and_line_then_without_path_then_by_place():
    old = [
        warning("k8s.version-unknown", ("kubernetes", "version"), "1.36 unknown").at("old.yaml", 5, 1),
        info("quota.per-account", ("pools", 0, "nodes"), "needs 1152").at("old.yaml", 9, 1),
        warning("pool.thing", ("pools", 0), "pool a: thing").at("old.yaml", 8, 1),
        warning("gone.away", ("cloud",), "was here").at("old.yaml", 2, 1),
    ]
    new = [
        warning("k8s.version-unknown", ("kubernetes", "version"), "1.36 unknown").at("new.yaml", 15, 1),  # moved lines
        info("quota.per-account", ("pools", 0, "nodes"), "needs 2304").at("new.yaml", 9, 1),  # same place, new figure
        warning("pool.thing", ("pools", 1), "pool a: thing").at("new.yaml", 18, 1),  # its pool moved down the list
        warning("brand.new", ("cloud",), "now here").at("new.yaml", 2, 1),
    ]
    change = findings_change(old, new)
    assert [finding.code for finding in change.added] == ["brand.new"]
    assert [finding.message for finding in change.changed] == ["needs 2304"]
    assert [finding.code for finding in change.resolved] == ["gone.away"]
    assert [change.status(finding) for finding in new] == ["unchanged", "changed", "unchanged", "new"]
    assert change.summary() == (
        "the new side: 0 error(s), 3 warning(s), 1 note(s); against the old side: new 1 warning(s); changed 1 note(s); resolved 1 warning(s)"
    )


def test_two_alike_findings_on_one_side_match_one_each():
    same = warning("x.y", ("pools", 0), "same words")
    change = findings_change([same.at("a", 1, 1)], [same.at("b", 1, 1), Finding("x.y", "warning", ("pools", 1), "same words", file="b", line=2)])
    assert len(change.added) == 1 and change.added[0].path == ("pools", 1) and change.resolved == ()


def test_every_quota_says_what_it_counts():
    quotas = load_quotas()
    assert quotas["L-417A185B"].label == "Running On-Demand P instances (L-417A185B), vCPUs"
    assert quotas["L-8F1B9C74"].label == "Lustre Persistent_2 storage capacity (L-8F1B9C74), GiB"
    assert quotas["L-BD136A63"].label == "Nodes per managed node group (L-BD136A63), nodes"
    assert all(quota.unit and quota.label.endswith(f"({code}), {quota.unit}") for code, quota in quotas.items())


HYPERPOD = EXAMPLES / "hyperpod-eks-odcr.yaml"


def test_shrinking_a_reserved_pool_shows_the_unused_reservation_as_new_and_the_quota_need_as_changed(tmp_path):
    # 16 p5.48xlarge on a 16-instance reservation group, cut to 12: four reserved instances are paid for and never used.
    new = edited_copy(HYPERPOD, tmp_path, ("    nodes: 16\n", "    nodes: 12\n"))
    result = _diff(HYPERPOD, new)
    assert [(finding.code, finding.severity, finding.message) for finding in result.new_side.added] == [
        (
            "capacity.reservation-unused",
            "warning",
            "reservation cr-0a9b8c7d6e5f40001+cr-0a9b8c7d6e5f40002 holds 16 instances, but pool 'accelerated' can grow to only 12: "
            "4 reserved instances are paid for and never launched",
        )
    ]
    # The P vCPU note is the same check at the same place with a new figure: changed, not new and resolved.
    assert [(finding.code, "needs 2304" in finding.message) for finding in result.new_side.changed] == [("quota.per-account", True)]
    assert result.new_side.resolved == ()
    # No source railyard may ship prices us-west-2's instances, volumes or gateways: the spend row says how many lines it leaves out.
    (spend,) = [row for row in result.ceilings if row.key == "hourly_at_max_usd"]
    assert spend.label == "whole design: spend at max, USD/h (priced lines; 5 unpriced on the new side, left out)"


def test_an_invalid_new_side_is_not_compared_and_its_error_counts_as_new(tmp_path):
    p5 = EXAMPLES / "p5-capacity-block.yaml"
    new = edited_copy(p5, tmp_path, ("deployment_type: PERSISTENT_2", "deployment_type: PERSISTENT_1"))
    result = _diff(p5, new)
    assert not result.compared and result.ceilings == () and result.cost is None
    assert "fsx.feature-unsupported" in {finding.code for finding in result.new_side.added if finding.severity == "error"}
    errors = sum(1 for finding in result.findings if finding.severity == "error")
    assert markdown_report(result).splitlines()[2].startswith(f"Not compared: a side is invalid ({errors} error(s), ")
