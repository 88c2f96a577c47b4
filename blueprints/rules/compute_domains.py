"""An NVLink domain across instances runs on what can run NVIDIA's DRA driver: Kubernetes 1.33+, not Karpenter.

A GB200 NVL72 pool gets its IMEX domains from NVIDIA's DRA driver (`kubernetes.compute_domains`, on by
default for such a pool). The EKS user guide's P6e-GB200 page (awsdocs/amazon-eks-user-guide @00e3293d,
latest/ug/ml/ml-eks-nvidia-ultraserver.adoc, Considerations) says: "Amazon EKS supports P6e-GB200
UltraServers for Kubernetes versions 1.33 and above"; "DRA is a requirement to use the P6e-GB200
UltraServers with EKS"; "DRA is not supported in Karpenter or EKS Auto Mode, and it is recommended to use
EKS self-managed node groups or EKS managed node groups". railyard has no Auto Mode pools, so the compute
type refused here is Karpenter.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, error
from blueprints.models.pools import Pool
from blueprints.rules.context import Context

CODES = ("k8s.dra-version", "pool.dra-karpenter")
EKS_ULTRASERVER_GUIDE = "https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html"
MINIMUM_MINOR = 33


def check(ctx: Context) -> Iterable[Finding]:
    """A pool whose NVLink domain spans instances, with ComputeDomains on, needs Kubernetes 1.33+ and a managed node group."""
    if ctx.blueprint.kubernetes.compute_domains is False:
        return  # scale_up's pool.nvlink-imex says what is lost
    pools = [(index, pool) for index, pool in enumerate(ctx.blueprint.pools) if _spans_instances(ctx, pool)]
    if not pools:
        return
    version = ctx.blueprint.kubernetes.version
    if int(version.split(".")[1]) < MINIMUM_MINOR:
        names = [pool.name for _, pool in pools]
        yield error(
            "k8s.dra-version",
            ("kubernetes", "version"),
            f"kubernetes {version} can't run NVIDIA's DRA driver for the NVLink domains of pool(s) {names}: EKS supports "
            f"P6e-GB200 UltraServers for Kubernetes 1.{MINIMUM_MINOR} and above, the first with Dynamic Resource Allocation "
            f'on by default, and "DRA is a requirement" ({EKS_ULTRASERVER_GUIDE})',
            f'set kubernetes.version to "1.{MINIMUM_MINOR}" or later (EKS upgrades a running cluster one minor version at a time)',
            pools=names,
        )
    for index, pool in pools:
        if pool.provisioner == "karpenter":
            yield error(
                "pool.dra-karpenter",
                ("pools", index, "provisioner"),
                f"pool '{pool.name}' ({pool.instance_type}) is provisioned by Karpenter, but its NVLink domains need NVIDIA's DRA "
                f'driver and the EKS user guide says "DRA is not supported in Karpenter or EKS Auto Mode" ({EKS_ULTRASERVER_GUIDE})',
                "set provisioner: managed_node_group (the guide recommends managed or self-managed node groups for P6e-GB200)",
            )


def _spans_instances(ctx: Context, pool: Pool) -> bool:
    """True when the pool's scale-up domain is NVLink across more than one instance."""
    kind, hosts = ctx.scale_up_domain(pool)
    return kind == "nvlink" and hosts > 1
