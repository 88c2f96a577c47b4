"""NVIDIA's DRA driver for GPUs and the ComputeDomains of NVLink pools, rendered from the check stage's layout.

`topology.cluster.compute_domains` decides which pools the driver's kubelet plugin serves and the
ComputeDomain of each; here the release's values are those the EKS user guide gives for P6e-GB200
(ml-eks-nvidia-ultraserver.adoc @00e3293d, "Install NVIDIA DRA driver"), with the kubelet plugin's
affinity and tolerations placed on the NVLink pools the way every device plugin is:

* `resources.gpus.enabled: false`: GPUs stay with the device plugin (the chart at v25.12.0 refuses to
  render with GPUs on unless `gpuResourcesEnabledOverride` is also set, since the two would fight over the
  node's GPUs: templates/validation.yaml); `resources.computeDomains.enabled: true`;
* `controller.nodeSelector: null`, `affinity: null`, `tolerations: []`: the chart's default affinity asks
  for a control-plane node, which an EKS cluster doesn't show, so the controller would never schedule;
  it then runs on the untainted system nodes.

The chart creates the DeviceClasses (`DEVICE_CLASSES`) and the ComputeDomain CRD; each ComputeDomain waits
for the release, and is replaced, never updated, on a change (the CRD makes its spec immutable:
`self == oldSelf`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from components.kubernetes import charts
from components.kubernetes.releases import ReleasePlan, emit_release
from topology.cluster.compute_domains import ComputeDomainLayout


def dra_driver_values(layout: ComputeDomainLayout) -> dict[str, Any]:
    """The chart values: the EKS guide's, with the kubelet plugin on exactly the NVLink pools."""
    return {
        "resources": {"gpus": {"enabled": False}, "computeDomains": {"enabled": True}},
        "controller": {"nodeSelector": None, "affinity": None, "tolerations": []},
        "kubeletPlugin": {"affinity": layout.placement.affinity(), "tolerations": layout.placement.tolerations_k8s()},
    }


def dra_driver_release(layout: ComputeDomainLayout) -> ReleasePlan:
    """The driver's Helm release, in its own namespace (the chart refuses `default`)."""
    return ReleasePlan("nvidia-dra-driver-gpu", "nvidia-dra-driver-gpu", charts.NVIDIA_DRA_DRIVER, dra_driver_values(layout))


class ComputeDomains(pulumi.ComponentResource):
    """The DRA driver's release and one ComputeDomain per NVLink pool (`railyard:kubernetes:ComputeDomains`).

    Children: `<name>-nvidia-dra-driver-gpu` (the release) and `<name>-<pool>` (each ComputeDomain).
    """

    def __init__(
        self,
        name: str,
        layout: ComputeDomainLayout,
        provider: pulumi.ProviderResource,
        depends_on: Sequence[pulumi.Resource] = (),
        opts: pulumi.ResourceOptions | None = None,
        system_nodes: Sequence[pulumi.Resource] = (),
    ):
        super().__init__("railyard:kubernetes:ComputeDomains", name, None, opts)
        self.release = emit_release(name, self, dra_driver_release(layout), provider, system_nodes)
        after = pulumi.ResourceOptions(parent=self, provider=provider, depends_on=[self.release, *depends_on], replace_on_changes=["spec"])
        self.domains = {}
        for domain in layout.domains:
            manifest = domain.manifest()
            self.domains[domain.pool] = k8s.apiextensions.CustomResource(
                f"{name}-{domain.pool}",
                api_version=manifest["apiVersion"],
                kind=manifest["kind"],
                metadata=manifest["metadata"],
                spec=manifest["spec"],
                opts=after,
            )
        self.register_outputs({"compute_domains": {domain.pool: f"{domain.namespace}/{domain.name}" for domain in layout.domains}})
