"""Launch templates and node groups as registered under mocks (inputs as the engine sees them)."""

import pytest

from railyard.mocked import mock_id

LT = "aws:ec2/launchTemplate:LaunchTemplate"
NG = "aws:eks/nodeGroup:NodeGroup"
# What a managed node group forbids in a custom launch template (aws-facts.md 4.1).
FORBIDDEN_IN_TEMPLATE = {
    "iamInstanceProfile",
    "imageId",
    "hibernationOptions",
    "instanceInitiatedShutdownBehavior",
    "vpcSecurityGroupIds",
    "securityGroupNames",
}


def template(result, node_group_name):
    group = next(r for r in result.of_type(NG) if r.inputs["nodeGroupName"] == node_group_name)
    return next(r for r in result.of_type(LT) if r.urn.endswith(group.name + "-template")), group


def efa_slots(template_resource):
    return [(i["networkCardIndex"], i["deviceIndex"]) for i in template_resource.inputs["networkInterfaces"] if i["interfaceType"] == "efa-only"]


def test_p5_template_has_the_primary_and_32_efa_only_interfaces_one_per_card(p5):
    lt, _ = template(p5, "train-use1a")
    interfaces = lt.inputs["networkInterfaces"]
    assert len(interfaces) == 33
    assert interfaces[0] == {
        "deleteOnTermination": "true",
        "deviceIndex": 0,
        "interfaceType": "interface",
        "networkCardIndex": 0,
        "securityGroups": interfaces[0]["securityGroups"],
    }
    assert efa_slots(lt) == [(0, 1)] + [(card, 0) for card in range(1, 32)]


@pytest.mark.parametrize(("group", "count"), [("h200-use2a-gpu", 16), ("trainium-use2b-trn", 16), ("serve-use2a-inf", 0)])
def test_heterogeneous_efa_counts(hetero, group, count):
    lt, _ = template(hetero, group)
    cards = [card for card, _ in efa_slots(lt)]
    assert len(cards) == count and len(set(cards)) == count


def test_every_interface_has_security_groups_and_the_template_none(p5, hetero, dev_g6e, rail):
    for result in (p5, hetero, dev_g6e, rail):
        for lt in result.of_type(LT):
            assert not FORBIDDEN_IN_TEMPLATE & set(lt.inputs), lt.name
            assert all(interface["securityGroups"] for interface in lt.inputs["networkInterfaces"])
            assert all("subnetId" not in interface for interface in lt.inputs["networkInterfaces"])


def test_efa_interfaces_carry_the_cluster_and_efa_security_groups(p5):
    efa_group_id = mock_id("aws:ec2/securityGroup:SecurityGroup", "p5-train-prod-network-efa")
    lt, _ = template(p5, "train-use1a")
    groups = {tuple(interface["securityGroups"]) for interface in lt.inputs["networkInterfaces"]}
    (pair,) = groups
    assert len(pair) == 2 and pair[1] == efa_group_id
    system, _ = template(p5, "system")
    assert system.inputs["networkInterfaces"][0]["securityGroups"] == [pair[0]]  # the cluster security group
    efa_group = p5.named("p5-train-prod-network-efa")
    assert efa_group.inputs["ingress"] == [
        {"description": efa_group.inputs["ingress"][0]["description"], "fromPort": 0, "protocol": "-1", "self": True, "toPort": 0}
    ]
    assert [(rule["protocol"], rule["self"]) for rule in efa_group.inputs["egress"]] == [("-1", True)]


def test_no_accelerator_node_gets_a_public_ip(p5, hetero, dev_g6e, rail, dev_stack):
    for result in (p5, hetero, dev_g6e, rail, dev_stack):
        for lt in result.of_type(LT):
            interfaces = lt.inputs["networkInterfaces"]
            assert all(i.get("associatePublicIpAddress") in (None, "false") for i in interfaces)
            if len(interfaces) > 1:  # EC2 rejects the flag with several interfaces
                assert all("associatePublicIpAddress" not in i for i in interfaces)
        node_subnets = {subnet for group in result.of_type(NG) for subnet in group.inputs["subnetIds"]}
        public = {mock_id(s.type, s.name) for s in result.of_type("aws:ec2/subnet:Subnet") if s.inputs["mapPublicIpOnLaunch"]}
        assert public and node_subnets and not node_subnets & public


def test_imdsv2_is_required_everywhere(p5, hetero):
    for lt in p5.of_type(LT) + hetero.of_type(LT):
        assert lt.inputs["metadataOptions"] == {"httpEndpoint": "enabled", "httpPutResponseHopLimit": 2, "httpTokens": "required"}


def test_capacity_block_targets_the_block_with_its_market_type(p5):
    lt, group = template(p5, "train-use1a")
    assert lt.inputs["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert lt.inputs["capacityReservationSpecification"] == {"capacityReservationTarget": {"capacityReservationId": "cr-0a1b2c3d4e5f60718"}}
    assert group.inputs["capacityType"] == "CAPACITY_BLOCK"
    assert lt.inputs["instanceType"] == "p5.48xlarge" and "instanceTypes" not in group.inputs


def test_reservation_is_on_demand_targeting_the_reservation(hetero):
    lt, group = template(hetero, "h200-use2a-gpu")
    assert group.inputs["capacityType"] == "ON_DEMAND" and "instanceMarketOptions" not in lt.inputs
    assert lt.inputs["capacityReservationSpecification"]["capacityReservationTarget"]["capacityReservationId"] == "cr-0123456789abcdef0"


@pytest.mark.parametrize(
    ("example", "group", "scaling"),
    [
        ("p5", "train-use1a", (0, 0, 64)),  # planned a week before its Capacity Block starts
        ("rail", "frontier-b01", (1024, 1024, 1024)),
        ("dev_g6e", "dev-usw2a", (0, 1, 1)),
        ("hetero", "serve-use2a-inf", (2, 4, 8)),
        ("hetero", "serve-use2b-inf", (2, 4, 8)),
        ("dev_stack", "train-use1a", (2, 2, 2)),
    ],
)
def test_node_group_scaling_as_declared(request, example, group, scaling):
    _, node_group = template(request.getfixturevalue(example), group)
    config = node_group.inputs["scalingConfig"]
    assert (config["minSize"], config["desiredSize"], config["maxSize"]) == scaling


@pytest.mark.parametrize(
    ("example", "group", "ami"),
    [
        ("p5", "train-use1a", "AL2023_x86_64_NVIDIA"),
        ("hetero", "trainium-use2b-trn", "AL2023_x86_64_NEURON"),
        ("hetero", "serve-use2b-inf", "AL2023_x86_64_NEURON"),
        ("dev_g6e", "dev-usw2a", "AL2023_x86_64_NVIDIA"),
        ("p5", "system", "AL2023_x86_64_STANDARD"),
    ],
)
def test_ami_type_per_accelerator(request, example, group, ami):
    _, node_group = template(request.getfixturevalue(example), group)
    assert node_group.inputs["amiType"] == ami


def test_node_group_sets_nothing_a_launch_template_forbids(p5):
    for group in p5.of_type(NG):
        assert not {"diskSize", "remoteAccess", "instanceTypes", "releaseVersion"} & set(group.inputs)
        assert set(group.inputs["launchTemplate"]) == {"id", "version"}


def test_labels_and_taints_reach_the_node_group(hetero):
    _, group = template(hetero, "trainium-use2b-trn")
    assert group.inputs["labels"]["railyard.dev/pool"] == "trainium"
    assert group.inputs["labels"]["railyard.dev/failure-domain"] == "use2b-trn"
    assert group.inputs["taints"] == [{"effect": "NO_SCHEDULE", "key": "aws.amazon.com/neuron", "value": "true"}]


def test_raid0_user_data_only_where_there_is_instance_store(hetero):
    assert "userData" in template(hetero, "h200-use2a-gpu")[0].inputs
    assert "userData" not in template(hetero, "serve-use2a-inf")[0].inputs


def test_every_root_volume_is_encrypted_with_the_clusters_volume_key(p5, hetero):
    for result in (p5, hetero):
        (key,) = [r for r in result.of_type("aws:kms/key:Key") if r.name.endswith("-eks-volumes")]
        assert "AWSServiceRoleForAutoScaling" in key.inputs["policy"]
        templates = result.of_type("aws:ec2/launchTemplate:LaunchTemplate")
        assert templates
        for template in templates:
            (mapping,) = template.inputs["blockDeviceMappings"]
            assert mapping["ebs"]["encrypted"] == "true"
            assert mapping["ebs"]["kmsKeyId"].endswith(":" + key.name), template.name
