"""NVLink across instances: where NVIDIA's DRA driver runs, and the ComputeDomain each NVLink pool gets.

A GB200 NVL72 UltraServer is 18 instances on one NVLink domain, but a job spanning them shares GPU memory
over NVLink only inside an IMEX domain. On EKS that domain is a `ComputeDomain` (`resource.nvidia.com/v1beta1`)
of NVIDIA's DRA driver for GPUs: a pod that claims the domain's channel gets an IMEX daemon started on its
node and the IMEX channel injected. The EKS user guide (awsdocs/amazon-eks-user-guide @00e3293d,
latest/ug/ml/ml-eks-nvidia-ultraserver.adoc) lists the driver among the components to install, says "DRA is
a requirement to use the P6e-GB200 UltraServers with EKS" and "DRA is not supported in Karpenter or EKS Auto
Mode", and that EKS supports these instances "for Kubernetes versions 1.33 and above".

The host side needs nothing from railyard: the AL2023 NVIDIA AMI at the pinned release (awslabs/amazon-eks-ami
v20260724, templates/al2023/provisioners/install-nvidia-driver.sh) installs the `nvidia-imex` package and
enables no `nvidia-imex` service, so the driver's own IMEX daemons are the only ones on the node (a host
daemon holding the channels is the conflict kubernetes-sigs/dra-driver-nvidia-gpu#524 describes).

Here: which pools need the driver, its kubelet plugin's placement (exactly those pools, their taints
tolerated, as the device plugins are placed), and one ComputeDomain per NVLink pool in the workload
namespace (the Kueue LocalQueue's: the scope jobs are submitted in). `numNodes: 0`: since driver 25.8.0
ComputeDomains are elastic, and with the default `IMEXDaemonsWithDNSNames` the field only drives the
status (the CRD's own description at v25.12.0). The compiler renders this in
`components.kubernetes.compute_domains`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from blueprints.catalog import Catalog
from blueprints.models import Blueprint
from blueprints.records import record
from topology.cluster.labels import POOL_LABEL
from topology.cluster.scheduling import Match, NodeGroupView, Placement, tolerations_for

COMPUTE_DOMAIN_API_VERSION = "resource.nvidia.com/v1beta1"
# The DeviceClasses the chart creates with `resources.computeDomains.enabled` (templates/deviceclass-compute-domain-*.yaml
# at v25.12.0): the IMEX daemon's device and the workload's channel 0. With `resources.gpus.enabled: false` it makes no
# `gpu.nvidia.com` class: GPUs stay with the device plugin, as the EKS guide's values say.
DEVICE_CLASSES = ("compute-domain-daemon.nvidia.com", "compute-domain-default-channel.nvidia.com")
# The Kubernetes version from which EKS supports P6e-GB200 UltraServers with DRA (the EKS guide's considerations).
MINIMUM_KUBERNETES = (1, 33)


def nvlink_pools(blueprint: Blueprint, catalog: Catalog) -> tuple[str, ...]:
    """The pools whose instance type's NVLink domain spans instances (p6e-gb200: 18), in blueprint order."""
    found = []
    for pool in blueprint.pools:
        spec = catalog.get(pool.instance_type)
        scale_up = spec.scale_up if spec is not None else None
        if scale_up is not None and scale_up.kind == "nvlink" and scale_up.instances_per_domain > 1:
            found.append(pool.name)
    return tuple(found)


def compute_domains_on(blueprint: Blueprint, catalog: Catalog) -> bool:
    """Whether the DRA driver is installed: as stated, else when some pool's NVLink domain spans instances."""
    stated = blueprint.kubernetes.compute_domains
    return stated if stated is not None else bool(nvlink_pools(blueprint, catalog))


@record
class ComputeDomain:
    """One ComputeDomain: its name and namespace, and the ResourceClaimTemplate the driver makes for its channel."""

    pool: str
    namespace: str

    @property
    def name(self) -> str:
        """`<pool>-nvlink`: one per pool, so it moves with nothing else."""
        return f"{self.pool}-nvlink"

    @property
    def channel_template(self) -> str:
        """The ResourceClaimTemplate a job's pods name in `resourceClaims[].resourceClaimTemplateName`."""
        return f"{self.name}-channel"

    def manifest(self) -> dict[str, Any]:
        """The object as the API server takes it (valid against the CRD's v1beta1 schema at the pinned chart)."""
        return {
            "apiVersion": COMPUTE_DOMAIN_API_VERSION,
            "kind": "ComputeDomain",
            "metadata": {"name": self.name, "namespace": self.namespace, "labels": {POOL_LABEL: self.pool}},
            "spec": {"numNodes": 0, "channel": {"resourceClaimTemplate": {"name": self.channel_template}, "allocationMode": "Single"}},
        }


@record
class ComputeDomainLayout:
    """The pools the driver's kubelet plugin serves, its placement, and the ComputeDomains."""

    pools: tuple[str, ...]
    placement: Placement
    domains: tuple[ComputeDomain, ...]


def lay_out_compute_domains(blueprint: Blueprint, catalog: Catalog, views: Sequence[NodeGroupView]) -> ComputeDomainLayout | None:
    """The driver's layout, or None when it is not installed (or no node group has an NVLink domain across instances)."""
    if not compute_domains_on(blueprint, catalog):
        return None
    pools = tuple(pool for pool in nvlink_pools(blueprint, catalog) if any(view.pool == pool for view in views))
    if not pools:
        return None
    served = [view for view in views if view.pool in pools]
    placement = Placement({}, ((Match(POOL_LABEL, "In", pools),),), tolerations_for(served))
    namespace = blueprint.kubernetes.workload_namespace
    return ComputeDomainLayout(pools, placement, tuple(ComputeDomain(pool, namespace) for pool in pools))
