"""Reservations made in a cluster placement group, and capacity reservation groups (UltraServer blocks among them).

EC2 user guide: a reservation created in a cluster placement group
(CreateCapacityReservation PlacementGroupArn) is used only by instances
launched into that group; a capacity reservation group is a Resource Group
with the `AWS::EC2::CapacityReservationPool` configuration that a launch
template targets by ARN (CapacityReservationTarget
CapacityReservationResourceGroupArn), UltraServer Capacity Blocks' with the
`instance-type` and `reservation-type` parameters.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.runner import run_policies
from railyard.mocked import run_preview
from railyard.pipeline import validate
from tests.preview.conftest import ROOT
from tests.yaml_text import edited_copy

EXAMPLE = ROOT / "blueprints" / "examples" / "heterogeneous.yaml"
RESERVATION = (
    "      kind: capacity_reservation\n      reservation_id: cr-0123456789abcdef0\n      zone: us-east-2a\n"
    "      instance_type: p5en.48xlarge\n      instance_count: 32\n"
)
IN_PLACEMENT_GROUP = (RESERVATION, RESERVATION + "      placement_group: hpc-use2a\n")
GROUP = (
    RESERVATION,
    "      kind: reservation_group\n      reservation_ids: [cr-0123456789abcdef0, cr-0123456789abcdef1]\n      zone: us-east-2a\n"
    "      instance_type: p5en.48xlarge\n      instance_count: 32\n",
)
BLOCKS = (
    RESERVATION,
    "      kind: reservation_group\n      reservation_ids: [cr-0123456789abcdef0, cr-0123456789abcdef1]\n      capacity_blocks: true\n",
)
EXISTING = (
    RESERVATION,
    "      kind: reservation_group\n      group_arn: arn:aws:resource-groups:us-east-2:123456789012:group/p5en-odcrs\n",
)
TEMPLATE_NAME = "hetero-prod-h200-use2a-gpu-template"
GROUP_NAME = "hetero-prod-h200-use2a-gpu"


def _preview(tmp_path: Path, edit: tuple[str, str]):
    result = run_preview(str(edited_copy(EXAMPLE, tmp_path, edit)), project_dir=ROOT)
    assert result.ok, [finding.message for finding in result.findings if finding.is_error]
    return result


def _target(result) -> dict:
    return result.named(TEMPLATE_NAME).inputs["capacityReservationSpecification"]["capacityReservationTarget"]


def test_a_reservation_in_a_cluster_placement_group_launches_into_that_group_and_passes_cor004(tmp_path):
    result = _preview(tmp_path, IN_PLACEMENT_GROUP)
    template = result.named(TEMPLATE_NAME)
    assert template.inputs["placement"] == {"groupName": "hpc-use2a"}
    assert template.inputs["tags"]["railyard:reservation-placement-group"] == "hpc-use2a"
    assert _target(result) == {"capacityReservationId": "cr-0123456789abcdef0"}
    # railyard makes no placement group for the pool: the reservation's is the team's.
    assert not [group for group in result.of_type("aws:ec2/placementGroup:PlacementGroup") if "h200" in group.name]
    report = run_policies(result)
    assert report.violations == [] and report.errors == []


def test_a_placement_group_on_a_zonal_reservation_still_fails_cor004(tmp_path):
    result = _preview(tmp_path, IN_PLACEMENT_GROUP)
    for resource in result.resources:
        if resource.name == TEMPLATE_NAME:
            del resource.inputs["tags"]["railyard:reservation-placement-group"]
    assert {violation.rule_id for violation in run_policies(result).violations} == {"COR004"}


def test_a_group_of_reservations_is_made_and_targeted_by_arn(tmp_path):
    result = _preview(tmp_path, GROUP)
    [group] = result.of_type("aws:resourcegroups/group:Group")
    assert group.inputs["name"] == "railyard-hetero-prod-h200"
    assert group.inputs["configurations"] == [
        {"type": "AWS::EC2::CapacityReservationPool"},
        {"type": "AWS::ResourceGroups::Generic", "parameters": [{"name": "allowed-resource-types", "values": ["AWS::EC2::CapacityReservation"]}]},
    ]
    members = sorted(member.inputs["resourceArn"] for member in result.of_type("aws:resourcegroups/resource:Resource"))
    assert members == [f"arn:aws:ec2:us-east-2:123456789012:capacity-reservation/cr-0123456789abcdef{n}" for n in (0, 1)]
    assert _target(result) == {
        "capacityReservationResourceGroupArn": "arn:aws:resource-groups:us-east-2:123456789012:group/railyard-hetero-prod-h200"
    }
    node_group = result.named(GROUP_NAME)
    assert node_group.inputs["capacityType"] == "ON_DEMAND"
    assert run_policies(result).violations == []


def test_an_ultraserver_group_of_capacity_blocks_is_a_capacity_block_node_group(tmp_path):
    result = _preview(tmp_path, BLOCKS)
    [group] = result.of_type("aws:resourcegroups/group:Group")
    assert group.inputs["configurations"][0] == {
        "type": "AWS::EC2::CapacityReservationPool",
        "parameters": [{"name": "instance-type", "values": ["p5en.48xlarge"]}, {"name": "reservation-type", "values": ["capacity-block"]}],
    }
    template = result.named(TEMPLATE_NAME)
    assert template.inputs["instanceMarketOptions"] == {"marketType": "capacity-block"}
    node_group = result.named(GROUP_NAME)
    assert node_group.inputs["capacityType"] == "CAPACITY_BLOCK"
    assert node_group.inputs["scalingConfig"]["minSize"] == 0
    assert node_group.ignore_changes == ("scalingConfig.desiredSize",)


def test_an_existing_group_is_targeted_and_nothing_is_made(tmp_path):
    result = _preview(tmp_path, EXISTING)
    assert result.of_type("aws:resourcegroups/group:Group") == []
    assert _target(result) == {"capacityReservationResourceGroupArn": "arn:aws:resource-groups:us-east-2:123456789012:group/p5en-odcrs"}


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ("      reservation_ids: [cr-0123456789abcdef0]\n      group_arn: arn:aws:resource-groups:us-east-2:123456789012:group/x\n", "not both"),
        ("      capacity_blocks: false\n", "names neither"),
        ("      reservation_ids: [cr-0123456789abcdef0, cr-0123456789abcdef0]\n", "twice"),
        ("      reservation_ids: [cr-0123456789abcdef0]\n      capacity_blocks: true\n      placement_group: hpc\n", "without a placement group"),
    ],
)
def test_a_group_that_can_not_be_made_is_refused(tmp_path, members, message):
    path = edited_copy(EXAMPLE, tmp_path, (RESERVATION, "      kind: reservation_group\n" + members))
    [finding] = [f for f in validate(str(path)).findings if f.code == "capacity.group-members"]
    assert message in finding.message and finding.path_text.startswith("pools[0].capacity")


def test_a_group_in_another_zone_than_the_pool_is_refused_like_a_reservation(tmp_path):
    path = edited_copy(EXAMPLE, tmp_path, (GROUP[0], GROUP[1].replace("us-east-2a", "us-east-2b")))
    [finding] = [f for f in validate(str(path)).findings if f.code == "capacity.zone-mismatch"]
    assert "reservation group" in finding.message and finding.path_text == "pools[0].capacity.zone"
