"""railyard/conform/expected.py: what the running cluster should show, read off two examples' plans. p5's (the NVIDIA
and EFA device plugins' Helm releases, the DCGM exporter, the node gate keeper, the FSx node plugin, the node monitoring
agent) and ai-on-eks's (the GPU Operator's own DaemonSets over two pools, the Neuron plugin and neuron-monitor): every
DaemonSet each looks for, whole; what each node group's nodes advertise (GPUs, Neuron devices and cores, EFA devices,
nothing where no plugin serves the pool); each pool's switch-hop bound (a rail fabric's, none for AWS EFA or no fabric);
a pool's blueprint path; and which DaemonSet a want matches, each of namespace, release and name in turn."""

from __future__ import annotations

import dataclasses

import pytest

from blueprints.catalog import load_catalog
from railyard.conform.expected import DaemonSetWant, expect
from tests.conform.judges import planned, resized, with_groups

P5 = planned("p5-capacity-block.yaml")
AI = planned("ai-on-eks.yaml")
ALL_AI_POOLS = ("train", "gpu-inference", "neuron-inference")


def test_the_expectation_of_a_plan_names_the_cluster_and_indexes_the_pools():
    catalog = load_catalog()
    expected = expect(AI.blueprint, catalog, AI.plan)
    assert (expected.blueprint, expected.catalog, expected.plan) == (AI.blueprint, catalog, AI.plan)
    assert (expected.cluster, dict(expected.pool_index)) == ("ai-on-eks-prod", {"train": 0, "gpu-inference": 1, "neuron-inference": 2})
    assert [expected.path(pool) for pool in (*ALL_AI_POOLS, "system", "gone")] == [
        ("pools", 0),
        ("pools", 1),
        ("pools", 2),
        ("pools",),
        ("pools",),
    ]


def test_the_system_group_is_not_one_of_the_groups_judged():
    assert [group.name for group in P5.plan.node_groups] == ["system", "train-use1a"]
    assert [group.name for group in P5.groups] == ["train-use1a"]


def test_p5s_daemonsets_are_the_charts_releases_and_railyards_own():
    assert P5.daemonsets() == (
        DaemonSetWant("nvidia device plugin", "nvidia-device-plugin", ("train",), release="nvidia-device-plugin", name="nvidia-device-plugin"),
        DaemonSetWant("efa device plugin", "kube-system", ("train",), release="aws-efa-k8s-device-plugin"),
        DaemonSetWant("DCGM exporter", "dcgm-exporter", ("train",), release="dcgm-exporter"),
        DaemonSetWant("node gate keeper", "kube-system", ("train",), name="railyard-node-gates"),
        DaemonSetWant("FSx CSI node plugin", "kube-system", ("train",), name="fsx-csi-node"),
        DaemonSetWant("EKS node monitoring agent", "kube-system", ("train",), name="eks-node-monitoring-agent", exact=False),
    )


def test_ai_on_eks_daemonsets_are_the_gpu_operators_and_the_neuron_ones():
    assert AI.daemonsets() == (
        DaemonSetWant("NVIDIA device plugin (GPU Operator)", "gpu-operator", ("train", "gpu-inference"), name="nvidia-device-plugin-daemonset"),
        DaemonSetWant("efa device plugin", "kube-system", ("train",), release="aws-efa-k8s-device-plugin"),
        DaemonSetWant("neuron device plugin", "kube-system", ("neuron-inference",), release="neuron-helm-chart"),
        DaemonSetWant("DCGM exporter (GPU Operator)", "gpu-operator", ("train", "gpu-inference"), name="nvidia-dcgm-exporter"),
        DaemonSetWant("neuron-monitor", "kube-system", ("neuron-inference",), name="neuron-monitor"),
        DaemonSetWant("FSx CSI node plugin", "kube-system", ("train",), name="fsx-csi-node"),
        DaemonSetWant("EKS node monitoring agent", "kube-system", ALL_AI_POOLS, name="eks-node-monitoring-agent", exact=False),
    )


def test_without_the_node_monitoring_agent_and_with_a_plugin_on_no_pool_neither_is_looked_for():
    addons = AI.blueprint.kubernetes.addons
    off = addons.model_copy(update={"node_monitoring_agent": addons.node_monitoring_agent.model_copy(update={"enabled": False})})
    blueprint = AI.blueprint.model_copy(update={"kubernetes": AI.blueprint.kubernetes.model_copy(update={"addons": off})})
    layout = AI.plan.kubernetes
    # The EFA plugin, placed on no pool, sits between the GPU Operator and the Neuron plugin.
    plugins = tuple(dataclasses.replace(plugin, pools=()) if plugin.kind == "efa_device_plugin" else plugin for plugin in layout.plugins)
    plan = dataclasses.replace(AI.plan, kubernetes=dataclasses.replace(layout, plugins=plugins))
    labels = [want.label for want in dataclasses.replace(AI, blueprint=blueprint, plan=plan).daemonsets()]
    assert labels == [
        "NVIDIA device plugin (GPU Operator)",
        "neuron device plugin",
        "DCGM exporter (GPU Operator)",
        "neuron-monitor",
        "FSx CSI node plugin",
    ]


def test_the_node_monitoring_agent_covers_each_pool_once_however_many_groups_it_has():
    (agent,) = [want for want in AI.daemonsets() if want.label == "EKS node monitoring agent"]
    assert [group.pool for group in AI.groups] == ["train", "gpu-inference", "gpu-inference", "neuron-inference", "neuron-inference"]
    assert agent.pools == ALL_AI_POOLS


def _group(expected, pool: str):
    return next(group for group in expected.groups if group.pool == pool)


@pytest.mark.parametrize(
    ("pool", "devices"),
    [
        ("train", {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32}),
        ("gpu-inference", {"nvidia.com/gpu": 4}),
        ("neuron-inference", {"aws.amazon.com/neuron": 6, "aws.amazon.com/neuroncore": 12}),
    ],
)
def test_each_groups_nodes_advertise_the_devices_of_the_plugins_serving_its_pool(pool, devices):
    assert AI.allocatable(_group(AI, pool)) == devices


def test_a_pool_no_plugin_serves_advertises_nothing_judged():
    stray = resized(_group(AI, "train"), name="stray", pool="stray")
    assert with_groups(AI, stray).allocatable(stray) == {}


def test_the_efa_count_is_the_groups_interfaces_not_the_types():
    group = _group(P5, "train")
    fewer = resized(group, interfaces=group.interfaces[:9])
    assert P5.allocatable(fewer) == {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 8}


def test_a_pool_on_a_rail_fabric_is_bound_by_its_same_rail_hops_and_others_are_not():
    assert P5.hop_bound("train") == 3
    assert [AI.hop_bound(pool) for pool in (*ALL_AI_POOLS, "gone")] == [None, None, None, None]


@pytest.mark.parametrize(
    ("want", "namespace", "name", "release", "matches"),
    [
        (DaemonSetWant("x", "kube-system", ("p",), release="rel", name="ds"), "kube-system", "ds", "rel", True),
        (DaemonSetWant("x", "kube-system", ("p",), release="rel", name="ds"), "other", "ds", "rel", False),
        (DaemonSetWant("x", "kube-system", ("p",), release="rel", name="ds"), "kube-system", "ds", "another", False),
        (DaemonSetWant("x", "kube-system", ("p",), release="rel", name="ds"), "kube-system", "ds", None, False),
        (DaemonSetWant("x", "kube-system", ("p",), release="rel", name="ds"), "kube-system", "other", "rel", False),
        (DaemonSetWant("x", "kube-system", ("p",), release="rel"), "kube-system", "anything", "rel", True),
        (DaemonSetWant("x", "kube-system", ("p",), name="ds"), "kube-system", "ds", None, True),
        (DaemonSetWant("x", "kube-system", ("p",), name="ds"), "kube-system", "ds", "any-release", True),
    ],
    ids=["all-match", "namespace", "release", "no-release", "name", "any-name", "no-release-wanted", "release-not-wanted"],
)
def test_a_want_matches_its_namespace_and_the_release_and_name_it_names(want, namespace, name, release, matches):
    annotations = {"meta.helm.sh/release-name": release} if release else {}
    assert want.matches(namespace, name, annotations) is matches
    assert want.exact is True


def test_a_group_of_a_type_the_catalog_lacks_is_a_broken_plan_not_an_empty_expectation():
    with pytest.raises(AssertionError) as refused:
        AI.allocatable(resized(_group(AI, "train"), instance_type="zz9.unknown"))
    assert str(refused.value) == "a planned node group's type is in the catalog"
