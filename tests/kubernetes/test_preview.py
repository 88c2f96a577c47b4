"""The example previews: the Kubernetes layer checked against the node groups the same preview emits.

Each test reads two sides of one offline `run_preview`: the EKS node groups
(labels, taints, max size, as the AWS provider would receive them) and the
Kubernetes layer (Helm release values, Kueue objects), and checks one against
the other with its own small evaluator, not railyard's.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache

import pytest

from blueprints.catalog import load_catalog
from railyard.mocked import PreviewResult, run_preview
from tests.kubernetes.fixtures import example, example_path, p6_b200_text
from topology.cluster.labels import HOSTNAME_LABEL, POOL_LABEL

RELEASE = "kubernetes:helm.sh/v3:Release"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
LAYERS = [f"topology.k8s.aws/network-node-layer-{n}" for n in (1, 2, 3, 4)]
EKS_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}
DEVICE_CHARTS = {"nvidia-device-plugin", "gpu-operator", "aws-efa-k8s-device-plugin", "oci://public.ecr.aws/neuron/neuron-helm-chart"}


@cache
def preview(path: str) -> PreviewResult:
    result = run_preview(path, at=datetime(2026, 11, 24, tzinfo=UTC))
    assert result.ok, [finding.as_json() for finding in result.findings]
    assert result.of_type("railyard:kubernetes:KubernetesLayer"), "the program names KubernetesLayer but registered none"
    return result


def releases(result: PreviewResult) -> dict[str, dict]:
    return {resource.inputs["chart"]: resource.inputs for resource in result.of_type(RELEASE)}


def node_groups(result: PreviewResult) -> dict[str, list[dict]]:
    """Accelerator node groups by pool: labels, blocking taints (Kubernetes spelling), max size."""
    groups: dict[str, list[dict]] = {}
    for resource in result.of_type(NODE_GROUP):
        labels = resource.inputs["labels"]
        if labels[POOL_LABEL] == "system":
            continue
        taints = {(t["key"], t.get("value", ""), EKS_EFFECTS[t["effect"]]) for t in resource.inputs.get("taints", [])}
        groups.setdefault(labels[POOL_LABEL], []).append({"labels": labels, "taints": taints, "max": resource.inputs["scalingConfig"]["maxSize"]})
    return groups


def selected_pools(affinity: dict, groups: dict[str, list[dict]]) -> set[str]:
    """Pools whose every node group passes a required node affinity of `key In values` terms."""
    terms = affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]

    def passes(labels):
        return any(all(labels.get(e["key"]) in e["values"] for e in term["matchExpressions"]) for term in terms)

    return {pool for pool, found in groups.items() if all(passes(group["labels"]) for group in found)}


def tolerated(tolerations: list[dict]) -> set[tuple[str, str, str]]:
    return {(t["key"], t["value"], t["effect"]) for t in tolerations}


def pools_with(groups, predicate) -> set[str]:
    return {pool for pool, found in groups.items() if predicate(found[0]["labels"])}


def test_heterogeneous_preview_installs_nvidia_efa_and_neuron_plugins_and_nothing_else():
    charts = set(releases(preview(example_path("heterogeneous")))) & DEVICE_CHARTS
    assert charts == {"nvidia-device-plugin", "aws-efa-k8s-device-plugin", "oci://public.ecr.aws/neuron/neuron-helm-chart"}


def test_dev_preview_installs_no_efa_plugin():
    charts = set(releases(preview(example_path("dev-g6e")))) & DEVICE_CHARTS
    assert charts == {"nvidia-device-plugin"}


@pytest.mark.parametrize("name", ["heterogeneous", "dev-g6e", "p5-capacity-block"])
def test_plugin_selectors_and_tolerations_match_exactly_the_node_groups_they_serve(name):
    result = preview(example_path(name))
    groups, charts = node_groups(result), releases(result)
    nvidia = pools_with(groups, lambda labels: labels.get("nvidia.com/gpu.present") == "true")
    efa = pools_with(groups, lambda labels: labels.get("railyard.dev/efa") == "true")
    neuron = pools_with(groups, lambda labels: labels.get("railyard.dev/accelerator", "").startswith(("trainium", "inferentia")))

    def taints_of(pools):
        return {taint for pool in pools for group in groups[pool] for taint in group["taints"]}

    values = charts["nvidia-device-plugin"]["values"]
    assert selected_pools(values["affinity"], groups) == nvidia
    assert tolerated(values["tolerations"]) == taints_of(nvidia)
    if efa:
        values = charts["aws-efa-k8s-device-plugin"]["values"]
        assert set(values["supportedInstanceLabels"]["values"]) == efa and values["supportedInstanceLabels"]["keys"] == [POOL_LABEL]
        assert tolerated(values["tolerations"]) == taints_of(efa)
    if neuron:
        values = charts["oci://public.ecr.aws/neuron/neuron-helm-chart"]["values"]["devicePlugin"]
        assert selected_pools(values["affinity"], groups) == neuron
        assert tolerated(values["tolerations"]) == taints_of(neuron)


def pool_of(flavor_name: str) -> str:
    """A ResourceFlavor's pool: its name less the spec digest (`train-1a2b3c4d` -> `train`)."""
    pool, digest = flavor_name.rsplit("-", 1)
    assert len(digest) == 8 and int(digest, 16) >= 0
    return pool


def kueue_objects(result: PreviewResult, kind: str) -> dict[str, dict]:
    """Kueue objects of one kind by name; flavors by their pool."""
    name = pool_of if kind == "ResourceFlavor" else (lambda found: found)
    return {name(resource.inputs["metadata"]["name"]): resource.inputs["spec"] for resource in result.of_type(KUEUE + kind)}


def test_p5_preview_topology_is_three_network_layers_then_hostname():
    result = preview(example_path("p5-capacity-block"))
    flavor = kueue_objects(result, "ResourceFlavor")["train"]
    levels = [level["nodeLabel"] for level in kueue_objects(result, "Topology")[flavor["topologyName"]]["levels"]]
    assert levels == [*LAYERS[:3], HOSTNAME_LABEL]


def test_p6_b200_preview_topology_has_four_network_layers_and_quota_equals_its_gpus(tmp_path):
    path = tmp_path / "p6-b200.yaml"
    path.write_text(p6_b200_text())
    result = preview(str(path))
    flavor = kueue_objects(result, "ResourceFlavor")["train"]
    levels = [level["nodeLabel"] for level in kueue_objects(result, "Topology")[flavor["topologyName"]]["levels"]]
    assert levels == [*LAYERS, HOSTNAME_LABEL]
    assert quotas(result)["train"]["nvidia.com/gpu"] == str(sum(group["max"] for group in node_groups(result)["train"]) * 8)


def quotas(result: PreviewResult) -> dict[str, dict[str, str]]:
    (queue,) = kueue_objects(result, "ClusterQueue").values()
    (group,) = queue["resourceGroups"]
    return {pool_of(flavor["name"]): {r["name"]: r["nominalQuota"] for r in flavor["resources"]} for flavor in group["flavors"]}


@pytest.mark.parametrize("name", ["heterogeneous", "p5-capacity-block", "dev-g6e"])
def test_preview_quota_equals_the_accelerators_of_the_node_groups(name):
    result = preview(example_path(name))
    catalog = load_catalog()
    types = {pool.name: catalog.get(pool.instance_type) for pool in example(name).pools}
    for pool, found in node_groups(result).items():
        spec = types[pool]
        held = sum(group["max"] for group in found) * spec.accelerator_count
        assert quotas(result)[pool][spec.accelerator_resource] == str(held), pool
