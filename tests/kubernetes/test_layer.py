"""`KubernetesLayer` under recording Pulumi mocks: what the engine would be asked to create, offline."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
import pytest

from blueprints.catalog import load_catalog
from components.kubernetes import KubernetesLayer, KubernetesLayerArgs, plan_kubernetes
from tests.kubernetes.fixtures import FABRIC, example, load, mutate
from tests.kubernetes.mocks import run_program

CATALOG = load_catalog()
RELEASE = "kubernetes:helm.sh/v3:Release"


@dataclass(frozen=True)
class FileSystem:
    """Stands in for the storage component's FileSystemHandle."""

    id: str
    dns_name: str
    mount_name: str


LUSTRE = {"lustre": FileSystem("fs-0123456789abcdef0", "fs-0123456789abcdef0.fsx.us-east-2.amazonaws.com", "abcdefgh")}


def emit(blueprint, file_systems=LUSTRE, name="k8s"):
    plan = plan_kubernetes(blueprint, CATALOG)
    return run_program(lambda: KubernetesLayer(name, KubernetesLayerArgs(plan, kubeconfig="apiVersion: v1", file_systems=file_systems)))


def by_name(resources):
    return {resource.name: resource for resource in resources}


def test_heterogeneous_layer_registers_its_releases_and_kueue_objects_offline():
    resources = emit(example("heterogeneous"))
    releases = {resource.name: resource.inputs for resource in resources if resource.type == RELEASE}
    assert set(releases) == {
        "k8s-plugins-nvidia-device-plugin",
        "k8s-plugins-aws-efa-k8s-device-plugin",
        "k8s-plugins-neuron-helm-chart",
        "k8s-metrics-dcgm-exporter",
        "k8s-storage-fsx-csi-driver",
        "k8s-kueue-kueue",
    }
    assert not [resource for resource in resources if resource.type.startswith("kubernetes:helm.sh/v4")]
    kinds = sorted(resource.type for resource in resources if resource.type.startswith("kubernetes:kueue.x-k8s.io/"))
    assert kinds == sorted(
        ["kubernetes:kueue.x-k8s.io/v1beta2:Topology"] * 2
        + ["kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor"] * 3
        + ["kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue"]
    )
    assert by_name(resources)["k8s-provider"].inputs["kubeconfig"] == "apiVersion: v1"


def test_releases_are_pinned_and_carry_the_planned_values():
    blueprint = example("heterogeneous")
    plan = plan_kubernetes(blueprint, CATALOG)
    releases = by_name(emit(blueprint))
    nvidia = releases["k8s-plugins-nvidia-device-plugin"].inputs
    assert (nvidia["chart"], nvidia["version"], nvidia["name"]) == ("nvidia-device-plugin", "0.20.0", "nvidia-device-plugin")
    assert nvidia["repositoryOpts"] == {"repo": "https://nvidia.github.io/k8s-device-plugin"}
    assert nvidia["values"] == plan.plugin_releases["nvidia_device_plugin"].values
    neuron = releases["k8s-plugins-neuron-helm-chart"].inputs
    assert (neuron["chart"], neuron["version"], neuron["namespace"]) == ("oci://public.ecr.aws/neuron/neuron-helm-chart", "1.9.0", "kube-system")
    assert "repositoryOpts" not in neuron
    kueue = releases["k8s-kueue-kueue"].inputs
    assert (kueue["chart"], kueue["version"], kueue["namespace"], kueue["createNamespace"]) == (
        "oci://registry.k8s.io/kueue/charts/kueue",
        "0.19.2",
        "kueue-system",
        True,
    )


def test_fsx_tier_becomes_a_static_volume_and_a_claim_bound_to_it():
    resources = by_name(emit(example("heterogeneous")))
    volume = resources["k8s-storage-lustre-volume"].inputs
    assert volume["metadata"] == {"name": "fsx-lustre"}
    assert volume["spec"]["csi"] == {
        "driver": "fsx.csi.aws.com",
        "volumeHandle": "fs-0123456789abcdef0",
        "volumeAttributes": {"dnsname": "fs-0123456789abcdef0.fsx.us-east-2.amazonaws.com", "mountname": "abcdefgh"},
    }
    assert (volume["spec"]["capacity"], volume["spec"]["storageClassName"], volume["spec"]["accessModes"]) == (
        {"storage": "24000Gi"},
        "",
        ["ReadWriteMany"],
    )
    claim = resources["k8s-storage-lustre-claim"].inputs
    assert claim["metadata"] == {"name": "lustre", "namespace": "default"}
    assert (claim["spec"]["volumeName"], claim["spec"]["storageClassName"]) == ("fsx-lustre", "")


def test_cluster_queue_and_local_queue_carry_the_planned_spec():
    blueprint = example("heterogeneous")
    plan = plan_kubernetes(blueprint, CATALOG).kueue
    resources = by_name(emit(blueprint))
    queue = resources["k8s-kueue-cluster-queue"].inputs
    assert (queue["apiVersion"], queue["metadata"], queue["spec"]) == ("kueue.x-k8s.io/v1beta2", {"name": "hetero"}, plan.cluster_queue_spec())
    local = resources["k8s-kueue-local-queue"].inputs
    assert (local["metadata"], local["spec"]) == ({"name": "hetero", "namespace": "default"}, {"clusterQueue": "hetero"})
    flavor = resources["k8s-kueue-flavor-serve"].inputs["spec"]
    assert flavor["topologyName"] == "zone-hostname" and flavor["nodeLabels"] == {"railyard.dev/pool": "serve"}


def test_gpu_operator_gets_a_privileged_namespace_and_runs_without_driver_or_toolkit():
    blueprint = load(mutate("    - kind: nvidia_device_plugin\n", "    - kind: gpu_operator\n", FABRIC)).blueprint
    resources = by_name(emit(blueprint))
    namespace = resources["k8s-plugins-gpu-operator-namespace"].inputs
    assert namespace["metadata"] == {"name": "gpu-operator", "labels": {"pod-security.kubernetes.io/enforce": "privileged"}}
    operator = resources["k8s-plugins-gpu-operator"].inputs
    assert operator["createNamespace"] is False and operator["version"] == "v25.10.0"
    values = operator["values"]
    assert values["driver"] == {"enabled": False} and values["toolkit"] == {"enabled": False}
    # The operator's own DCGM exporter is the GPU metrics source: no second exporter release.
    assert values["dcgmExporter"] == {"enabled": True, "serviceMonitor": {"enabled": False}}
    assert "k8s-metrics-dcgm-exporter" not in resources
    assert (
        values["daemonsets"]["tolerations"]
        == values["node-feature-discovery"]["worker"]["tolerations"]
        == [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]
    )
    assert "k8s-plugins-nvidia-device-plugin" not in resources


def test_dev_example_registers_no_efa_plugin_and_no_storage():
    resources = emit(example("dev-g6e"), file_systems={})
    names = {resource.name for resource in resources if resource.type == RELEASE}
    assert names == {"k8s-plugins-nvidia-device-plugin", "k8s-metrics-dcgm-exporter", "k8s-kueue-kueue"}


def test_a_workload_namespace_other_than_default_is_created():
    text = mutate("kubernetes:\n", "kubernetes:\n  workload_namespace: ml\n", FABRIC)
    resources = by_name(emit(load(text).blueprint, file_systems={"lustre": LUSTRE["lustre"]}))
    assert resources["k8s-namespace"].inputs["metadata"] == {"name": "ml"}
    assert resources["k8s-storage-lustre-claim"].inputs["metadata"]["namespace"] == "ml"
    assert resources["k8s-kueue-local-queue"].inputs["metadata"]["namespace"] == "ml"


def test_layer_needs_a_file_system_for_every_mounted_tier():
    with pytest.raises(ValueError, match=r"no file system handle for FSx tier\(s\) \['lustre'\]"):
        emit(example("heterogeneous"), file_systems={})


def test_layer_needs_a_kubeconfig_or_a_provider():
    plan = plan_kubernetes(example("dev-g6e"), CATALOG)
    with pytest.raises(ValueError, match="kubeconfig or a kubernetes provider"):
        run_program(lambda: KubernetesLayer("k8s", KubernetesLayerArgs(plan)))


def test_helm_v4_chart_is_one_opaque_resource_under_mocks_which_is_why_releases_are_used():
    def program():
        provider = k8s.Provider("provider", kubeconfig="apiVersion: v1")
        return k8s.helm.v4.Chart(
            "chart",
            chart="nvidia-device-plugin",
            version="0.20.0",
            repository_opts=k8s.helm.v4.RepositoryOptsArgs(repo="https://nvidia.github.io/k8s-device-plugin"),
            values={"tolerations": []},
            opts=pulumi.ResourceOptions(provider=provider),
        )

    resources = run_program(program)
    assert [resource.type for resource in resources if resource.name != "provider"] == ["kubernetes:helm.sh/v4:Chart"]
