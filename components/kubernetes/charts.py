"""The Helm charts the Kubernetes layer installs, each pinned to a version, with its source.

Charts are installed as `pulumi_kubernetes.helm.v3.Release` resources: a
custom resource whose inputs (chart, version, values) a preview records
without fetching anything. (`helm.v4.Chart` is a provider-side component: its
children are rendered by the provider, so a mocked preview sees one opaque
`kubernetes:helm.sh/v4:Chart` and would have to fetch the chart to see more;
tests/kubernetes/test_layer.py shows both under mocks.)

Versions live in `blueprints/catalog/pins.yaml`, each with where it was seen
published; bump one there and nowhere else.
"""

from __future__ import annotations

from blueprints.catalog.pins import load_pins
from blueprints.records import record


@record
class Chart:
    """A pinned Helm chart: repository (None for an OCI reference), chart name or OCI URL, version."""

    chart: str
    version: str
    repository: str | None
    namespace: str
    controller: bool = False


def _pinned(key: str) -> Chart:
    pin = load_pins().chart(key)
    return Chart(pin.chart, pin.version, pin.repository, pin.namespace, pin.controller)


# Versions and their sources: blueprints/catalog/pins.yaml (docs/pins.md). The value keys railyard sets:
# nvidia-device-plugin renders `affinity`, `tolerations`, `nodeSelector` verbatim
# (templates/daemonset-device-plugin.yml); the GPU Operator takes `driver.enabled`, `toolkit.enabled`,
# `daemonsets.tolerations`, `node-feature-discovery.worker.tolerations` (aws-facts.md 5.2); the EFA
# chart builds its required affinity from `supportedInstanceLabels.keys` x `.values` and always adds
# CriticalAddonsOnly (templates/daemonset.yaml); the Neuron chart renders `devicePlugin.affinity`,
# `.tolerations`, `.nodeSelector`, `neuronInstances`, `scheduler.enabled`; the FSx CSI chart renders
# `node.affinity`, and `node.tolerations` unless `node.tolerateAllTaints` (templates/node-daemonset.yaml).
NVIDIA_DEVICE_PLUGIN = _pinned("nvidia_device_plugin")
GPU_OPERATOR = _pinned("gpu_operator")
EFA_DEVICE_PLUGIN = _pinned("efa_device_plugin")
NEURON = _pinned("neuron")
FSX_CSI_DRIVER = _pinned("fsx_csi_driver")
# karpenter renders `settings.clusterName` (required), `settings.interruptionQueue` (the SQS queue's name),
# `serviceAccount.name`, `replicas` and `controller.resources` (charts/karpenter/values.yaml at v1.14.1).
KARPENTER = _pinned("karpenter")
KUEUE = _pinned("kueue")
# nvidia-dra-driver-gpu renders `resources.gpus.enabled`, `resources.computeDomains.enabled`, `controller.nodeSelector`,
# `.affinity`, `.tolerations` and `kubeletPlugin.affinity`, `.tolerations` (deployments/helm/nvidia-dra-driver-gpu at v25.12.0).
NVIDIA_DRA_DRIVER = _pinned("nvidia_dra_driver")
# dcgm-exporter renders `affinity`, `tolerations`, `podAnnotations` and `serviceMonitor.enabled` (deployment/values.yaml).
DCGM_EXPORTER = _pinned("dcgm_exporter")

# The Kueue API version railyard writes: the storage version of the v0.19 CRDs, the only one served from v0.20.
KUEUE_API_VERSION = "kueue.x-k8s.io/v1beta2"

# The CSI driver name of the FSx for Lustre driver (aws-facts.md 3.8).
FSX_CSI_DRIVER_NAME = "fsx.csi.aws.com"
