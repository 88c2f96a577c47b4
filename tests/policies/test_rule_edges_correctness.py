"""COR001-COR008 on small built stacks: each condition of each rule on its own, each count at its threshold and one past.

The preview cases of `test_rules.py` show the rules on what the compiler emits; here each half of an `and`/`or`, each
default a rule assumes for a missing prop, and each loop that must go on past a skipped resource has a case of its own,
with the exact message (the rule's `. Fix:` ending checked by `built.messages`).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from pulumi.output import Unknown

from policies.facts import AcceleratorFacts, InstanceFacts
from policies.registry import rule
from policies.resource_types import (
    EGRESS_RULE,
    INGRESS_RULE,
    LAUNCH_TEMPLATE,
    LUSTRE,
    NODE_GROUP,
    SECURITY_GROUP,
    SECURITY_GROUP_RULE,
    SUBNET,
)
from policies.rule import NotApplicable
from policies.rules.correctness.ami_type_matches_accelerator import allowed_ami_types
from tests.policies.built import made, messages, report, urn, violated

P5_NEEDS = "AL2023_x86_64_NVIDIA, BOTTLEROCKET_x86_64_NVIDIA, BOTTLEROCKET_x86_64_NVIDIA_FIPS"
POOL = "railyard.dev/pool"
EFA = "railyard.dev/efa"


def group(name: str, **inputs) -> object:
    return made(NODE_GROUP, name, inputs)


# COR005: a node group's AMI type carries its accelerator's driver


def test_cor005_passes_the_catalog_ami_type_and_its_bottlerocket_twins():
    for ami in ("AL2023_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA_FIPS"):
        assert messages("COR005", group("train", instanceTypes=["p5.48xlarge"], amiType=ami)) == [], ami
    assert messages("COR005", group("trn", instanceTypes=["trn2.48xlarge"], amiType="BOTTLEROCKET_x86_64_FIPS")) == []


def test_cor005_names_a_missing_ami_type_as_the_eks_default():
    assert messages("COR005", group("train", instanceTypes=["p5.48xlarge"])) == [
        f"NodeGroup 'train': runs p5.48xlarge (8x H100) with no amiType (EKS defaults to a standard AMI); it needs one of {P5_NEEDS}"
    ]


def test_cor005_checks_every_accelerated_type_past_one_it_does_not_know():
    found = messages("COR005", group("mixed", instanceTypes=["x9.unknown", "trn2.48xlarge", "p5.48xlarge"], amiType="AL2023_x86_64_NEURON"))
    assert found == [f"NodeGroup 'mixed': runs p5.48xlarge (8x H100) with amiType AL2023_x86_64_NEURON; it needs one of {P5_NEEDS}"]


def test_cor005_leaves_custom_amis_and_launch_templates_with_an_image_alone_but_not_the_groups_after_them():
    custom = group("custom", instanceTypes=["p5.48xlarge"], amiType="CUSTOM")
    imaged = group("imaged", instanceTypes=["p5.48xlarge"], amiType="AL2023_x86_64_STANDARD", launchTemplate={"id": "lt-1", "version": "1"})
    template = made(LAUNCH_TEMPLATE, "imaged-lt", {"imageId": "ami-0123456789abcdef0"}, id="lt-1")
    plain = group("plain", instanceTypes=["p5.48xlarge"], amiType="AL2023_x86_64_STANDARD", launchTemplate={"id": "lt-2", "version": "1"})
    imageless = made(LAUNCH_TEMPLATE, "plain-lt", {"instanceType": "p5.48xlarge"}, id="lt-2")
    assert messages("COR005", custom, imaged, template, plain, imageless) == [
        f"NodeGroup 'plain': runs p5.48xlarge (8x H100) with amiType AL2023_x86_64_STANDARD; it needs one of {P5_NEEDS}"
    ]


def test_cor005_an_ami_type_without_bottlerocket_twins_allows_only_itself():
    # Every accelerated type of today's catalog has twins; a type from a newer catalog may not.
    spec = InstanceFacts("x9.48xlarge", "AL2023_x86_64_STANDARD", AcceleratorFacts(1, "X9"), False, 0, ())
    assert allowed_ami_types(spec) == ("AL2023_x86_64_STANDARD",)
    assert allowed_ami_types(replace(spec, ami_type="AL2023_ARM_64_NVIDIA")) == (
        "AL2023_ARM_64_NVIDIA",
        "BOTTLEROCKET_ARM_64_NVIDIA",
        "BOTTLEROCKET_ARM_64_NVIDIA_FIPS",
    )


# COR002: an EFA node group has one subnet, shared by its pool


def efa_group(name: str, subnets: list[str] | None, pool: str | None = None, efa: str = "true") -> object:
    labels = {EFA: efa} | ({POOL: pool} if pool else {})
    return group(name, labels=labels, **({"subnetIds": subnets} if subnets is not None else {}))


def test_cor002_counts_subnets_and_names_them_by_resource_or_by_id():
    subnet_a = made(SUBNET, "net-a", {"availabilityZone": "us-east-1a"}, id="subnet-a")
    subnet_b = made(SUBNET, "net-b", {"availabilityZone": "us-east-1b"}, id="subnet-b")
    assert violated(
        "COR002", efa_group("two", ["subnet-a", "subnet-b"]), efa_group("none", None), efa_group("ids", ["subnet-x", "subnet-y"]), subnet_a, subnet_b
    ) == [
        (urn(NODE_GROUP, "ids"), "NodeGroup 'ids': is an EFA node group in 2 subnets ['subnet-x', 'subnet-y']"),
        (urn(NODE_GROUP, "none"), "NodeGroup 'none': is an EFA node group in 0 subnets []"),
        (urn(NODE_GROUP, "two"), "NodeGroup 'two': is an EFA node group in 2 subnets ['net-a', 'net-b']"),
    ]


def test_cor002_lets_a_group_without_efa_span_subnets_and_goes_on_to_the_next():
    assert messages("COR002", efa_group("web", ["subnet-a", "subnet-b"], efa="false"), efa_group("train", ["subnet-a", "subnet-b"])) == [
        "NodeGroup 'train': is an EFA node group in 2 subnets ['subnet-a', 'subnet-b']"
    ]


def test_cor002_holds_each_group_of_a_pool_to_its_first_groups_subnet():
    groups = [efa_group("b1", ["subnet-a"], "train"), efa_group("b2", ["subnet-a"], "train"), efa_group("b3", ["subnet-c"], "train")]
    assert messages("COR002", *groups) == ["NodeGroup 'b3': uses subnet subnet-c, but node group 'b1' of the same pool 'train' uses subnet-a"]


def test_cor002_lets_different_pools_and_unlabelled_groups_use_different_subnets():
    assert messages("COR002", efa_group("a", ["subnet-a"], "train"), efa_group("b", ["subnet-b"], "eval")) == []
    assert messages("COR002", efa_group("a", ["subnet-a"]), efa_group("b", ["subnet-b"])) == []


# COR006: a file system sits in the zone of the node groups that mount it


def lustre(name: str, mounted_by: str | None, subnets: list[str]) -> object:
    tags = {"railyard:mounted-by": mounted_by} if mounted_by is not None else {}
    return made(LUSTRE, name, {"subnetIds": subnets, "tags": tags})


def zone_subnets() -> list:
    return [made(SUBNET, f"net-{zone}", {"availabilityZone": f"us-east-1{zone}"}, id=f"subnet-{zone}") for zone in "abc"]


def pool_group(name: str, pool: str, subnets: list[str]) -> object:
    return group(name, labels={POOL: pool}, subnetIds=subnets)


def test_cor006_skips_untagged_file_systems_and_goes_on_to_the_next():
    found = messages(
        "COR006", lustre("quiet", None, ["subnet-a"]), lustre("blank", "  ", ["subnet-a"]), lustre("fs", "train", ["subnet-a"]), *zone_subnets()
    )
    assert found == ["LustreFileSystem 'fs': railyard:mounted-by names pool 'train', but no node group has railyard.dev/pool=train"]


def test_cor006_a_file_system_without_tags_is_left_alone():
    assert messages("COR006", made(LUSTRE, "bare", {"subnetIds": ["subnet-a"]}), *zone_subnets()) == []


def test_cor006_needs_exactly_one_zone_among_the_stacks_subnets():
    assert messages("COR006", lustre("outside", "train", ["subnet-z"]), lustre("split", "train", ["subnet-a", "subnet-b"]), *zone_subnets()) == [
        "LustreFileSystem 'outside': its subnetIds resolve to 0 zone(s) among this stack's subnets, not 1",
        "LustreFileSystem 'split': its subnetIds resolve to 2 zone(s) among this stack's subnets, not 1",
    ]


def test_cor006_names_each_other_zone_of_each_client_group():
    stack = [
        lustre("fs", "train eval", ["subnet-a"]),
        pool_group("train-a", "train", ["subnet-a"]),
        pool_group("train-bc", "train", ["subnet-c", "subnet-a", "subnet-b"]),
        pool_group("eval-a", "eval", ["subnet-a"]),
        *zone_subnets(),
    ]
    assert messages("COR006", *stack) == [
        "LustreFileSystem 'fs': is in us-east-1a, but node group 'train-bc' of pool 'train', which mounts it, runs in us-east-1b, us-east-1c"
    ]


def test_cor006_reports_a_missing_pool_and_still_checks_the_pools_after_it():
    stack = [lustre("fs", "gone train", ["subnet-a"]), pool_group("train-b", "train", ["subnet-b"]), *zone_subnets()]
    assert messages("COR006", *stack) == [
        "LustreFileSystem 'fs': railyard:mounted-by names pool 'gone', but no node group has railyard.dev/pool=gone",
        "LustreFileSystem 'fs': is in us-east-1a, but node group 'train-b' of pool 'train', which mounts it, runs in us-east-1b",
    ]


# COR007: FSx throughput covers the demand of its pools


def demanding(demand: str | None, **inputs) -> object:
    tags = {"railyard:demand-mbps": demand} if demand is not None else {}
    return made(LUSTRE, "fs", {**inputs, "tags": tags})


def test_cor007_does_not_apply_without_a_declared_demand():
    result = report("COR007", demanding(None, storageCapacity=1200, deploymentType="SCRATCH_2"))
    assert result.violations == [] and result.not_applicable == 1
    untagged = report("COR007", made(LUSTRE, "fs", {"storageCapacity": 1200}))
    assert untagged.violations == [] and untagged.not_applicable == 1
    # The reason is what `pulumi preview` shows for a policy that did not apply.
    with pytest.raises(NotApplicable, match=r"^the file system declares no demand \(no railyard:demand-mbps tag\)$"):
        rule("COR007").problems(LUSTRE, {"tags": {}}, {})


def test_cor007_passes_exactly_at_the_demand_and_fires_one_past_it():
    assert messages("COR007", demanding("250", storageCapacity=1024, perUnitStorageThroughput=250, deploymentType="PERSISTENT_2")) == []
    assert messages("COR007", demanding("251", storageCapacity=1024, perUnitStorageThroughput=250, deploymentType="PERSISTENT_2")) == [
        "LustreFileSystem 'fs': delivers 250 MB/s (1024 GiB x 250 MB/s/TiB), below the 251 MB/s its pools declare; "
        "at 250 MB/s/TiB that takes 2400 GiB"
    ]


def test_cor007_rounds_the_size_it_takes_up_to_whole_capacity_steps():
    # 1,000 MB/s at 200 MB/s/TiB is 5 TiB = 5,120 GiB: three 2,400 GiB steps.
    assert messages("COR007", demanding("1000", storageCapacity=1200, deploymentType="SCRATCH_2")) == [
        "LustreFileSystem 'fs': delivers 234 MB/s (1200 GiB x 200 MB/s/TiB), below the 1,000 MB/s its pools declare; "
        "at 200 MB/s/TiB that takes 7200 GiB"
    ]
    # Exactly 2 steps: 937.5 MB/s at 200 MB/s/TiB is 4,800 GiB.
    assert messages("COR007", demanding("937.5", storageCapacity=1200, deploymentType="SCRATCH_1"))[0].endswith("that takes 4800 GiB")


def test_cor007_reads_a_missing_deployment_type_as_scratch_1_and_a_persistent_one_without_throughput_as_zero():
    assert messages("COR007", demanding("300", storageCapacity=1200)) == [
        "LustreFileSystem 'fs': delivers 234 MB/s (1200 GiB x 200 MB/s/TiB), below the 300 MB/s its pools declare; "
        "at 200 MB/s/TiB that takes 2400 GiB"
    ]
    assert messages("COR007", demanding("1", storageCapacity=1200, deploymentType="PERSISTENT_2")) == [
        "LustreFileSystem 'fs': delivers 0 MB/s (1200 GiB x 0 MB/s/TiB), below the 1 MB/s its pools declare"
    ]
    assert messages("COR007", demanding("1", deploymentType="SCRATCH_2")) == [
        "LustreFileSystem 'fs': delivers 0 MB/s (0 GiB x 200 MB/s/TiB), below the 1 MB/s its pools declare; at 200 MB/s/TiB that takes 2400 GiB"
    ]


def test_cor007_prefers_the_stated_throughput_over_scratchs_baseline():
    assert messages("COR007", demanding("1000", storageCapacity=2048, perUnitStorageThroughput=500, deploymentType="SCRATCH_2")) == []


# COR001: each EFA interface has a security group that lets all traffic flow between its members


def template(*interfaces: dict, name: str = "lt") -> object:
    return made(LAUNCH_TEMPLATE, name, {"networkInterfaces": list(interfaces)})


def efa_on(card: int, *groups: str, kind: str = "efa-only") -> dict:
    return {"networkCardIndex": card, "deviceIndex": 0, "interfaceType": kind, "securityGroups": list(groups)}


def security_group(name: str, id: str, ingress: list | None = None, egress: list | None = None) -> object:
    return made(SECURITY_GROUP, name, {"ingress": ingress or [], "egress": egress or []}, id=id)


SELF_ALL = {"self": True, "protocol": "-1"}


def cor001(*resources) -> list[str]:
    return messages("COR001", *resources)


def test_cor001_passes_a_group_that_talks_to_itself_both_ways_inline():
    assert cor001(template(efa_on(0, "sg-1")), security_group("efa", "sg-1", [SELF_ALL], [{"self": True, "protocol": "all"}])) == []


def test_cor001_names_the_missing_direction_and_the_cards_as_ranges():
    lt = template(*(efa_on(card, "sg-1") for card in (0, 1, 2, 5)), {"networkCardIndex": 3, "interfaceType": "interface", "securityGroups": []})
    assert cor001(lt, security_group("efa", "sg-1", [SELF_ALL])) == [
        "LaunchTemplate 'lt': the EFA interfaces on card(s) 0-2, 5 have security group(s) efa, none of which allows all traffic "
        "from and to itself (missing: egress)"
    ]
    assert cor001(lt, security_group("efa", "sg-1", egress=[SELF_ALL]))[0].endswith("(missing: ingress)")


def test_cor001_counts_only_all_traffic_to_the_group_itself():
    narrow = security_group("efa", "sg-1", [{"self": True, "protocol": "tcp"}], [{"self": False, "protocol": "-1"}])
    assert cor001(template(efa_on(0, "sg-1")), narrow) == [
        "LaunchTemplate 'lt': the EFA interfaces on card(s) 0 have security group(s) efa, none of which allows all traffic "
        "from and to itself (missing: egress and ingress)"
    ]


def test_cor001_two_groups_each_open_one_way_are_not_enough():
    found = cor001(template(efa_on(0, "sg-1", "sg-2")), security_group("in", "sg-1", [SELF_ALL]), security_group("out", "sg-2", egress=[SELF_ALL]))
    assert found == [
        "LaunchTemplate 'lt': the EFA interfaces on card(s) 0 have security group(s) in, out, none of which allows all traffic "
        "from and to itself (missing: both in one group)"
    ]


def test_cor001_an_interface_with_no_group_of_this_stack():
    assert cor001(template(efa_on(0, "sg-elsewhere"), efa_on(1, "sg-1")), security_group("efa", "sg-1", [SELF_ALL], [SELF_ALL])) == [
        "LaunchTemplate 'lt': the EFA interfaces on card(s) 0 have no security group from this stack"
    ]


def test_cor001_reads_standalone_ingress_and_egress_rules_that_name_the_group_twice():
    own = security_group("efa", "sg-1")
    ingress = made(INGRESS_RULE, "in", {"securityGroupId": "sg-1", "referencedSecurityGroupId": "sg-1", "ipProtocol": "-1"})
    egress = made(EGRESS_RULE, "out", {"securityGroupId": "sg-1", "referencedSecurityGroupId": "sg-1", "ipProtocol": "-1"})
    assert cor001(template(efa_on(0, "sg-1")), own, ingress, egress) == []
    other = security_group("other", "sg-2")
    elsewhere = made(EGRESS_RULE, "out", {"securityGroupId": "sg-1", "referencedSecurityGroupId": "sg-2", "ipProtocol": "-1"})
    tcp = made(EGRESS_RULE, "tcp", {"securityGroupId": "sg-1", "referencedSecurityGroupId": "sg-1", "ipProtocol": "tcp"})
    foreign = made(EGRESS_RULE, "theirs", {"securityGroupId": "sg-2", "referencedSecurityGroupId": "sg-1", "ipProtocol": "-1"})
    assert cor001(template(efa_on(0, "sg-1")), own, other, ingress, elsewhere, tcp, foreign)[0].endswith("(missing: egress)")


def test_cor001_reads_security_group_rules_by_self_or_by_source_group():
    own = security_group("efa", "sg-1")
    by_self = made(SECURITY_GROUP_RULE, "in", {"type": "ingress", "securityGroupId": "sg-1", "self": True, "protocol": "-1"})
    by_source = made(SECURITY_GROUP_RULE, "out", {"type": "egress", "securityGroupId": "sg-1", "sourceSecurityGroupId": "sg-1", "protocol": "all"})
    assert cor001(template(efa_on(0, "sg-1")), own, by_self, by_source) == []
    tcp = made(SECURITY_GROUP_RULE, "out", {"type": "egress", "securityGroupId": "sg-1", "self": True, "protocol": "tcp"})
    assert cor001(template(efa_on(0, "sg-1")), own, by_self, tcp)[0].endswith("(missing: egress)")
    theirs = made(SECURITY_GROUP_RULE, "out", {"type": "egress", "securityGroupId": "sg-2", "self": True, "protocol": "-1"})
    assert cor001(template(efa_on(0, "sg-1")), own, security_group("other", "sg-2"), by_self, theirs)[0].endswith("(missing: egress)")


def test_cor001_reads_a_missing_card_index_as_card_0_and_judges_every_template():
    lt_ok = template(efa_on(0, "sg-1"), name="ok")
    bare = {"interfaceType": "efa", "securityGroups": ["sg-2"]}
    lt_bad = template(bare, name="bad")
    found = cor001(lt_ok, lt_bad, security_group("efa", "sg-1", [SELF_ALL], [SELF_ALL]), security_group("open", "sg-2", [SELF_ALL]))
    assert found == [
        "LaunchTemplate 'bad': the EFA interfaces on card(s) 0 have security group(s) open, none of which allows all traffic "
        "from and to itself (missing: egress)"
    ]


# COR003: launch-template EFA interfaces match the instance type's network cards


def interface(card: int, device: int = 0, kind: str = "efa-only") -> dict:
    return {"networkCardIndex": card, "deviceIndex": device, "interfaceType": kind}


def p5_layout() -> list[dict]:
    return [interface(0, 0, "efa"), *(interface(card) for card in range(1, 32))]


def cor003(*resources) -> list[str]:
    return messages("COR003", *resources)


def laid_out(interfaces: list[dict], instance_type: str | None = "p5.48xlarge", name: str = "lt", id: str = "") -> object:
    inputs = {"networkInterfaces": interfaces} | ({"instanceType": instance_type} if instance_type else {})
    return made(LAUNCH_TEMPLATE, name, inputs, id=id)


def test_cor003_passes_a_full_layout_of_32_efa_interfaces():
    assert cor003(laid_out(p5_layout())) == []


def test_cor003_skips_templates_without_efa_and_goes_on_to_the_next():
    assert cor003(laid_out([interface(0, 0, "interface")], name="plain"), laid_out(p5_layout()[:-1])) == [
        "LaunchTemplate 'lt': p5.48xlarge: no EFA on card(s) [31]: nodes would use 31 of 32 EFA devices"
    ]


def test_cor003_one_efa_past_the_maximum_on_a_card_already_used():
    assert cor003(laid_out([*p5_layout(), interface(31, 1)])) == [
        "LaunchTemplate 'lt': p5.48xlarge: more than one EFA on card(s) [31]",
        "LaunchTemplate 'lt': p5.48xlarge: 33 EFA interfaces; p5.48xlarge allows 32",
    ]


def test_cor003_an_instance_type_without_efa():
    assert cor003(laid_out([interface(0, 0, "efa"), interface(0, 1)], "g6e.xlarge")) == [
        "LaunchTemplate 'lt': g6e.xlarge: g6e.xlarge does not support EFA, but 2 interface(s) are EFA"
    ]


def test_cor003_reads_missing_indices_as_0_and_a_missing_type_as_a_plain_interface():
    # g6e.12xlarge: one EFA, on card 0. A bare interface is the primary (card 0, device 0) of type interface.
    assert cor003(laid_out([{}, interface(0, 1)], "g6e.12xlarge")) == []
    assert cor003(laid_out([{"interfaceType": "efa"}], "g6e.12xlarge")) == []
    assert cor003(laid_out([{"interfaceType": "efa-only"}], "g6e.12xlarge")) == [
        "LaunchTemplate 'lt': g6e.12xlarge: the primary interface (card 0, device 0) is missing or efa-only"
    ]


def test_cor003_a_missing_primary_and_a_repeated_pair():
    assert cor003(laid_out([interface(0, 1)], "g6e.12xlarge")) == [
        "LaunchTemplate 'lt': g6e.12xlarge: the primary interface (card 0, device 0) is missing or efa-only"
    ]
    assert cor003(laid_out([interface(0, 0, "interface"), interface(0, 0, "interface"), interface(0, 1)], "g6e.12xlarge")) == [
        "LaunchTemplate 'lt': g6e.12xlarge: the primary interface (card 0, device 0) is missing or efa-only",
        "LaunchTemplate 'lt': g6e.12xlarge: (card, device) pairs repeat: [(0, 0)]",
    ]


def test_cor003_two_efas_on_g6e_12xlarges_one_efa_card():
    assert cor003(laid_out([interface(0, 0, "efa"), interface(0, 1)], "g6e.12xlarge")) == [
        "LaunchTemplate 'lt': g6e.12xlarge: more than one EFA on card(s) [0]",
        "LaunchTemplate 'lt': g6e.12xlarge: 2 EFA interfaces; g6e.12xlarge allows 1",
    ]


def test_cor003_an_efa_off_the_capable_cards_names_them():
    assert cor003(laid_out([interface(0, 0, "interface"), interface(0, 1), interface(1, 0)], "g6e.12xlarge")) == [
        "LaunchTemplate 'lt': g6e.12xlarge: EFA on card(s) [1], which carry no EFA on g6e.12xlarge (EFA cards: [0])",
        "LaunchTemplate 'lt': g6e.12xlarge: 2 EFA interfaces; g6e.12xlarge allows 1",
    ]


def test_cor003_takes_the_types_from_the_node_groups_when_the_template_names_none():
    lt = laid_out(p5_layout()[:-1], None, id="lt-1")
    groups = [
        group(f"g{n}", launchTemplate={"id": "lt-1"}, instanceTypes=types) for n, types in enumerate((["a9.unknown", "p5.48xlarge"], ["p5.48xlarge"]))
    ]
    # The types in name order: the unknown one first, and the known one after it still judged.
    assert cor003(lt, *groups) == [
        "LaunchTemplate 'lt': instance type a9.unknown is not in railyard's catalog, so its EFA cards are unknown",
        "LaunchTemplate 'lt': p5.48xlarge: no EFA on card(s) [31]: nodes would use 31 of 32 EFA devices",
    ]


def test_cor003_a_template_no_one_names_a_type_for():
    assert cor003(laid_out(p5_layout(), None)) == ["LaunchTemplate 'lt': has EFA interfaces but neither it nor a node group names the instance type"]


def test_cor001_follows_the_templates_dependencies_while_the_group_ids_are_unknown():
    # A first preview: the interface's security group id is not known yet, but the engine records that the template's
    # networkInterfaces depend on the group.
    first_preview = {"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "efa", "securityGroups": [Unknown()]}
    lt = made(LAUNCH_TEMPLATE, "lt", {"networkInterfaces": [first_preview]}, networkInterfaces=[urn(SECURITY_GROUP, "efa")])
    assert cor001(lt, made(SECURITY_GROUP, "efa", {"ingress": [SELF_ALL], "egress": [SELF_ALL]})) == []
    assert cor001(lt, made(SECURITY_GROUP, "efa", {"ingress": [SELF_ALL]})) == [
        "LaunchTemplate 'lt': the EFA interfaces on card(s) 0 have security group(s) efa, none of which allows all traffic "
        "from and to itself (missing: egress)"
    ]
