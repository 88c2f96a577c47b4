"""Every rule fires on a broken resource and stays quiet on a sound one, on mocked-preview resources.

Each case starts from the mocked preview of a real blueprint (the examples,
`insecure.yaml`, or a fixture under `fixtures/`) and, where the compiler never
emits the fault, breaks a deep copy of one resource's inputs - so every rule is
proven against exactly the property names and shapes the compiler emits.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

import pytest

from policies.registry import RULES, rule
from policies.resource_types import (
    BUCKET,
    CLUSTER,
    IAM_ROLE,
    INGRESS_RULE,
    LAUNCH_TEMPLATE,
    LUSTRE,
    NODE_GROUP,
    PUBLIC_ACCESS_BLOCK,
    SECURITY_GROUP,
)
from policies.rule import describe
from policies.runner import run_policies
from tests.policies.benchmark_cases import BENCHMARK_CASES
from tests.policies.cases import Case
from tests.policies.previews import Preview, deleter, edit, example, preview, setter, without

FIXTURES = "tests/policies/fixtures"
ADMIN = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
SCOPED = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": "arn:aws:s3:::data/*"}]})


def p5() -> Preview:
    return example("p5-capacity-block")


def hetero() -> Preview:
    return example("heterogeneous")


def insecure() -> Preview:
    return example("insecure")


def on_interface(index: int, **values) -> Callable[[dict], None]:
    """A change to one network interface of a launch template."""
    return lambda inputs: inputs["networkInterfaces"][index].update(values)


def drop_volume_key(inputs: dict) -> None:
    del inputs["blockDeviceMappings"][0]["ebs"]["kmsKeyId"]


def drop_last_efa(inputs: dict) -> None:
    inputs["networkInterfaces"].pop()


def efa_on_missing_card(inputs: dict) -> None:
    inputs["networkInterfaces"][-1]["networkCardIndex"] = 40


def second_efa_on_card_one(inputs: dict) -> None:
    inputs["networkInterfaces"][3]["networkCardIndex"] = 1


def gb200() -> Preview:
    return example("p6e-gb200-nvl72")


def gb200_efa_on_card_three_not_five(inputs: dict) -> None:
    # Card 3 is the first GPU's other card: a layout that gives the second GPU no EFA.
    next(item for item in inputs["networkInterfaces"] if item["networkCardIndex"] == 5)["networkCardIndex"] = 3


def gb200_efa_on_card_zero(inputs: dict) -> None:
    inputs["networkInterfaces"].append({**inputs["networkInterfaces"][1], "networkCardIndex": 0, "deviceIndex": 1})


def open_sg_to_world(inputs: dict) -> None:
    inputs["ingress"].append({"protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["10.0.0.0/8", "0.0.0.0/0"]})


def ingress_rule_from_anywhere_v6(inputs: dict) -> None:
    del inputs["referencedSecurityGroupId"]
    inputs["cidrIpv6"] = "::/0"


def admin_inline_policy(inputs: dict) -> None:
    inputs["inlinePolicies"] = [{"name": "everything", "policy": ADMIN}]


def scoped_inline_policy(inputs: dict) -> None:
    inputs["inlinePolicies"] = [{"name": "read-data", "policy": SCOPED}]


def second_subnet(inputs: dict) -> None:
    inputs["subnetIds"] = inputs["subnetIds"] + ["subnet-0000000000000000b"]


def _renamed_role(base: Preview, logical: str) -> Preview:
    """The preview with the node role's logical name replaced, as if a longer cluster name had produced it."""
    resources = [replace(item, name=logical) if item.type == IAM_ROLE and item.name.endswith("node-role") else item for item in base.resources]
    return replace(base, resources=resources)


def tagged(key: str, new: str) -> Callable[[dict], None]:
    return setter(f"tags.{key}", new)


CASES = [
    # SEC001 IMDSv2
    Case("SEC001", "passes-compiled-templates", p5, False),
    Case(
        "SEC001",
        "fires-on-optional-tokens",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "train-use1a", setter("metadataOptions.httpTokens", "optional")),
        True,
        "metadataOptions.httpTokens is 'optional'; allowed: 'required'",
    ),
    Case(
        "SEC001",
        "fires-without-metadata-options",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "system", deleter("metadataOptions")),
        True,
        "metadataOptions is not set",
    ),
    # SEC002 EBS + KMS
    Case("SEC002", "passes-root-volume-with-a-customer-key", p5, False),
    Case(
        "SEC002",
        "fires-without-a-customer-key",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "train-use1a", drop_volume_key),
        True,
        "blockDeviceMappings[0].ebs.kmsKeyId is not set",
    ),
    Case(
        "SEC002",
        "fires-on-unencrypted-root-volume",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "train-use1a", lambda inputs: inputs["blockDeviceMappings"][0]["ebs"].update(encrypted="false")),
        True,
        "blockDeviceMappings[0].ebs.encrypted is 'false'",
    ),
    Case(
        "SEC002",
        "fires-without-a-root-volume-mapping",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "system", deleter("blockDeviceMappings")),
        True,
        "blockDeviceMappings is not set",
    ),
    # SEC003 FSx + KMS
    Case("SEC003", "passes-persistent-with-key", p5, False),
    Case("SEC003", "fires-on-scratch", insecure, True, "deploymentType is 'SCRATCH_2'"),
    Case("SEC003", "fires-without-key", lambda: edit(p5(), LUSTRE, "lustre", deleter("kmsKeyId")), True, "kmsKeyId is not set"),
    # SEC004 ingress from anywhere
    Case("SEC004", "passes-compiled-groups", p5, False),
    Case(
        "SEC004",
        "fires-on-inline-ingress-from-anywhere",
        lambda: edit(p5(), SECURITY_GROUP, "lustre-sg", open_sg_to_world),
        True,
        "ingress[3].cidrBlocks includes '0.0.0.0/0'",
    ),
    Case(
        "SEC004",
        "fires-on-ingress-rule-from-anywhere-v6",
        lambda: edit(p5(), INGRESS_RULE, "clients-efa", ingress_rule_from_anywhere_v6),
        True,
        "cidrIpv6 is '::/0'",
    ),
    # SEC005 public IP
    Case("SEC005", "passes-explicit-false-on-single-interface", lambda: example("dev-g6e"), False),
    Case(
        "SEC005",
        "fires-on-public-ip",
        lambda: edit(example("dev-g6e"), LAUNCH_TEMPLATE, "dev-usw2a", on_interface(0, associatePublicIpAddress="true")),
        True,
        "networkInterfaces[0].associatePublicIpAddress is 'true'",
    ),
    # SEC006 EKS endpoint
    Case("SEC006", "passes-private-endpoint", p5, False),
    Case(
        "SEC006",
        "passes-public-endpoint-on-allowed-cidrs",
        lambda: edit(insecure(), CLUSTER, "control-plane", setter("vpcConfig.publicAccessCidrs", ["203.0.113.0/24"])),
        False,
        config={"eks-endpoint-restricted": {"eksPublicAccessCidrs": ["203.0.113.0/24"]}},
    ),
    Case("SEC006", "fires-on-endpoint-open-to-the-internet", insecure, True, "vpcConfig.publicAccessCidrs has '0.0.0.0/0'; allowed: none"),
    Case(
        "SEC006",
        "fires-when-public-access-is-left-to-the-default",
        lambda: edit(p5(), CLUSTER, "control-plane", deleter("vpcConfig.endpointPublicAccess")),
        True,
        "vpcConfig.publicAccessCidrs is not set",
    ),
    # SEC007 secrets encryption
    Case("SEC007", "passes-compiled-cluster", p5, False),
    Case(
        "SEC007",
        "fires-without-encryption-config",
        lambda: edit(p5(), CLUSTER, "control-plane", deleter("encryptionConfig")),
        True,
        "encryptionConfig is not set",
    ),
    Case(
        "SEC007",
        "fires-when-secrets-are-not-listed",
        lambda: edit(p5(), CLUSTER, "control-plane", setter("encryptionConfig.resources", [])),
        True,
        "encryptionConfig.resources is [] and lacks 'secrets'",
    ),
    # SEC008 public access block flags
    Case("SEC008", "passes-compiled-blocks", p5, False),
    Case(
        "SEC008",
        "fires-on-a-flag-turned-off",
        lambda: edit(p5(), PUBLIC_ACCESS_BLOCK, "datasets", setter("blockPublicPolicy", False)),
        True,
        "blockPublicPolicy is False; allowed: True",
    ),
    # SEC009 every bucket blocked
    Case("SEC009", "passes-when-every-bucket-has-a-block", p5, False),
    Case(
        "SEC009",
        "fires-on-a-bucket-without-block",
        lambda: without(p5(), lambda r: r.type == PUBLIC_ACCESS_BLOCK and "datasets" in r.name),
        True,
        "Bucket 'p5-train-prod-storage-datasets': has no aws.s3.BucketPublicAccessBlock",
    ),
    # SEC010 IAM admin wildcard
    Case("SEC010", "passes-scoped-inline-policy", lambda: edit(p5(), IAM_ROLE, "node-role", scoped_inline_policy), False),
    Case(
        "SEC010",
        "fires-on-allow-star-on-star",
        lambda: edit(p5(), IAM_ROLE, "node-role", admin_inline_policy),
        True,
        "inlinePolicies[0].policy Statement[0] allows action '*' on resource '*'",
    ),
    # COR001 EFA security group
    Case("COR001", "passes-self-referencing-efa-group", p5, False),
    Case(
        "COR001",
        "fires-without-egress-to-itself",
        lambda: edit(p5(), SECURITY_GROUP, "network-efa", deleter("egress")),
        True,
        "EFA interfaces on card(s) 0-31 have security group(s) p5-train-prod-network-efa, none of which allows all "
        "traffic from and to itself (missing: egress)",
    ),
    Case(
        "COR001",
        "fires-on-interface-without-the-group",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "train-use1a", on_interface(2, securityGroups=["sg-0123456789abcdef0"])),
        True,
        "the EFA interfaces on card(s) 1 have no security group from this stack",
    ),
    # COR002 EFA single subnet
    Case("COR002", "passes-two-node-groups-sharing-the-subnet", lambda: preview(f"{FIXTURES}/efa-two-blocks.yaml"), False),
    Case(
        "COR002",
        "fires-on-an-efa-group-in-two-subnets",
        lambda: edit(p5(), NODE_GROUP, "train-use1a", second_subnet),
        True,
        "is an EFA node group in 2 subnets",
    ),
    Case(
        "COR002",
        "fires-when-a-pool-splits-across-subnets",
        lambda: edit(preview(f"{FIXTURES}/efa-two-blocks.yaml"), NODE_GROUP, "train-b2", setter("subnetIds", ["subnet-0000000000000000c"])),
        True,
        "uses subnet subnet-0000000000000000c, but node group 'efa-two-test-train-b1' of the same pool 'train'",
    ),
    # COR003 EFA layout
    Case("COR003", "passes-p5-layout", p5, False),
    Case("COR003", "passes-p5en-trn2-inf2-layouts", hetero, False),
    Case("COR003", "passes-gb200-layout-on-cards-1-5-9-13", gb200, False),
    Case(
        "COR003",
        "fires-on-a-gb200-layout-off-awss-cards",
        lambda: edit(gb200(), LAUNCH_TEMPLATE, "nvl72-dfw", gb200_efa_on_card_three_not_five),
        True,
        "p6e-gb200.36xlarge: no EFA on card(s) [5]: nodes would use 3 of 4 EFA devices of the layout (card(s) [3] are outside it)",
    ),
    Case(
        "COR003",
        "fires-on-gb200-efa-on-the-ena-only-card-0",
        lambda: edit(gb200(), LAUNCH_TEMPLATE, "nvl72-dfw", gb200_efa_on_card_zero),
        True,
        "EFA on card(s) [0], which carry no EFA on p6e-gb200.36xlarge",
    ),
    Case(
        "COR003",
        "fires-on-an-unused-efa-card",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "train-use1a", drop_last_efa),
        True,
        "p5.48xlarge: no EFA on card(s) [31]: nodes would use 31 of 32 EFA devices",
    ),
    Case(
        "COR003",
        "fires-on-a-card-the-instance-lacks",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "train-use1a", efa_on_missing_card),
        True,
        "EFA on card(s) [40]",
    ),
    Case(
        "COR003",
        "fires-on-two-efas-on-one-card",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "train-use1a", second_efa_on_card_one),
        True,
        "(card, device) pairs repeat: [(1, 0)]",
    ),
    Case(
        "COR003",
        "fires-on-efa-only-primary",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "train-use1a", on_interface(0, interfaceType="efa-only")),
        True,
        "the primary interface (card 0, device 0) is missing or efa-only",
    ),
    # COR004 placement group on reserved capacity
    Case("COR004", "passes-capacity-block-without-group", p5, False),
    Case("COR004", "passes-on-demand-with-cluster-group", lambda: preview(stack="dev"), False),
    Case(
        "COR004",
        "fires-on-capacity-block-with-group",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "train-use1a", setter("placement.groupName", "p5-train-use1a")),
        True,
        "placement.groupName is set ('p5-train-use1a') and must not be",
    ),
    Case(
        "COR004",
        "fires-on-reservation-with-group",
        lambda: edit(hetero(), LAUNCH_TEMPLATE, "h200", setter("placement.groupId", "pg-0123456789abcdef0")),
        True,
        "placement.groupId is set",
    ),
    # COR005 AMI type
    Case("COR005", "passes-nvidia-and-neuron-groups", hetero, False),
    Case(
        "COR005",
        "fires-on-standard-ami-for-gpus",
        lambda: edit(p5(), NODE_GROUP, "train-use1a", setter("amiType", "AL2023_x86_64_STANDARD")),
        True,
        "runs p5.48xlarge (8x H100) with amiType AL2023_x86_64_STANDARD; it needs one of AL2023_x86_64_NVIDIA",
    ),
    Case(
        "COR005",
        "fires-on-nvidia-ami-for-trainium",
        lambda: edit(hetero(), NODE_GROUP, "trainium", setter("amiType", "AL2023_x86_64_NVIDIA")),
        True,
        "it needs one of AL2023_x86_64_NEURON, BOTTLEROCKET_x86_64",
    ),
    # COR006 FSx zone
    Case("COR006", "passes-file-system-in-its-pool-zone", lambda: edit(p5(), LUSTRE, "lustre", tagged("railyard:mounted-by", "train")), False),
    Case(
        "COR006",
        "fires-on-a-pool-in-another-zone",
        lambda: edit(insecure(), LUSTRE, "scratch", tagged("railyard:mounted-by", "cheap-train notebooks")),
        True,
        "is in us-west-2a, but node group 'insecure-dev-notebooks-usw2b-b1' of pool 'notebooks', which mounts it, runs in us-west-2b",
    ),
    Case(
        "COR006",
        "fires-on-an-unknown-client-pool",
        lambda: edit(p5(), LUSTRE, "lustre", tagged("railyard:mounted-by", "train eval")),
        True,
        "railyard:mounted-by names pool 'eval', but no node group has railyard.dev/pool=eval",
    ),
    # COR007 FSx throughput
    Case("COR007", "passes-when-throughput-covers-demand", lambda: edit(p5(), LUSTRE, "lustre", tagged("railyard:demand-mbps", "20000")), False),
    Case(
        "COR007",
        "fires-when-demand-exceeds-throughput",
        lambda: edit(p5(), LUSTRE, "lustre", tagged("railyard:demand-mbps", "100000")),
        True,
        "delivers 23,438 MB/s (48000 GiB x 500 MB/s/TiB), below the 100,000 MB/s its pools declare; at 500 MB/s/TiB that takes 206400 GiB",
    ),
    Case(
        "COR007",
        "fires-on-scratch-at-its-baseline",
        lambda: edit(insecure(), LUSTRE, "scratch", tagged("railyard:demand-mbps", "1000")),
        True,
        "delivers 234 MB/s (1200 GiB x 200 MB/s/TiB)",
    ),
    # COR008 API input constraints
    Case("COR008", "passes-every-compiled-input", p5, False),
    Case("COR008", "passes-unicode-letters-in-fsx-tags", lambda: edit(p5(), LUSTRE, "lustre", tagged("team", "équipe données")), False),
    Case(
        "COR008",
        "fires-on-an-apostrophe-in-a-security-group-description",
        lambda: edit(p5(), SECURITY_GROUP, "lustre-sg", setter("description", "FSx for Lustre 'lustre'")),
        True,
        "description: 'FSx for Lustre 'lustre'' does not match",
    ),
    Case(
        "COR008",
        "fires-on-an-apostrophe-in-an-ingress-rule-description",
        lambda: edit(p5(), INGRESS_RULE, "clients-efa", setter("description", "From 'lustre'")),
        True,
        "description: 'From 'lustre'' does not match",
    ),
    Case(
        "COR008",
        "fires-on-a-node-group-name-over-63-characters",
        lambda: edit(p5(), NODE_GROUP, "train-use1a", setter("nodeGroupName", "n" * 64)),
        True,
        "nodeGroupName: '" + "n" * 60 + "...' is 64 characters, over the limit of 63",
    ),
    Case(
        "COR008",
        "fires-on-a-capacity-type-botocore-does-not-list",
        lambda: edit(p5(), NODE_GROUP, "train-use1a", setter("capacityType", "CAPACITY-BLOCK")),
        True,
        "capacityType: 'CAPACITY-BLOCK' is not one of ON_DEMAND, SPOT, CAPACITY_BLOCK",
    ),
    Case(
        "COR008",
        "fires-on-an-interface-type-ec2-refuses",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "train-use1a", on_interface(1, interfaceType="efa_only")),
        True,
        "networkInterfaces[1].interfaceType: 'efa_only' is not one of interface, efa, efa-only",
    ),
    Case(
        "COR008",
        "fires-on-an-fsx-throughput-out-of-range",
        lambda: edit(p5(), LUSTRE, "lustre", setter("perUnitStorageThroughput", 2000)),
        True,
        "perUnitStorageThroughput: 2000 is above the maximum 1000",
    ),
    Case(
        "COR008",
        "fires-on-a-comma-in-an-fsx-tag",
        lambda: edit(p5(), LUSTRE, "lustre", tagged("owner", "ml, infra")),
        True,
        "tags.owner: 'ml, infra' does not match",
    ),
    Case(
        "COR008",
        "fires-on-a-reserved-tag-prefix",
        lambda: edit(p5(), BUCKET, "datasets", tagged("AWS:team", "x")),
        True,
        "tags key 'AWS:team': 'AWS:team' starts with the reserved prefix 'aws:'",
    ),
    Case(
        "COR008",
        "fires-on-a-bucket-name-with-two-dots",
        lambda: edit(p5(), BUCKET, "datasets", setter("bucket", "p5..datasets")),
        True,
        "bucket: 'p5..datasets' has a form the API reserves",
    ),
    Case(
        "COR008",
        "fires-on-a-kms-alias-in-the-aws-namespace",
        lambda: edit(p5(), "aws:kms/alias:Alias", "secrets", setter("name", "alias/aws/ebs")),
        True,
        "name: 'alias/aws/ebs' has a form the API reserves",
    ),
    Case(
        "COR008",
        "fires-on-a-helm-release-name-over-53-characters",
        lambda: edit(p5(), "kubernetes:helm.sh/v3:Release", "kueue", setter("name", "k" * 54)),
        True,
        "is 54 characters, over the limit of 53",
    ),
    Case(
        "COR008",
        "fires-on-an-upper-case-kubernetes-name",
        lambda: edit(p5(), "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "cluster-queue", setter("metadata.name", "Train")),
        True,
        "metadata.name: 'Train' does not match",
    ),
    Case(
        "COR008",
        "fires-on-an-iam-role-auto-named-over-64-characters",
        lambda: _renamed_role(p5(), "r" * 57),
        True,
        "auto-named from '" + "r" * 57 + "' (57 characters + 8 random), over the API's 64-character limit",
    ),
    # GOV001 instance types
    Case("GOV001", "passes-allow-listed-types", hetero, False),
    Case(
        "GOV001",
        "passes-when-config-allows-the-type",
        insecure,
        False,
        config={"instance-type-allowed": {"allowedInstanceTypes": ["p4d.24xlarge", "g6e.xlarge", "m7i.xlarge"]}},
    ),
    Case("GOV001", "fires-on-older-generation", insecure, True, "instanceType is 'p4d.24xlarge'"),
    Case(
        "GOV001",
        "fires-on-node-group-instance-types",
        lambda: edit(p5(), NODE_GROUP, "train-use1a", setter("instanceTypes", ["p5.48xlarge", "g5.48xlarge"])),
        True,
        "instanceTypes has 'g5.48xlarge'",
    ),
    # GOV002 spot roles
    Case("GOV002", "passes-spot-for-dev", lambda: edit(example("dev-g6e"), NODE_GROUP, "dev-usw2a", setter("capacityType", "SPOT")), False),
    Case(
        "GOV002",
        "passes-when-config-allows-training-on-spot",
        insecure,
        False,
        config={"spot-only-for-allowed-roles": {"spotAllowedRoles": ["training", "dev"]}},
    ),
    Case("GOV002", "fires-on-spot-training", insecure, True, "labels['railyard.dev/role'] is 'training'; allowed: 'dev'"),
    # GOV003 tags
    Case("GOV003", "passes-compiled-tags", p5, False),
    Case(
        "GOV003",
        "fires-on-a-missing-owner",
        lambda: edit(p5(), LUSTRE, "lustre", deleter("tags.owner")),
        True,
        "LustreFileSystem 'p5-train-prod-storage-lustre': tags.owner is not set",
    ),
    Case(
        "GOV003",
        "fires-on-an-empty-cost-center",
        lambda: edit(p5(), BUCKET, "datasets", tagged("cost-center", "")),
        True,
        "tags.cost-center is empty",
    ),
    Case("GOV003", "fires-on-a-configured-tag", p5, True, "tags.team is not set", config={"required-tags": {"requiredTags": ["owner", "team"]}}),
    # GOV004 accelerator ceiling
    Case("GOV004", "passes-at-exactly-the-ceiling", lambda: example("rail-131k"), False),
    Case(
        "GOV004",
        "fires-over-the-ceiling",
        insecure,
        True,
        "node groups scale to 131,204 accelerators, over the ceiling of 131,072 (largest: insecure-dev-cheap-train-usw2a 131,200",
    ),
    Case(
        "GOV004",
        "fires-over-a-configured-ceiling",
        lambda: example("rail-131k"),
        True,
        "over the ceiling of 65,536",
        config={"accelerator-ceiling": {"maxAcceleratorsPerStack": 65536}},
    ),
    # GOV005 cost ceiling: 16,384 p5en.48xlarge at $63.296 an hour is about $1.04M, under the default $2.5M
    Case("GOV005", "passes-under-the-default-ceiling", lambda: example("rail-131k"), False),
    Case(
        "GOV005",
        "fires-over-a-configured-ceiling-at-the-capacity-block-rate",
        p5,
        True,
        # 64 p5.48xlarge in the block at $41.528 (Capacity Block rate) and 4 system m7i.xlarge at $0.2016 On-Demand
        f"node groups cost ${64 * 41.528 + 4 * 0.2016:,.0f} per hour at max size in us-east-1, over the ceiling of $1,000",
        config={"cost-ceiling": {"maxHourlyCostPerStack": 1000}},
    ),
] + BENCHMARK_CASES


def _run(case: Case):
    return run_policies(case.build(), config=case.config, rules=[rule(case.rule_id)])


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.rule_id}-{case.name}")
def test_rule_fires_or_passes_on_preview_resources(case: Case):
    report = _run(case)
    assert report.errors == [] and report.unverified == []
    messages = [violation.message for violation in report.violations]
    if not case.fires:
        assert messages == []
        return
    assert {violation.rule_id for violation in report.violations} == {case.rule_id}
    assert any(case.says in message for message in messages), messages


def test_the_cost_ceiling_never_counts_an_unpriced_node_group_as_free():
    # dev-g6e runs in us-west-2, where railyard has no On-Demand rates: under any ceiling, it can't be held.
    report = run_policies(example("dev-g6e"), config={"cost-ceiling": {"pricingRegion": "us-west-2"}}, rules=[rule("GOV005")])
    assert report.violations == [] and len(report.unverified) == 1
    assert "no us-west-2 price for node group(s)" in report.unverified[0].message
    # Priced at us-east-1's rates it is well under the default ceiling.
    assert run_policies(example("dev-g6e"), rules=[rule("GOV005")]).violations == []


@pytest.mark.parametrize("case", [case for case in CASES if case.fires], ids=lambda case: f"{case.rule_id}-{case.name}")
def test_violation_names_the_resource_and_the_fix(case: Case):
    registered = rule(case.rule_id)
    resources = {item.urn: item for item in case.build().resources}
    for violation in _run(case).violations:
        assert violation.message.endswith(f". Fix: {registered.fix}")
        if violation.urn is None:
            assert violation.message.startswith("stack: ")
        else:
            resource = resources[violation.urn]
            assert violation.message.startswith(describe(resource.type, resource.name) + ": ")


def test_every_rule_has_a_firing_and_a_passing_case():
    registered = {registered.id for registered in RULES}
    assert {case.rule_id for case in CASES if case.fires} == registered
    assert {case.rule_id for case in CASES if not case.fires} == registered
