"""Subnets hold what the VPC CNI really takes: the documented formulas, computed here from the catalog on their own.

The planner's numbers (`topology.cluster.addresses`) are not used to check
themselves: each test recomputes a node's addresses from the catalog's
network cards and the launch template the preview registered, and holds the
registered subnets to it.
"""

from __future__ import annotations

import base64
import json
from ipaddress import IPv4Network

import pytest
import yaml

from blueprints.catalog import load_catalog
from blueprints.models.kubernetes import PodNetworking
from railyard.mocked import mock_id
from tests.preview.conftest import preview_of
from topology.cluster.addresses import max_pods, node_addresses

CATALOG = load_catalog()
SUBNET = "aws:ec2/subnet:Subnet"
TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


@pytest.mark.parametrize(
    ("instance", "published"),
    [
        ("p5.48xlarge", 100),
        ("p5en.48xlarge", 198),
        ("trn2.48xlarge", 100),
        ("p4d.24xlarge", 737),
        ("trn1.32xlarge", 247),
    ],
)
def test_max_pods_is_the_cnis_published_figure(instance, published):
    # aws/amazon-vpc-cni-k8s misc/eni-max-pods.txt, counted on network card 0 only.
    spec = CATALOG.get(instance)
    assert max_pods(spec.network_cards[0].max_interfaces, spec.ipv4_per_interface, spec.vcpus, "secondary_ips") == published


def test_prefix_delegation_caps_pods_as_the_eks_ami_does():
    spec = CATALOG.get("p5.48xlarge")
    assert max_pods(2, spec.ipv4_per_interface, spec.vcpus, "prefix_delegation") == 250


def _independent(spec, interfaces: list[dict], networking: PodNetworking) -> tuple[int, int]:
    """(node-subnet, pod-subnet) addresses per node, from the catalog and the template, by the CNI's documented rules."""
    efa_only = sum(1 for item in interfaces if item["networkCardIndex"] == 0 and item["interfaceType"] == "efa-only")
    enis = spec.network_cards[0].max_interfaces - efa_only
    per_eni = spec.ipv4_per_interface
    if networking.mode == "custom_networking":
        held = max(networking.minimum_ip_target or 0, networking.pods_per_node + (networking.warm_ip_target or 0))
        return 1, held + -(-held // (per_eni - 1))
    if networking.mode == "prefix_delegation":  # /28 prefixes for the pods plus one spare (WARM_PREFIX_TARGET=1)
        prefixes = -(-networking.pods_per_node // 16) + 1
        return -(-prefixes // (per_eni - 1)) + 16 * prefixes, 0
    return enis * per_eni, 0  # WARM_ENI_TARGET=1: every CNI ENI on card 0 may be filled


def _by_id(result):
    return {mock_id(SUBNET, subnet.name): subnet for subnet in result.of_type(SUBNET)}


@pytest.mark.parametrize("example", ["p5-capacity-block", "heterogeneous", "rail-131k", "dev-g6e", "inference-fleet"])
def test_every_node_and_pod_subnet_holds_its_nodes_at_their_largest(example):
    result = preview_of(example)
    networking = result.validation.blueprint.kubernetes.pod_networking
    subnets = _by_id(result)
    needed: dict[str, int] = {}
    for group in result.of_type(NODE_GROUP):
        template = next(t for t in result.of_type(TEMPLATE) if t.name == f"{group.name}-template")
        spec = CATALOG.get(template.inputs["instanceType"])
        if spec is None:
            continue  # the system group: checked by the planner's own tests
        node, pods = _independent(spec, template.inputs["networkInterfaces"], networking)
        nodes = group.inputs["scalingConfig"]["maxSize"]
        for subnet_id in group.inputs["subnetIds"]:
            needed[subnet_id] = needed.get(subnet_id, 0) + nodes * node
        eni_config = group.inputs["labels"].get("railyard.dev/eni-config")
        if eni_config:
            pod_subnet = mock_id(
                SUBNET, f"{result.validation.blueprint.metadata.name}-{result.validation.blueprint.metadata.environment}-network-{eni_config}"
            )
            needed[pod_subnet] = needed.get(pod_subnet, 0) + nodes * pods
    assert needed
    for subnet_id, addresses in needed.items():
        usable = IPv4Network(subnets[subnet_id].inputs["cidrBlock"]).num_addresses - 5
        assert usable >= addresses, (subnets[subnet_id].name, usable, addresses)


def test_rail_131k_keeps_one_address_per_node_and_pods_in_block_sized_pod_subnets():
    result = preview_of("rail-131k")
    subnets = {subnet.name.rsplit("network-", 1)[1]: IPv4Network(subnet.inputs["cidrBlock"]) for subnet in result.of_type(SUBNET)}
    assert subnets["efa-rails-campus"].num_addresses - 5 >= 16384
    pods = [cidr for name, cidr in subnets.items() if name.startswith("pods-frontier-")]
    assert len(pods) == 16 and all(cidr.num_addresses - 5 >= 1024 * 19 for cidr in pods)
    blocks = [IPv4Network(f"100.{64 + index}.0.0/16") for index in range(9)]
    assert all(any(cidr.subnet_of(block) for block in blocks) for cidr in pods)


def cni_of(result):
    """The preview's vpc-cni add-on."""
    (addon,) = [addon for addon in result.of_type("aws:eks/addon:Addon") if addon.inputs["addonName"] == "vpc-cni"]
    return addon


def test_custom_networking_configures_the_cni_add_on_before_the_nodes_and_leaves_max_pods_to_eks():
    result = preview_of("rail-131k")
    addon = cni_of(result)
    config = json.loads(addon.inputs["configurationValues"])
    assert config["env"] == {
        "AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG": "true",
        "ENI_CONFIG_LABEL_DEF": "railyard.dev/eni-config",
        "MINIMUM_IP_TARGET": "16",
        "WARM_IP_TARGET": "2",
    }
    assert config["eniConfig"]["create"] is True and config["eniConfig"]["region"] == "us-east-1"
    assert set(config["eniConfig"]["subnets"]) == {f"pods-frontier-b{index:02d}" for index in range(1, 17)} | {
        "pods-system-us-east-1a",
        "pods-system-us-east-1b",
    }
    for group in result.of_type(NODE_GROUP):
        assert addon.urn in group.dependencies
        assert config["eniConfig"]["subnets"][group.inputs["labels"]["railyard.dev/eni-config"]]["id"].startswith("subnet-")
    template = result.named("rail131k-prod-frontier-b01-template")
    message = base64.b64decode(template.inputs["userData"]).decode()
    node_config = yaml.safe_load(message.split("application/node.eks.aws\n\n---\n", 1)[1].split("\n--", 1)[0])
    # An EKS-AMI managed node group: EKS appends its own NodeConfig, whose maxPods takes precedence (EKS user guide).
    assert "kubelet" not in node_config["spec"]


def test_default_networking_leaves_the_cni_unconfigured_and_max_pods_to_nodeadm():
    result = preview_of("p5-capacity-block")
    assert "configurationValues" not in cni_of(result).inputs
    assert "maxPods" not in base64.b64decode(result.named("p5-train-prod-train-use1a-template").inputs["userData"]).decode()


def test_a_vpc_that_cannot_hold_the_cnis_addresses_is_refused_at_validate(tmp_path):
    from railyard.pipeline import validate
    from tests.preview.conftest import ROOT

    # rail-131k without its pod networking: 16,384 p5en nodes x 150 addresses in one /16.
    text = (ROOT / "blueprints" / "examples" / "rail-131k.yaml").read_text()
    start = text.index("  # 16,384 nodes can't keep")
    stripped = text[:start] + text[text.index("\n", text.index("100.72.0.0/16]")) + 1 :]
    assert "pod_networking" not in stripped
    path = tmp_path / "rail-default-cni.yaml"
    path.write_text(stripped)
    (finding,) = [f for f in validate(str(path)).findings if f.code == "compile.plan"]
    assert finding.path == ("cloud", "vpc_cidr") and finding.line is not None
    assert "needs 2457600 addresses for 16384 nodes" in finding.message and "custom_networking" in finding.message


def test_node_addresses_for_warm_targets_and_prefixes():
    warm = PodNetworking(warm_ip_target=2, minimum_ip_target=4, pods_per_node=8)
    assert node_addresses(3, 50, 192, warm).node == 10 + 1
    prefixes = PodNetworking(mode="prefix_delegation", pods_per_node=16)
    assert node_addresses(1, 50, 192, prefixes).node == 1 + 16 * 2  # one /28 for 16 pods, one spare


def test_prefix_delegation_configures_the_add_on_and_leaves_max_pods_to_eks():
    result = preview_of("inference-fleet")
    addon = cni_of(result)
    assert json.loads(addon.inputs["configurationValues"]) == {"env": {"ENABLE_PREFIX_DELEGATION": "true"}}
    message = base64.b64decode(result.named("serve-fleet-prod-serve-usw2a-b1-01-template").inputs["userData"]).decode()
    assert "maxPods" not in message


@pytest.mark.parametrize(
    ("instance_type", "default", "kubelet"),
    # eni-max-pods.txt @ b52188387f2e: p5.48xlarge 100, p5en.48xlarge 198; the CNI keeps card 0's efa-only slot out.
    [("p5.48xlarge", 100, 51), ("p5en.48xlarge", 198, 149), ("trn2u.48xlarge", 100, 51)],
)
def test_a_node_left_to_its_default_pod_limit_counts_card_zeros_efa_only_slot(instance_type, default, kubelet):
    from topology.cluster.interfaces import interface_layout
    from topology.cluster.node_groups import _addresses

    spec = load_catalog().get(instance_type)
    assert spec is not None
    addresses = _addresses(spec, interface_layout(spec, True), PodNetworking())
    assert (addresses.default_max_pods, addresses.kubelet_max_pods) == (default, kubelet)
