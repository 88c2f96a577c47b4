"""GOV001-GOV005 on small built stacks: the ceilings at their limit and one past, what each counts and what it leaves
out, the schemas that follow the config, each message in full."""

from __future__ import annotations

from policies.resource_types import KARPENTER_NODE_POOL, LAUNCH_TEMPLATE, NODE_GROUP
from tests.policies.built import made, messages, report, violated

ROLE = "railyard.dev/role"


def group(name: str, types: list[str] | None, max_size: int | None = None, **inputs) -> object:
    scaling = {"scalingConfig": {"maxSize": max_size, "minSize": 0, "desiredSize": 0}} if max_size is not None else {}
    return made(NODE_GROUP, name, {**({"instanceTypes": types} if types else {}), **scaling, **inputs})


# GOV004: the stack's accelerators at max size against the ceiling


def ceiling(limit: int) -> dict:
    return {"accelerator-ceiling": {"maxAcceleratorsPerStack": limit}}


def test_gov004_exactly_at_the_ceiling_passes_and_one_node_past_it_fires():
    assert messages("GOV004", group("train", ["p5.48xlarge"], 2), config=ceiling(16)) == []
    assert violated("GOV004", group("train", ["p5.48xlarge"], 3), config=ceiling(16)) == [
        (None, "stack: node groups scale to 24 accelerators, over the ceiling of 16 (largest: train 24)")
    ]


def test_gov004_counts_a_group_by_its_largest_type_and_names_the_three_largest_groups():
    groups = [
        group("one", ["p5.48xlarge"], 1),
        group("mixed", ["g6e.xlarge", "p5.48xlarge"], 2),
        group("trn", ["trn2.48xlarge"], 125),
        group("cpu", ["m7i.xlarge", "x9.unknown"], 500),
        group("unsized", ["p5.48xlarge"]),
        group("four", ["p5.48xlarge"], 3),
    ]
    assert messages("GOV004", *groups, config=ceiling(1000)) == [
        "stack: node groups scale to 2,048 accelerators, over the ceiling of 1,000 (largest: trn 2,000, four 24, mixed 16)"
    ]


def test_gov004_a_group_of_types_without_accelerators_counts_nothing():
    assert messages("GOV004", group("cpu", ["m7i.xlarge"], 10_000), config=ceiling(0)) == []
    assert messages("GOV004", group("cpu", ["m7i.xlarge"], 10_000), group("gpu", ["g6e.xlarge"], 1), config=ceiling(0)) == [
        "stack: node groups scale to 1 accelerators, over the ceiling of 0 (largest: gpu 1)"
    ]


# GOV005: the stack's hourly cost at max size against the ceiling (us-east-1 rates: p5.48xlarge $55.04 On-Demand,
# $41.528 in a Capacity Block; m7i.xlarge $0.2016)


def cost(limit: float, region: str | None = None) -> dict:
    return {"cost-ceiling": {"maxHourlyCostPerStack": limit} | ({"pricingRegion": region} if region else {})}


def test_gov005_exactly_at_the_ceiling_passes_and_a_cent_under_it_fires():
    assert messages("GOV005", group("train", ["p5.48xlarge"], 2), config=cost(110.08)) == []
    assert violated("GOV005", group("train", ["p5.48xlarge"], 2), config=cost(110.07)) == [
        (None, "stack: node groups cost $110 per hour at max size in us-east-1, over the ceiling of $110 (largest: train $110/h)")
    ]


def test_gov005_prices_by_capacity_type_and_a_groups_dearest_type():
    groups = [
        group("block", ["p5.48xlarge"], 10, capacityType="CAPACITY_BLOCK"),
        group("mixed", ["m7i.xlarge", "p5.48xlarge"], 1),
        group("cpu", ["m7i.xlarge"], 5, capacityType="ON_DEMAND"),
        group("none", ["m7i.xlarge"]),
    ]
    # 415.28 + 55.04 + 1.008 = 471.328
    assert messages("GOV005", *groups, config=cost(400)) == [
        "stack: node groups cost $471 per hour at max size in us-east-1, over the ceiling of $400 (largest: block $415/h, mixed $55/h, cpu $1/h)"
    ]


def test_gov005_names_unpriced_groups_on_top_of_an_excess():
    groups = [group("train", ["p5.48xlarge"], 2), group("odd", ["x9.unknown", "p5.48xlarge"], 1), group("typeless", None, 1)]
    assert messages("GOV005", *groups, config=cost(100)) == [
        "stack: node groups cost $110 per hour at max size in us-east-1, over the ceiling of $100 (largest: train $110/h); "
        "2 node group(s) unpriced on top"
    ]


def test_gov005_cannot_hold_the_ceiling_under_it_while_a_group_is_unpriced():
    result = report("GOV005", group("train", ["p5.48xlarge"], 1), group("odd", ["x9.unknown"], 1), group("typeless", None, 1), config=cost(1000))
    assert result.violations == []
    assert [entry.message for entry in result.unverified] == [
        "can't run policy 'cost-ceiling' during preview: no us-east-1 price for node group(s) odd, typeless: the ceiling can't be held (docs/cost.md)"
    ]


def test_gov005_names_the_first_three_unpriced_groups():
    unpriced = [group(f"odd{n}", ["x9.unknown"], 1) for n in range(4)]
    assert [entry.message for entry in report("GOV005", *unpriced).unverified] == [
        "can't run policy 'cost-ceiling' during preview: no us-east-1 price for node group(s) odd0, odd1, odd2: "
        "the ceiling can't be held (docs/cost.md)"
    ]


def test_gov005_prices_in_the_one_region_the_stacks_aws_providers_name():
    west = made("pulumi:providers:aws", "west", {"region": "us-west-2"})
    east = made("pulumi:providers:aws", "east", {"region": "us-east-1"})
    nameless = made("pulumi:providers:aws", "default", {})
    # us-west-2 has no p5.48xlarge rate: the one region named decides.
    assert "no us-west-2 price for node group(s) train" in report("GOV005", west, nameless, group("train", ["p5.48xlarge"], 1)).unverified[0].message
    # Two regions named: the configured pricing region.
    assert messages("GOV005", west, east, group("train", ["p5.48xlarge"], 2), config=cost(100, "us-east-1"))[0].endswith(
        "in us-east-1, over the ceiling of $100 (largest: train $110/h)"
    )
    assert "no us-west-2 price" in report("GOV005", group("train", ["p5.48xlarge"], 1), config=cost(100, "us-west-2")).unverified[0].message


# GOV003, GOV001, GOV002: the schemas that follow the config


def test_gov003_every_required_tag_present_and_non_empty_as_a_string():
    tags = {"owner": "ml", "cost-center": "cc-1", "environment": "prod"}
    assert messages("GOV003", made(LAUNCH_TEMPLATE, "lt", {"tags": tags})) == []
    assert messages("GOV003", made(LAUNCH_TEMPLATE, "lt", {})) == ["LaunchTemplate 'lt': tags is not set"]
    assert messages("GOV003", made(LAUNCH_TEMPLATE, "lt", {"tags": {**tags, "owner": "", "environment": 3}})) == [
        "LaunchTemplate 'lt': tags.environment is 3, not of type string",
        "LaunchTemplate 'lt': tags.owner is empty",
    ]
    assert messages("GOV003", made(LAUNCH_TEMPLATE, "lt", {"tags": {"owner": "ml"}}), config={"required-tags": {"requiredTags": ["owner"]}}) == []


def test_gov001_the_allow_list_comes_from_the_config():
    config = {"instance-type-allowed": {"allowedInstanceTypes": ["m7i.xlarge"]}}
    assert messages("GOV001", group("cpu", ["m7i.xlarge"]), made(LAUNCH_TEMPLATE, "lt", {"instanceType": "m7i.xlarge"}), config=config) == []
    assert messages(
        "GOV001", group("gpu", ["m7i.xlarge", "p5.48xlarge"]), made(LAUNCH_TEMPLATE, "lt", {"instanceType": "p5.48xlarge"}), config=config
    ) == [
        "LaunchTemplate 'lt': instanceType is 'p5.48xlarge'; allowed: 'm7i.xlarge'",
        "NodeGroup 'gpu': instanceTypes has 'p5.48xlarge'; allowed: 'm7i.xlarge'",
    ]


def node_pool(role: str | None, capacity_types: list[str]) -> object:
    """A NodePool whose nodes carry `role` (None: no labels; "": no metadata at all)."""
    labels = {"labels": {ROLE: role}} if role else {}
    requirements = [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": capacity_types}]
    template = {"spec": {"requirements": requirements}} | ({"metadata": labels} if role != "" else {})
    return made(KARPENTER_NODE_POOL, "pool", {"spec": {"template": template}})


def test_gov002_a_spot_node_group_needs_an_allowed_role_label():
    assert messages("GOV002", group("dev", None, labels={ROLE: "dev"}, capacityType="SPOT")) == []
    assert messages("GOV002", group("train", None, labels={ROLE: "training"}, capacityType="SPOT")) == [
        "NodeGroup 'train': labels['railyard.dev/role'] is 'training'; allowed: 'dev'"
    ]
    assert messages("GOV002", group("bare", None, capacityType="SPOT")) == ["NodeGroup 'bare': labels is not set"]
    assert messages("GOV002", group("any", None, labels={}, capacityType="SPOT")) == ["NodeGroup 'any': labels['railyard.dev/role'] is not set"]
    result = report("GOV002", group("train", None, labels={ROLE: "training"}, capacityType="ON_DEMAND"))
    assert result.violations == [] and result.not_applicable == 1


def test_gov002_a_node_pool_that_may_launch_spot_needs_an_allowed_role_on_its_nodes():
    assert messages("GOV002", node_pool("dev", ["spot", "on-demand"])) == []
    assert messages("GOV002", node_pool("training", ["spot"])) == [
        "NodePool 'pool': spec.template.metadata.labels['railyard.dev/role'] is 'training'; allowed: 'dev'"
    ]
    assert messages("GOV002", node_pool(None, ["spot"])) == ["NodePool 'pool': spec.template.metadata.labels is not set"]
    assert messages("GOV002", node_pool("", ["spot"])) == ["NodePool 'pool': spec.template.metadata is not set"]
    no_role = node_pool(None, ["spot"])
    no_role.inputs["spec"]["template"]["metadata"] = {"labels": {"team": "ml"}}
    assert messages("GOV002", no_role) == ["NodePool 'pool': spec.template.metadata.labels['railyard.dev/role'] is not set"]
    config = {"spot-only-for-allowed-roles": {"spotAllowedRoles": ["training"]}}
    assert messages("GOV002", node_pool("training", ["spot"]), config=config) == []
    result = report("GOV002", node_pool("training", ["on-demand"]))
    assert result.violations == [] and result.not_applicable == 1
