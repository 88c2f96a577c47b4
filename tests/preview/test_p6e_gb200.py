"""The GB200 NVL72 example: two u-p6e-gb200x72 UltraServers validate and compile as AWS documents the type.

Its launch template carries AWS's EFA layout for p6e-gb200 (the primary on card 0, one EFA-only interface on each of
cards 1, 5, 9 and 13: EC2 user guide, EFA configuration for P6e-GB200 instances), its node group the AL2023 ARM NVIDIA
AMI the EKS user guide recommends (ml-eks-nvidia-ultraserver) on the Capacity Block, whole UltraServers only.
"""

from __future__ import annotations

from blueprints.loader import load_text
from railyard.pipeline import validate
from tests.preview.conftest import ROOT, preview_of

EXAMPLE = ROOT / "blueprints" / "examples" / "p6e-gb200-nvl72.yaml"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"


def test_the_example_validates_with_no_warning_and_an_unpriced_block():
    checked = validate(str(EXAMPLE))
    assert checked.ok
    # No pool.nvlink-imex: the DRA driver and a ComputeDomain give jobs across the UltraServer's instances IMEX.
    assert [finding.code for finding in checked.findings if finding.severity in ("error", "warning")] == []
    [block] = [line for line in checked.cost.lines if line.key == "pool:nvl72"]
    # AWS's page prices no block of this type per instance: unknown, with the reason, and left out of the totals, never $0.
    assert block.hourly_usd is None and block.unknown == (
        "no Capacity Block rate published for it: AWS's Capacity Block pricing page (as scraped 2026-07-22) gives no per-instance rate "
        "for p6e-gb200.36xlarge in us-east-1 (AWS prices a block when it offers it)"
    )
    assert checked.cost.summary()[0].endswith("; leaves out pool nvl72: p6e-gb200.36xlarge (unpriced: no Capacity Block rate published for it)")
    [provider] = checked.design.figures["provider_fabrics"]
    assert provider["pools"] == [
        {"pool": "nvl72", "instance_type": "p6e-gb200.36xlarge", "efa_interfaces": 4, "network_gbps": 3200.0, "network_node_layers": 3}
    ]
    [domains] = checked.design.figures["scale_up"]
    assert (domains["accelerators_per_domain"], domains["hosts_per_domain"], domains["domains"]) == (72, 18, 2)


def test_each_node_launches_with_the_primary_and_efa_only_on_cards_1_5_9_13():
    result = preview_of("p6e-gb200-nvl72")
    [template] = [resource for resource in result.of_type(LAUNCH_TEMPLATE) if resource.name == "gb200-prod-nvl72-dfw-template"]
    slots = [(item["networkCardIndex"], item["deviceIndex"], item["interfaceType"]) for item in template.inputs["networkInterfaces"]]
    assert slots == [(0, 0, "interface"), (1, 0, "efa-only"), (5, 0, "efa-only"), (9, 0, "efa-only"), (13, 0, "efa-only")]
    assert template.inputs["instanceType"] == "p6e-gb200.36xlarge"
    assert template.inputs["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert template.inputs["capacityReservationSpecification"] == {"capacityReservationTarget": {"capacityReservationId": "cr-0b1c2d3e4f5a60719"}}


def test_the_node_group_runs_the_arm_nvidia_ami_on_the_capacity_block_in_whole_ultraservers():
    group = preview_of("p6e-gb200-nvl72").named("gb200-prod-nvl72-dfw")
    assert (group.inputs["amiType"], group.inputs["capacityType"]) == ("AL2023_ARM_64_NVIDIA", "CAPACITY_BLOCK")
    assert group.inputs["scalingConfig"]["maxSize"] == 36


def test_part_of_an_ultraserver_is_refused():
    text = EXAMPLE.read_text().replace("    nodes: 36                 # 2 UltraServers of 18\n", "    nodes: 27\n")
    loaded = load_text(text, "p6e-gb200-partial.yaml")
    [finding] = [finding for finding in loaded.findings if finding.code == "pool.scale-up-partial"]
    assert finding.severity == "error" and finding.certificate == {"hosts_per_domain": 18, "nodes": {"max": 27, "desired": 27}}


def test_the_preview_emits_the_dra_driver_and_the_pools_compute_domain_after_it():
    result = preview_of("p6e-gb200-nvl72")
    [domain] = result.of_type("kubernetes:resource.nvidia.com/v1beta1:ComputeDomain")
    assert domain.name == "gb200-prod-k8s-compute-domains-nvl72"
    assert domain.inputs["spec"] == {
        "numNodes": 0,
        "channel": {"resourceClaimTemplate": {"name": "nvl72-nvlink-channel"}, "allocationMode": "Single"},
    }
    release = result.named("gb200-prod-k8s-compute-domains-nvidia-dra-driver-gpu")
    assert (release.inputs["chart"], release.inputs["version"], release.inputs["namespace"]) == (
        "nvidia-dra-driver-gpu",
        "25.12.0",
        "nvidia-dra-driver-gpu",
    )
