"""Scale-up domains that span hosts (an NVL72 rack, a Trn2 UltraServer) come whole.

A pool whose NVLink / NeuronLink domain spans several hosts is bought and
placed in whole domains: an UltraServer Capacity Block is whole UltraServers,
and an NVL72 rack's 18 compute trays share one NVLink fabric. A pool that is
not a whole number of domains leaves hosts cut off from the rest of theirs;
`spread: racks` puts each domain in one rack, so the racks must hold one.

An NVLink domain that spans hosts (a GB200 NVL72 UltraServer) also needs software railyard does not install: GPU
memory is shared between instances over NVLink only inside an IMEX domain (NVIDIA's Internode Memory Exchange), which
on EKS NVIDIA's DRA driver creates for each job that claims a ComputeDomain. Without it a job spanning instances
talks between them over EFA alone. The driver is among the components to install in the EKS user guide,
ml-eks-nvidia-ultraserver at awsdocs/amazon-eks-user-guide@00e3293d; it says "NVIDIA DRA driver: Enables
ComputeDomain custom resources that facilitate creation of IMEX domains that follow workloads running on P6e-GB200
UltraServers". railyard installs it with a ComputeDomain per such pool (`kubernetes.compute_domains`, on by default
for them: topology/cluster/compute_domains.py); where a blueprint turns it off, `validate` warns (`pool.nvlink-imex`).
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, error, warning
from blueprints.rules.context import Context

CODES = ("pool.scale-up-partial", "placement.scale-up-rack", "pool.nvlink-imex")
EKS_ULTRASERVER_GUIDE = "https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html"


def check(ctx: Context) -> Iterable[Finding]:
    """Pools are whole scale-up domains at every size they state; racks hold a domain where spread puts one in each;
    an NVLink domain across hosts with ComputeDomains off is said to need IMEX."""
    for pi, pool in enumerate(ctx.blueprint.pools):
        kind, hosts = ctx.scale_up_domain(pool)
        if hosts == 1:
            continue
        if kind == "nvlink" and ctx.blueprint.kubernetes.compute_domains is False:
            yield _no_imex(pool.name, pool.instance_type, hosts, pi)
        sizes = {"max": pool.max_nodes, "desired": pool.desired_nodes}
        partial = {name: size for name, size in sizes.items() if size % hosts}
        if partial:
            stated = ", ".join(f"{name} {size}" for name, size in partial.items())
            yield error(
                "pool.scale-up-partial",
                ("pools", pi, "nodes"),
                f"pool '{pool.name}' ({pool.instance_type}) has a {kind} domain of {hosts} hosts, but its node count ({stated}) is not a "
                f"whole number of domains, so some hosts would be cut off from the rest of theirs",
                f"make the node counts multiples of {hosts} (an UltraServer or NVL72 rack is bought and placed whole)",
                hosts_per_domain=hosts,
                nodes=partial,
            )
        if pool.placement.spread != "racks":
            continue
        small = sorted({block.name for _, block in ctx.pool_blocks(pool) if block.hosts_per_rack is not None and block.hosts_per_rack < hosts})
        if small:
            yield error(
                "placement.scale-up-rack",
                ("pools", pi, "placement", "spread"),
                f"pool '{pool.name}' spreads over racks, one {kind} domain of {hosts} hosts in each, but the racks of blocks {small} "
                f"hold fewer than {hosts} hosts",
                f"use racks of at least {hosts} hosts (hosts_per_rack), or spread over blocks",
                hosts_per_domain=hosts,
                blocks=small,
            )


def _no_imex(pool: str, instance_type: str, hosts: int, index: int) -> Finding:
    """The warning that a pool's NVLink domain spans hosts and railyard installs no IMEX for it."""
    return warning(
        "pool.nvlink-imex",
        ("pools", index, "instance_type"),
        f"pool '{pool}' ({instance_type}) has NVLink domains of {hosts} hosts, but kubernetes.compute_domains is false, so no IMEX: a job spanning "
        "instances reaches the other instances' GPUs over NVLink only inside an IMEX domain, and without one its traffic "
        "between instances goes over EFA",
        "remove kubernetes.compute_domains: false (railyard then installs NVIDIA's DRA driver, chart nvidia-dra-driver-gpu, and a "
        f"ComputeDomain per such pool), or install it yourself and give each multi-instance job a ComputeDomain, as {EKS_ULTRASERVER_GUIDE} shows",
        hosts_per_domain=hosts,
    )
