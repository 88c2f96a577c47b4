"""Node-group plans: one per pool and failure domain, with the labels contract (no Pulumi)."""

import pytest

from blueprints.catalog import load_catalog
from components.plan.compile import plan_blueprint
from railyard.pipeline import validate
from topology.cluster.labels import DOMAIN_LABEL, NEURON_TAINT_KEY, NVIDIA_TAINT_KEY, POOL_LABEL, node_labels
from topology.cluster.pool_facts import bounded_name, split_evenly

CATALOG = load_catalog()
EXAMPLES = "blueprints/examples"


def plan(example, stack=None):
    validation = validate(f"{EXAMPLES}/{example}.yaml" if example else None, stack)
    assert validation.ok, validation.findings
    return plan_blueprint(validation.blueprint, CATALOG)


def groups(compile_plan):
    return {group.name: group for group in compile_plan.node_groups}


@pytest.mark.parametrize(("total", "parts", "shares"), [(5, 2, [3, 2]), (4, 2, [2, 2]), (1, 2, [1, 0]), (0, 3, [0, 0, 0]), (16384, 1, [16384])])
def test_split_evenly(total, parts, shares):
    assert split_evenly(total, parts) == shares


def test_bounded_name_keeps_short_names_and_hashes_long_ones():
    assert bounded_name("train-use1a") == "train-use1a"
    long = bounded_name("a" * 40 + "-" + "b" * 40)
    assert len(long) == 63 and long == bounded_name("a" * 40 + "-" + "b" * 40)


def test_p5_capacity_block_pool_has_one_group_with_the_block():
    group = groups(plan("p5-capacity-block"))["train-use1a"]
    assert (group.capacity_type, group.market_type, group.reservation_id) == ("CAPACITY_BLOCK", "capacity-block", "cr-0a1b2c3d4e5f60718")
    # Planned with no clock, as if the block runs: desired 64, but the minimum is 0 (EKS scales it down before the end).
    assert (group.min_size, group.desired_size, group.max_size) == (0, 64, 64)
    assert (group.efa_interfaces, group.subnet_keys, group.update_strategy) == (32, ("efa-ultra-use1a",), "MINIMAL")


def test_inference_pool_over_two_zones_splits_its_range_per_zone():
    found = groups(plan("heterogeneous"))
    serve = [found["serve-use2a-inf"], found["serve-use2b-inf"]]
    assert [(g.min_size, g.desired_size, g.max_size) for g in serve] == [(2, 4, 8), (2, 4, 8)]
    assert [g.subnet_keys for g in serve] == [("private-us-east-2a",), ("private-us-east-2b",)]
    assert {g.efa_interfaces for g in serve} == {0}


@pytest.mark.parametrize(
    ("example", "group", "ami", "taint"),
    [
        ("p5-capacity-block", "train-use1a", "AL2023_x86_64_NVIDIA", NVIDIA_TAINT_KEY),
        ("heterogeneous", "h200-use2a-gpu", "AL2023_x86_64_NVIDIA", NVIDIA_TAINT_KEY),
        ("heterogeneous", "trainium-use2b-trn", "AL2023_x86_64_NEURON", NEURON_TAINT_KEY),
        ("heterogeneous", "serve-use2a-inf", "AL2023_x86_64_NEURON", NEURON_TAINT_KEY),
        ("dev-g6e", "dev-usw2a", "AL2023_x86_64_NVIDIA", NVIDIA_TAINT_KEY),
        ("rail-131k", "frontier-b01", "AL2023_x86_64_NVIDIA", NVIDIA_TAINT_KEY),
    ],
)
def test_ami_type_and_taint_follow_the_accelerator(example, group, ami, taint):
    found = groups(plan(example))[group]
    assert found.ami_type == ami
    assert found.taints[0].key == taint and found.taints[0].eks_effect == "NO_SCHEDULE"


def test_labels_are_the_labels_contract():
    compile_plan = plan("heterogeneous")
    validation = validate(f"{EXAMPLES}/heterogeneous.yaml")
    trainium = next(p for p in validation.blueprint.pools if p.name == "trainium")
    group = groups(compile_plan)["trainium-use2b-trn"]
    assert group.labels == node_labels(trainium, CATALOG.get("trn2.48xlarge"), "use2b-trn", True)
    assert (group.labels[POOL_LABEL], group.labels[DOMAIN_LABEL]) == ("trainium", "use2b-trn")


def test_the_system_group_spans_every_zone_untainted():
    system = plan("p5-capacity-block").node_groups[0]
    assert system.system and system.taints == () and system.efa_interfaces == 0
    assert system.subnet_keys == ("private-us-east-1a", "private-us-east-1b")


def test_a_pool_over_the_node_group_quota_splits_along_its_blocks():
    # rail-131k declares 1,024 nodes per group: one group per block of 1,024 hosts, plus the system group.
    found = plan("rail-131k").node_groups
    # With custom networking the system group is one group per zone (each zone's pods have their own subnet).
    assert [group.name for group in found] == ["system-us-east-1a", "system-us-east-1b"] + [f"frontier-b{index:02d}" for index in range(1, 17)]
    assert {(group.domain, group.max_size) for group in found[2:]} == {(f"b{index:02d}", 1024) for index in range(1, 17)}


def test_dev_stack_is_two_on_demand_nodes_with_raid0():
    group = groups(plan(None, "dev"))["train-use1a"]
    assert (group.capacity_type, group.market_type, group.reservation_id) == ("ON_DEMAND", None, None)
    assert (group.min_size, group.max_size, group.raid0) == (2, 2, True)


def test_nodes_without_instance_store_get_no_raid0():
    assert groups(plan("heterogeneous"))["serve-use2a-inf"].raid0 is False
