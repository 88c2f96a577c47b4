"""The system node group's type and size: types from DescribeInstanceTypes (moto's dump), checked, planned and emitted."""

from __future__ import annotations

from pathlib import Path

from blueprints.catalog import load_catalog, system_types
from blueprints.loader import load_text
from railyard.mocked import run_preview
from tests.preview.conftest import AT
from tests.yaml_text import replace_once
from topology.cluster.node_groups import plan_node_groups

ROOT = Path(__file__).resolve().parents[2]
DEV = (ROOT / "blueprints" / "examples" / "dev-g6e.yaml").read_text()
RAIL = (ROOT / "blueprints" / "examples" / "rail-131k.yaml").read_text()


def with_system(text: str, settings: str) -> str:
    return replace_once(text, "kubernetes:\n", f"kubernetes:\n  system_nodes: {settings}\n")


def system_of(text: str):
    blueprint = load_text(text, "b.yaml").blueprint
    assert blueprint is not None
    return [group for group in plan_node_groups(blueprint, load_catalog()) if group.system]


def test_the_committed_file_is_what_moto_s_describe_instance_types_dump_says():
    assert system_types.main(["--check"]) == 0


def test_the_default_type_keeps_the_facts_the_hand_table_had():
    kind = system_types.load_system_types()["m7i.xlarge"]
    assert (kind.card_zero_interfaces, kind.ipv4_per_interface, kind.vcpus, kind.ami_type) == (4, 15, 4, "AL2023_x86_64_STANDARD")


def test_by_default_the_system_group_is_two_to_four_m7i_xlarge_over_every_zone():
    [group] = system_of(DEV)
    assert (group.instance_type, group.ami_type, group.min_size, group.desired_size, group.max_size) == (
        "m7i.xlarge",
        "AL2023_x86_64_STANDARD",
        2,
        2,
        4,
    )
    assert group.availability_zones == ("us-west-2a", "us-west-2b") and group.root_volume_gib == 50


def test_a_graviton_type_gets_the_arm_ami_and_the_sizes_asked_for():
    [group] = system_of(with_system(DEV, "{instance_type: m7g.2xlarge, min: 3, desired: 3, max: 6, root_volume_gib: 100}"))
    assert (group.instance_type, group.ami_type, group.min_size, group.desired_size, group.max_size) == (
        "m7g.2xlarge",
        "AL2023_ARM_64_STANDARD",
        3,
        3,
        6,
    )
    assert group.root_volume_gib == 100


def test_with_custom_networking_the_sizes_split_over_one_group_per_zone():
    groups = system_of(with_system(RAIL, "{instance_type: c7i.2xlarge, min: 3, desired: 3, max: 5}"))
    assert [(g.min_size, g.desired_size, g.max_size) for g in groups] == [(2, 2, 3), (1, 1, 2)]
    assert {g.instance_type for g in groups} == {"c7i.2xlarge"}


def test_an_unknown_type_and_sizes_out_of_order_are_refused():
    found = [(f.code, f.path_text) for f in load_text(with_system(DEV, "{instance_type: m7i.xlarg}"), "b.yaml").findings if f.is_error]
    assert found == [("k8s.system-type-unknown", "kubernetes.system_nodes.instance_type")]
    [message] = [f.message for f in load_text(with_system(DEV, "{instance_type: m7i.xlarg}"), "b.yaml").findings if f.is_error]
    assert "did you mean m7i.xlarge" in message
    found = [f.code for f in load_text(with_system(DEV, "{min: 3, desired: 2, max: 4}"), "b.yaml").findings if f.is_error]
    assert found == ["k8s.system-node-range"]


def test_the_preview_launches_the_system_type(tmp_path):
    path = tmp_path / "dev.yaml"
    path.write_text(with_system(DEV, "{instance_type: m7g.large}"))
    result = run_preview(str(path), at=AT)
    assert result.ok
    [template] = [t for t in result.of_type("aws:ec2/launchTemplate:LaunchTemplate") if "-system-" in t.name]
    [group] = [g for g in result.of_type("aws:eks/nodeGroup:NodeGroup") if g.inputs["nodeGroupName"] == "system"]
    assert (template.inputs["instanceType"], group.inputs["amiType"]) == ("m7g.large", "AL2023_ARM_64_STANDARD")
