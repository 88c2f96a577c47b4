"""The preview as a whole: tree shape, wire names, determinism, scaling, outputs and refusal."""

import json

import pytest
from pulumi.runtime import settings

from railyard.cli import main
from railyard.mocked import run_preview
from tests.preview.conftest import ROOT, preview_of, write_stack

COMPONENT_TYPES = {
    "railyard:network:Network",
    "railyard:placement:Placement",
    "railyard:cluster:Cluster",
    "railyard:cluster:Addons",
    "railyard:compute:NodePool",
    "railyard:storage:Storage",
    "railyard:kubernetes:KubernetesLayer",
    "railyard:kubernetes:DevicePlugins",
    "railyard:kubernetes:AcceptanceGates",
    "railyard:kubernetes:ClusterStorage",
    "railyard:kubernetes:AcceleratorMetrics",
    "railyard:kubernetes:KueueScheduling",
    "railyard:kubernetes:NodeGates",
}


def test_every_resource_is_parented_to_a_component_named_after_it(p5, hetero, dev_g6e, rail):
    for result in (p5, hetero, dev_g6e, rail):
        components = {r.urn: r for r in result.resources if r.is_component}
        assert {c.type for c in components.values()} <= COMPONENT_TYPES
        for resource in result.resources:
            top_level = resource.is_component or resource.type == "pulumi:providers:aws"
            if top_level and resource.parent not in components:
                assert resource.parent.split("::")[-2] == "pulumi:pulumi:Stack"
                continue
            parent = components[resource.parent]
            assert resource.name.startswith(parent.name + "-"), resource.name


def _keys(value):
    """Every mapping key at any depth, skipping user data (tags and labels, whose keys are the user's, and a ConfigMap's
    data, whose keys are file names)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            if key not in ("tags", "labels", "data"):
                yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


def test_inputs_use_the_engines_camel_case_names_at_every_depth(p5):
    for resource in p5.resources:
        assert not [key for key in _keys(resource.inputs) if "_" in key], resource.name
    interface = p5.named("p5-train-prod-train-use1a-template").inputs["networkInterfaces"][1]
    assert set(interface) == {"deleteOnTermination", "deviceIndex", "interfaceType", "networkCardIndex", "securityGroups"}


def test_the_same_blueprint_gives_byte_identical_json(capsys):
    path = str(ROOT / "blueprints/examples/heterogeneous.yaml")
    assert main(["preview", path, "--json"]) == 0
    first = capsys.readouterr().out
    assert main(["preview", path, "--json"]) == 0
    assert capsys.readouterr().out == first
    document = json.loads(first)
    assert set(document) == {"resources", "outputs", "kubernetesStack"}  # heterogeneous applies its layer from its own stack
    assert document["kubernetesStack"]["stack"] == "preview-kubernetes"
    assert set(document["resources"][0]) == {"urn", "type", "name", "parent", "inputs"}


@pytest.mark.parametrize("example", sorted(path.stem for path in (ROOT / "blueprints/examples").glob("*.yaml")))
def test_every_example_previews(example):
    result = preview_of(example)
    assert result.ok and result.resources and result.outputs["clusterName"]


def test_resources_grow_with_node_groups_not_nodes(rail, tmp_path):
    small = run_preview(
        None,
        "small",
        write_stack(tmp_path, "small", "rail-131k.yaml", "    pools: [{name: frontier, nodes: 2, placement: {max_failure_share: 1.0}}]\n"),
    )
    assert small.ok
    big = [r for r in rail.resources if r.urn.startswith("urn:pulumi:preview::")]
    groups = lambda resources: len([r for r in resources if r.type == "aws:eks/nodeGroup:NodeGroup"])  # noqa: E731
    assert (groups(small.resources), groups(big)) == (3, 18)  # 16,384 nodes: one group per block, 2 system groups
    # Each extra node group is one launch template, one node group and its pod subnet with its route; nothing else grows.
    assert len(big) - len(small.resources) == 4 * (groups(big) - groups(small.resources))
    assert small.named("rail131k-prod-frontier-campus").inputs["scalingConfig"]["maxSize"] == 2


def test_outputs_name_the_cluster_node_groups_and_file_systems(p5):
    outputs = p5.outputs
    assert outputs["clusterName"] == "p5-train-prod" and outputs["clusterEndpoint"].startswith("https://")
    assert outputs["kubeconfig"] == "[secret]"
    assert outputs["nodeGroupNames"] == ["system", "train-use1a"]
    assert set(outputs["fileSystems"]["lustre"]) == {"id", "dnsName", "mountName", "mountPath"}
    assert outputs["certificateAuthority"]


@pytest.fixture
def invalid_project(tmp_path):
    # 65 instances is more than a Capacity Block holds.
    return write_stack(tmp_path, "broken", "p5-capacity-block.yaml", "    pools: [{name: train, capacity: {instance_count: 65}}]\n")


def test_an_invalid_blueprint_registers_zero_resources(invalid_project):
    result = run_preview(None, "broken", invalid_project)
    assert not result.ok and result.resources == [] and result.outputs == {}
    assert "capacity.block-too-large" in {finding.code for finding in result.findings}


def test_the_cli_prints_the_findings_and_exits_1(invalid_project, capsys):
    assert main(["preview", "--stack", "broken", "--project-dir", str(invalid_project)]) == 1
    out = capsys.readouterr().out
    assert "[capacity.block-too-large]" in out and "no resource was registered" in out


def test_a_preview_leaves_the_callers_pulumi_runtime_alone(p5):
    before = settings.get_root_resource()
    preview_of("dev-g6e")
    assert settings.get_root_resource() is before


def test_the_human_preview_groups_by_component_with_placement_reasons(capsys):
    assert main(["preview", str(ROOT / "blueprints/examples/p5-capacity-block.yaml")]) == 0
    out = capsys.readouterr().out
    assert "railyard:compute:NodePool  p5-train-prod-train  (3 resources)" in out
    assert "1 interface + 32 efa-only (cards 0-31)" in out
    assert "placement decisions" in out and "Capacity Block cr-0a1b2c3d4e5f60718" in out


def test_a_cluster_nothing_could_reach_is_refused_before_any_resource(tmp_path):
    project = write_stack(tmp_path, "sealed", "dev-g6e.yaml", "    kubernetes: {endpoint: {private: false}}\n")
    result = run_preview(None, "sealed", project)
    assert not result.ok and result.resources == []
    (finding,) = [f for f in result.findings if f.code == "endpoint.none"]
    assert "nothing could reach the API server" in finding.message and finding.file.endswith("Pulumi.sealed.yaml")


def test_human_preview_shows_chart_versions_kueue_levels_and_quotas(p5):
    from railyard.commands.preview import render

    text = render(p5)
    assert "nvidia-device-plugin 0.20.0 in nvidia-device-plugin" in text
    assert (
        "topology.k8s.aws/network-node-layer-1 > topology.k8s.aws/network-node-layer-2 > "
        "topology.k8s.aws/network-node-layer-3 > kubernetes.io/hostname"
    ) in text
    assert "train: nvidia.com/gpu=512" in text  # 64 p5 x 8 H100
    assert "railyard.dev/pool=train  topology=aws-network-3  tolerates=nvidia.com/gpu" in text


def test_a_mocked_run_skips_the_runtimes_stack_walk_and_gives_it_back():
    """railyard.mocked stands in for the pinned SDK's `_get_stack_trace` during a run (no engine reads the stack) and
    restores it: a renamed SDK function fails here, not silently."""
    from pulumi.runtime import resource as runtime_resource

    real = runtime_resource._get_stack_trace
    assert (real.__module__, real.__name__) == ("pulumi.runtime.resource", "_get_stack_trace")  # the SDK's own
    assert preview_of("dev-g6e").ok
    assert runtime_resource._get_stack_trace is real
