"""Planning within what AWS allows: node groups split under the per-group quota, the quota plan, one cluster's limits."""

from __future__ import annotations

import pytest

from blueprints.catalog import load_catalog
from components.plan.compile import plan_blueprint
from railyard.pipeline import validate
from tests.blueprints.base import BASE, load
from tests.preview.conftest import ROOT, preview_of
from topology.cluster.quotas import quota_findings, quota_plan
from topology.cluster.scale import control_plane_tier
from topology.cluster.splitting import Share, split_share

CATALOG = load_catalog()
RAIL = str(ROOT / "blueprints" / "examples" / "rail-131k.yaml")


def test_a_share_within_the_limit_stays_one_group():
    assert split_share("za", [], (2, 4, 8), 450) == [Share("za", "za", 2, 4, 8)]


def test_a_share_over_the_limit_splits_by_block_then_in_fixed_chunks():
    parts = split_share("campus", [("b1", 1000), ("b2", 300)], (0, 1300, 1300), 450)
    assert [(p.suffix, p.domain, p.high) for p in parts] == [("b1-01", "b1", 450), ("b1-02", "b1", 450), ("b1-03", "b1", 100), ("b2", "b2", 300)]
    assert sum(p.desired for p in parts) == 1300 and all(p.high <= 450 for p in parts)


def test_growing_a_split_pool_keeps_every_existing_name_and_full_group():
    before = split_share("b1", [("b1", 900)], (0, 900, 900), 450)
    after = split_share("b1", [("b1", 1000)], (0, 1000, 1000), 450)
    assert [p.suffix for p in after][: len(before)] == [p.suffix for p in before]
    assert [(p.suffix, p.high) for p in after] == [("b1-01", 450), ("b1-02", 450), ("b1-03", 100)]


def test_every_example_keeps_its_node_groups_within_the_per_group_quota():
    for name in ("p5-capacity-block", "heterogeneous", "dev-g6e", "rail-131k", "insecure"):
        validation = validate(str(ROOT / "blueprints" / "examples" / f"{name}.yaml"))
        (need,) = [need for need in validation.quotas if need.code == "L-BD136A63"]
        assert need.ok is True and need.needed <= need.available, name


def test_rail_131k_quota_plan_lists_what_it_needs_with_codes_and_defaults():
    needs = {need.code: need for need in validate(RAIL).quotas}
    assert needs["L-BD136A63"].needed == 1024 and (needs["L-BD136A63"].default, needs["L-BD136A63"].declared) == (450, 1024)
    assert needs["L-6D54EA21"].needed == 18 and needs["L-6D54EA21"].default == 30  # 16 blocks, 2 system groups
    assert needs["L-83CA0A9D"].needed == 10 and needs["L-83CA0A9D"].declared == 10
    assert needs["L-417A185B"].needed == 16384 * 192
    assert needs["L-8F1B9C74"].needed == 336000 and needs["L-8F1B9C74"].default == 100800
    assert all(need.ok is not False for need in needs.values())
    assert validate(RAIL).as_json()["control_plane"] == {"nodes": 16388, "tier": "tier-8xl", "default": "standard", "declared": False}


def test_a_need_over_the_default_is_refused_with_the_request_that_raises_it():
    text = BASE.replace("    nodes: 8\n", "    nodes: 460\n").replace("      instance_count: 8\n", "      instance_count: 460\n")
    text = text.replace(
        "          racks: 4\n          hosts_per_rack: 4\n    - name: zb", "          racks: 120\n          hosts_per_rack: 4\n    - name: zb"
    )
    blueprint = load(
        text.replace("kind: capacity_block", "kind: capacity_reservation").replace(
            "      start: 2026-12-01T00:00:00Z\n      end: 2026-12-08T00:00:00Z\n", ""
        )
    ).blueprint
    assert blueprint is not None
    needs = quota_plan(blueprint, CATALOG, plan_blueprint(blueprint, CATALOG))
    by_code = {need.code: need for need in needs}
    # 460 nodes in one block: two groups of 450 and 10, within the default; the design asks for none over.
    assert by_code["L-BD136A63"].needed == 450
    (interfaces,) = [finding for finding in quota_findings(blueprint, needs) if finding.code == "quota.exceeded" and "L-DF5E4CA3" in finding.message]
    assert "Network interfaces per Region (L-DF5E4CA3): the design needs 15256" in interfaces.message  # 460 p5 x 33, + system
    lowered = blueprint.model_copy(update={"quotas": {"L-BD136A63": 200, "L-DF5E4CA3": 20000}})
    lowered_plan = plan_blueprint(lowered, CATALOG)
    assert [group.max_size for group in lowered_plan.node_groups if group.pool == "train"] == [200, 200, 60]
    findings = quota_findings(lowered, quota_plan(lowered, CATALOG, lowered_plan))
    assert [finding.code for finding in findings if finding.severity == "error"] == []  # the declared values are honoured
    strict = blueprint.model_copy(update={"quotas": {"L-6D54EA21": 2, "L-DF5E4CA3": 20000}})
    (over,) = [
        finding
        for finding in quota_findings(strict, quota_plan(strict, CATALOG, plan_blueprint(strict, CATALOG)))
        if finding.code == "quota.exceeded"
    ]
    assert over.path == ("quotas", "L-6D54EA21")
    assert (
        "Managed node groups per cluster (L-6D54EA21)" in over.message and "--quota-code L-6D54EA21 --desired-value 5" in over.hint
    )  # system, train x2, serve x2


def test_an_unknown_declared_quota_code_is_a_warning():
    text = BASE.replace("kubernetes:\n", "quotas: {L-00000000: 5}\nkubernetes:\n")
    validation_findings = [finding for finding in load(text).findings]
    assert validation_findings == [] or all(f.code != "schema.bad-format" for f in validation_findings)
    blueprint = load(text).blueprint
    findings = quota_findings(blueprint, quota_plan(blueprint, CATALOG, plan_blueprint(blueprint, CATALOG)))
    assert [(f.code, f.severity) for f in findings if f.code == "quota.unknown-code"] == [("quota.unknown-code", "warning")]


@pytest.mark.parametrize(
    ("nodes", "tier"), [(3, "standard"), (1000, "standard"), (1001, "tier-xl"), (5000, "tier-2xl"), (10001, "tier-8xl"), (16388, "tier-8xl")]
)
def test_the_control_plane_tier_follows_the_node_count(nodes, tier):
    assert control_plane_tier(nodes) == tier
    assert control_plane_tier(nodes, "tier-4xl") == "tier-4xl"


def test_rail_131k_provisions_its_control_plane_and_is_warned_about_its_placement_group():
    cluster = next(r for r in preview_of("rail-131k").resources if r.type == "aws:eks/cluster:Cluster")
    assert cluster.inputs["controlPlaneScalingConfig"] == {"tier": "tier-8xl"}
    small = next(r for r in preview_of("p5-capacity-block").resources if r.type == "aws:eks/cluster:Cluster")
    assert "controlPlaneScalingConfig" not in small.inputs
    codes = {finding.code: finding.severity for finding in validate(RAIL).findings}
    assert codes["scale.cluster-placement-group"] == "warning" and codes["scale.large-cluster"] == "info"


def test_every_registered_urn_is_unique():
    for name in ("rail-131k", "insecure", "heterogeneous"):
        urns = [resource.urn for resource in preview_of(name).resources]
        assert len(urns) == len(set(urns)), name


def test_a_design_past_one_eks_cluster_is_refused_and_a_large_one_noted():
    from topology.cluster.scale import scale_findings

    (beyond,) = scale_findings(100_001, "tier-8xl", (), {})
    assert (beyond.code, beyond.severity) == ("scale.beyond-one-cluster", "error") and "docs/scale.md" in beyond.hint
    (large,) = scale_findings(5_001, "tier-2xl", (), {})
    assert (large.code, large.severity) == ("scale.large-cluster", "info")
    assert scale_findings(5_000, "tier-2xl", (), {}) == []
