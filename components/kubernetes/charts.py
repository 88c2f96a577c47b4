"""The Helm charts the Kubernetes layer installs, each pinned to a version, with its source.

Charts are installed as `pulumi_kubernetes.helm.v3.Release` resources: a
custom resource whose inputs (chart, version, values) a preview records
without fetching anything. (`helm.v4.Chart` is a provider-side component: its
children are rendered by the provider, so a mocked preview sees one opaque
`kubernetes:helm.sh/v4:Chart` and would have to fetch the chart to see more;
tests/kubernetes/test_layer.py shows both under mocks.)

Bump a version here and nowhere else; the comment on each names where the
version and the value keys railyard sets were read.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chart:
    """A pinned Helm chart: repository (None for an OCI reference), chart name or OCI URL, version."""

    chart: str
    version: str
    repository: str | None
    namespace: str
    controller: bool = False


# NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin/Chart.yaml at
# 1b826acc6af3 (2026-08-19) says 0.20.0; values `affinity`, `tolerations`,
# `nodeSelector` are rendered verbatim by templates/daemonset-device-plugin.yml.
NVIDIA_DEVICE_PLUGIN = Chart("nvidia-device-plugin", "0.20.0", "https://nvidia.github.io/k8s-device-plugin", "nvidia-device-plugin")

# Helm repo from NVIDIA's install guide (docs.nvidia.com/datacenter/cloud-native/
# gpu-operator/latest/install-gpu-operator.html); v25.10.0 is the newest release
# seen installed (`nvidia/gpu-operator --version=v25.10.0`) in public cluster
# guides [secondary]. Values `driver.enabled`, `toolkit.enabled`,
# `daemonsets.tolerations`, `node-feature-discovery.worker.tolerations`: NVIDIA/
# gpu-operator deployments/gpu-operator/values.yaml (aws-facts.md 5.2).
GPU_OPERATOR = Chart("gpu-operator", "v25.10.0", "https://helm.ngc.nvidia.com/nvidia", "gpu-operator", controller=True)

# aws/eks-charts stable/aws-efa-k8s-device-plugin at 5239609242f3 (2026-08-03):
# chart 0.5.30 (aws-facts.md 5.4). templates/daemonset.yaml builds the required
# node affinity from `supportedInstanceLabels.keys` x `.values` and always adds
# a CriticalAddonsOnly toleration before `tolerations`.
EFA_DEVICE_PLUGIN = Chart("aws-efa-k8s-device-plugin", "0.5.30", "https://aws.github.io/eks-charts", "kube-system")

# aws-neuron/neuron-helm-charts: `helm show values oci://public.ecr.aws/neuron/
# neuron-helm-chart --version 1.10.0` (2026-09) lists trn2/trn2u/inf2 in
# `neuronInstances` and renders `devicePlugin.affinity`/`.tolerations`
# (templates/device-plugin/device-plugin-daemonset.yaml, _helpers.tpl).
NEURON = Chart("oci://public.ecr.aws/neuron/neuron-helm-chart", "1.10.0", None, "kube-system")

# kubernetes-sigs/aws-fsx-csi-driver chart 1.17.0 (driver v1.9.0), the pin
# aws/sagemaker-hyperpod-cli#453 deployed (2026-09-01). templates/node-daemonset.yaml
# renders `node.affinity`, and `node.tolerations` unless `node.tolerateAllTaints`.
FSX_CSI_DRIVER = Chart("aws-fsx-csi-driver", "1.17.0", "https://kubernetes-sigs.github.io/aws-fsx-csi-driver", "kube-system", controller=True)

# kubernetes-sigs/kueue CHANGELOG/CHANGELOG-0.19.md: v0.19.7 is the newest
# patch of the last minor that serves both kueue.x-k8s.io/v1beta1 and v1beta2
# (v0.20.0 drops v1beta1; Topology left v1alpha1 in v0.14.0). Chart from
# `oci://registry.k8s.io/kueue/charts/kueue` (site/content/en/docs/installation).
KUEUE = Chart("oci://registry.k8s.io/kueue/charts/kueue", "0.19.7", None, "kueue-system", controller=True)

# The Kueue API version railyard writes: served from v0.15 on, the only one from v0.20.
KUEUE_API_VERSION = "kueue.x-k8s.io/v1beta2"

# The CSI driver name of the FSx for Lustre driver (aws-facts.md 3.8).
FSX_CSI_DRIVER_NAME = "fsx.csi.aws.com"
