"""railyard/change/karpenter_drift.py on built NodePools, EC2NodeClasses and changes: which paths drift (and which
Karpenter ignores), the disruption budget a wave takes (a percentage rounded up, the smallest budget), the control
plane's version drifting AMI aliases, a lowered limit, and the words for each. Exact figures at each boundary."""

from __future__ import annotations

import pytest

from railyard.change.karpenter_drift import CLUSTER, NODE_CLASS, NODE_POOL, drift, karpenter_worded, lowered_limits
from tests.change.built import blueprint, change, pool, resource, side

NEW = side(blueprint(pool("infer", instance_type="g6e.12xlarge"), pool("train")))  # p5.48xlarge: 192 vCPUs, 8 GPUs


def _node_pool(name: str = "train", cpu: object = 1920, budgets: list | None = None, node_class: str = "train-class", label: str | None = "train"):
    spec = {
        "template": {"metadata": {"labels": {"railyard.dev/pool": label} if label else {}}, "spec": {"nodeClassRef": {"name": node_class}}},
        "limits": {"cpu": cpu},
        **({"disruption": {"budgets": budgets}} if budgets is not None else {}),
    }
    return resource(f"{name}-pool", NODE_POOL, {"metadata": {"name": name}, "spec": spec})


def _pool_change(paths: dict[str, str], name: str = "train", action: str = "update"):
    inputs = {"metadata": {"name": name}}
    return change(f"{name}-pool", NODE_POOL, action, inputs, inputs, paths)


def _class_change(paths: dict[str, str], name: str = "train-class"):
    inputs = {"metadata": {"name": name}}
    return change(name, NODE_CLASS, "update", inputs, inputs, paths)


# --- what drifts --------------------------------------------------------------------------------------------------------------


def test_a_node_pools_template_change_drifts_every_node_a_budget_at_a_time():
    (found,) = drift([_pool_change({"spec.template.spec.taints": "update", "spec.template.metadata.labels.x": "update"})], [_node_pool()], NEW)
    assert found == (
        "karpenter-drift",
        "pool train",
        {
            "nodes": 10,
            "accelerators": 80,
            "node_groups": 1,
            "nodes_per_wave": 1,
            "accelerators_per_wave": 8,
            "waves": 10,
            "because": ["NodePool spec.template.metadata.labels.x", "NodePool spec.template.spec.taints"],
            "budget": "10%",
        },
    )


@pytest.mark.parametrize(
    "path",
    [
        "spec.template.spec.resources.requests",  # Karpenter hashes the template without its resources
        "spec.limits.cpu",  # outside the template
        "spec.disruption.budgets",
        "spec.templateish",  # a sibling whose name merely starts alike
    ],
)
def test_node_pool_paths_that_do_not_drift(path):
    assert drift([_pool_change({path: "update"})], [_node_pool()], NEW) == []


def test_the_template_itself_drifts():
    (found,) = drift([_pool_change({"spec.template": "update"})], [_node_pool()], NEW)
    assert found[2]["because"] == ["NodePool spec.template"]


def test_a_node_class_spec_change_drifts_the_pools_that_use_it_but_not_its_kubelet_prefix_count_or_family():
    (found,) = drift([_class_change({"spec.userData": "update", "spec.kubelet.maxPods": "update", "spec.amiFamily": "update"})], [_node_pool()], NEW)
    assert found[2]["because"] == ["EC2NodeClass spec.userData"]
    assert drift([_class_change({"spec.ipPrefixCount": "update", "metadata.labels": "update"})], [_node_pool()], NEW) == []
    assert drift([_class_change({"spec.userData": "update"}, name="other-class")], [_node_pool()], NEW) == []


def test_created_deleted_or_unrelated_changes_drift_nothing():
    pool_resource = _node_pool()
    deleted = _pool_change({"spec.template.spec.taints": "update"}, action="delete")
    deleted.new = None
    items = [
        _pool_change({"spec.template.spec.taints": "update"}, action="create"),
        deleted,
        change("x", "aws:ec2/vpc:Vpc", "update", {}, {}, {"spec.template": "update"}),
        _pool_change({"spec.template.spec.taints": "update"}, name="other"),  # no such NodePool in the preview
    ]
    assert drift(items, [pool_resource], NEW) == []


# --- the budget -----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("budgets", "cpu", "wave", "budget"),
    [
        (None, 1920, 1, "10%"),  # 10 nodes, 10%: 1
        (None, 2112, 2, "10%"),  # 11 nodes, 10%: 1.1 rounded up
        ([{"nodes": "20%"}], 1920, 2, "20%"),
        ([{"nodes": "3"}], 1920, 3, "3"),
        ([{"nodes": "3"}, {"nodes": "20%"}], 1920, 2, "3, 20%"),  # the smallest budget
        ([{"nodes": "0"}], 1920, 1, "0"),  # at least one
        ([{"reasons": ["Drifted"]}], 1920, 1, "10%"),  # a budget without nodes: 10%
        ([], 1920, 1, "10%"),
    ],
)
def test_a_wave_is_the_smallest_budget_rounded_up_and_at_least_one(budgets, cpu, wave, budget):
    (found,) = drift([_pool_change({"spec.template": "update"})], [_node_pool(cpu=cpu, budgets=budgets)], NEW)
    assert (found[2]["nodes_per_wave"], found[2]["budget"]) == (wave, budget)


def test_a_pool_at_no_nodes_has_no_wave_and_an_unknown_pool_no_figures():
    (found,) = drift([_pool_change({"spec.template": "update"})], [_node_pool(cpu=100)], NEW)  # under one node's vCPUs
    assert (found[2]["nodes"], found[2]["nodes_per_wave"], found[2]["waves"]) == (0, 0, 0)
    (found,) = drift([_pool_change({"spec.template": "update"})], [_node_pool(cpu="1000m")], NEW)  # not whole vCPUs
    assert found[2]["nodes"] == 0
    (found,) = drift([_pool_change({"spec.template": "update"}, name="gone")], [_node_pool("gone", label=None)], NEW)
    assert (found[1], found[2]["nodes"], found[2]["accelerators"]) == ("pool gone-pool", 0, 0)


# --- an upgrade drifts AMI aliases ---------------------------------------------------------------------------------------------


def _node_class(terms: list) -> object:
    return resource("train-class", NODE_CLASS, {"metadata": {"name": "train-class"}, "spec": {"amiSelectorTerms": terms}})


def _upgrade(before: object = "1.31", after: object = "1.32"):
    return change("cluster", CLUSTER, "update", {"version": before}, {"version": after}, {"version": "update"})


def test_an_upgrade_drifts_the_pools_whose_class_selects_an_ami_by_alias():
    terms = [{"alias": "al2023@v20260724"}, {"id": "ami-1"}, "odd", {"alias": "bottlerocket@latest"}]
    (found,) = drift([_upgrade()], [_node_pool(), _node_class(terms)], NEW)
    assert found[2]["because"] == [
        "Kubernetes 1.31 -> 1.32: EC2NodeClass alias al2023@v20260724, bottlerocket@latest resolves to the new version's AMI (AMIDrift)"
    ]


@pytest.mark.parametrize(
    ("terms", "upgrade"),
    [
        ([{"id": "ami-1"}], ("1.31", "1.32")),  # AMIs named by id don't move
        ([{"alias": ""}], ("1.31", "1.32")),
        ([{"alias": "al2023@latest"}], ("1.31", "1.31")),  # no version change
        ([{"alias": "al2023@latest"}], (None, "1.32")),
        ([{"alias": "al2023@latest"}], ("1.31", "")),
    ],
)
def test_no_alias_drift(terms, upgrade):
    assert drift([_upgrade(*upgrade)], [_node_pool(), _node_class(terms)], NEW) == []


def test_an_alias_class_no_pool_uses_or_a_cluster_created_drifts_nothing():
    other = resource("c", NODE_CLASS, {"metadata": {"name": "unused"}, "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}]}})
    assert drift([_upgrade()], [_node_pool(), other], NEW) == []
    created = change("cluster", CLUSTER, "create", None, {"version": "1.32"})
    assert drift([created], [_node_pool(), _node_class([{"alias": "al2023@latest"}])], NEW) == []


def test_every_reason_a_pool_drifts_is_listed_once():
    items = [_upgrade(), _pool_change({"spec.template.spec.taints": "update"}), _class_change({"spec.userData": "update"})]
    (found,) = drift(items, [_node_pool(), _node_class([{"alias": "al2023@latest"}])], NEW)
    assert found[2]["because"] == [
        "EC2NodeClass spec.userData",
        "Kubernetes 1.31 -> 1.32: EC2NodeClass alias al2023@latest resolves to the new version's AMI (AMIDrift)",
        "NodePool spec.template.spec.taints",
    ]


# --- a lowered limit ------------------------------------------------------------------------------------------------------------


def _limit(before: object, after: object):
    spec = {"template": {"metadata": {"labels": {"railyard.dev/pool": "train"}}}}
    return change(
        "train-pool",
        NODE_POOL,
        "update",
        {"metadata": {"name": "train"}, "spec": {**spec, "limits": {"cpu": before}}},
        {"metadata": {"name": "train"}, "spec": {**spec, "limits": {"cpu": after}}},
        {"spec.limits.cpu": "update"},
    )


def test_a_lowered_limit_says_how_many_nodes_it_leaves_above():
    assert lowered_limits([_limit(1920, 960)], NEW) == [
        (
            "karpenter-limit",
            "pool train",
            {"cpu_before": 1920, "cpu_after": 960, "nodes": 5, "nodes_before": 10, "accelerators": 40, "node_groups": 1},
        )
    ]


@pytest.mark.parametrize(("before", "after"), [(1920, 1920), (960, 1920), ("1920", "1000m"), ("", 960), (1920, None)])
def test_no_lowered_limit(before, after):
    assert lowered_limits([_limit(before, after)], NEW) == []


def test_a_limit_one_below_is_lowered_and_other_types_or_sides_are_not_read():
    (found,) = lowered_limits([_limit(1920, 1919)], NEW)
    assert (found[2]["nodes"], found[2]["nodes_before"]) == (9, 10)
    created = _limit(1920, 960)
    created.old = None
    other = change("x", NODE_CLASS, "update", {"spec": {"limits": {"cpu": 2}}}, {"spec": {"limits": {"cpu": 1}}})
    assert lowered_limits([created, other], NEW) == []
    (found,) = drift([_limit(1920, 960)], [], NEW)  # the limit is reported even with no NodePool previewed
    assert found[0] == "karpenter-limit"


# --- words ----------------------------------------------------------------------------------------------------------------------


def test_drift_in_words():
    figures = {"nodes": 10, "accelerators": 80, "nodes_per_wave": 2, "accelerators_per_wave": 16, "because": ["b", "a"], "budget": "20%"}
    assert karpenter_worded("karpenter-drift", figures, " across 2 NodePools") == (
        "Karpenter replaces drifted nodes across 2 NodePools (b; a): every node of the pool, up to 10 nodes (80 accelerators) at its "
        "limit, 2 at a time (16 accelerators), the NodePool's disruption budget (nodes: 20%)"
    )


def test_a_lowered_limit_in_words():
    figures = {"nodes": 5, "accelerators": 40, "cpu_before": 1920, "cpu_after": 960, "nodes_before": 10}
    assert karpenter_worded("karpenter-limit", figures, "") == (
        "NodePool limit lowered: cpu 1920 -> 960, 10 -> 5 nodes (40 accelerators) at the limit; Karpenter removes no running node for "
        "it, but launches none (new or a drift replacement) while the pool is at or over it, so up to 5 nodes may run above it until "
        "they go on their own"
    )


# --- resources and changes that leave fields out -------------------------------------------------------------------------


def test_a_node_pool_without_spec_or_labels_is_read_as_having_none():
    # Drifted by name: no template (so no label: its resource name is the pool), no limits (no nodes), the default budget.
    bare = resource("train", NODE_POOL, {"metadata": {"name": "train"}})
    (found,) = drift([_pool_change({"spec.template": "update"})], [bare], NEW)
    assert found == (
        "karpenter-drift",
        "pool train",
        {
            "nodes": 0,
            "accelerators": 0,
            "node_groups": 1,
            "nodes_per_wave": 0,
            "accelerators_per_wave": 0,
            "waves": 0,
            "because": ["NodePool spec.template"],
            "budget": "10%",
        },
    )


@pytest.mark.parametrize(
    "inputs",
    [{}, {"spec": {}}, {"spec": {"template": {}}}, {"spec": {"template": {"spec": {}}}}, {"spec": {"template": {"metadata": {}}}}],
)
def test_node_pools_missing_a_level_stand_beside_a_drifted_one(inputs):
    partial = resource("partial", NODE_POOL, inputs)
    (found,) = drift([_pool_change({"spec.template": "update"})], [partial, _node_pool()], NEW)
    assert (found[1], found[2]["nodes"]) == ("pool train", 10)


def test_a_change_whose_new_side_has_no_metadata_matches_no_pool():
    nameless = change("train-pool", NODE_POOL, "update", {}, {}, {"spec.template": "update"})
    assert drift([nameless], [_node_pool()], NEW) == []


def test_a_change_that_cannot_drift_does_not_stop_the_ones_after_it():
    items = [change("x", "aws:ec2/vpc:Vpc", "update", {}, {}, {"cidrBlock": "replace"}), _pool_change({"spec.template": "update"})]
    (found,) = drift(items, [_node_pool()], NEW)
    assert found[2]["because"] == ["NodePool spec.template"]


def test_a_percentage_budget_over_a_hundred_nodes_rounds_up_from_the_exact_share():
    # 101 nodes at 1%: 1.01 nodes, rounded up to 2.
    (found,) = drift([_pool_change({"spec.template": "update"})], [_node_pool(cpu=101 * 192, budgets=[{"nodes": "1%"}])], NEW)
    assert (found[2]["nodes"], found[2]["nodes_per_wave"], found[2]["waves"]) == (101, 2, 51)


def test_only_an_ec2_node_class_is_read_for_aliases_and_one_without_spec_or_metadata_has_none():
    lookalike = resource(
        "train-class",
        "kubernetes:core/v1:ConfigMap",
        {"metadata": {"name": "train-class"}, "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}]}},
    )
    bare_class = resource("bare", NODE_CLASS, {})
    assert drift([_upgrade()], [_node_pool(), lookalike, bare_class], NEW) == []


def test_each_lowered_limit_is_found_after_changes_that_are_not_one():
    items = [
        change("x", "aws:ec2/vpc:Vpc", "update", {}, {}, {"cidrBlock": "replace"}),
        _limit(1920, 1920),
        _limit(1920, 960),
    ]
    assert [(kind, subject, figures["nodes"]) for kind, subject, figures in lowered_limits(items, NEW)] == [("karpenter-limit", "pool train", 5)]
