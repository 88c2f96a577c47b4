"""The EKS Kubernetes version against EKS's release calendar, on the dates the blueprint itself names.

A version past its 14 months of standard support runs in extended support,
billed per cluster hour; past extended support EKS upgrades the cluster on
its own. The calendar is `blueprints/catalog/pins.yaml` (EKS user guide,
kubernetes-versions). Only the blueprint's own dates are used (the end of
each Capacity Block), never today's, so the same blueprint always gives the
same findings.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.catalog.pins import load_pins
from blueprints.findings import Finding, error, warning
from blueprints.rules.context import Context

CODES = ("k8s.version-unknown", "k8s.version-extended-support", "k8s.version-end-of-support", "k8s.version-skew", "k8s.held-version-new-group")
# A kubelet may be up to three minor versions older than kube-apiserver, never newer (Kubernetes version skew
# policy, kubernetes/website release-1.35 content/en/releases/version-skew-policy.md, "kubelet").
KUBELET_SKEW = 3


def minor(version: str) -> int:
    """The minor number of a `1.NN` Kubernetes version."""
    return int(version.split(".")[1])


def skew_findings(ctx: Context) -> Iterable[Finding]:
    """Each pool held at its own version is a managed node group on EKS's AMI, within the kubelet's skew of the cluster."""
    cluster = ctx.blueprint.kubernetes.version
    for index, pool in enumerate(ctx.blueprint.pools):
        held = pool.kubernetes_version
        if held is None:
            continue
        where = ("pools", index, "kubernetes_version")
        if pool.provisioner == "karpenter" or pool.ami_id is not None:
            who = "Karpenter resolves its AMI alias for the cluster's version" if pool.ami_id is None else "its custom AMI fixes the kubelet"
            yield error(
                "k8s.version-skew",
                where,
                f"pool '{pool.name}' holds kubernetes_version {held}, but {who}; only managed node groups on EKS's AMIs take a version",
                "drop kubernetes_version from this pool",
            )
            continue
        behind = minor(cluster) - minor(held)
        if not 0 <= behind <= KUBELET_SKEW:
            yield error(
                "k8s.version-skew",
                where,
                f"pool '{pool.name}' holds its nodes at Kubernetes {held} under a {cluster} control plane: a kubelet may not be newer "
                f"than the API server, nor more than {KUBELET_SKEW} minor versions older (Kubernetes version skew policy)",
                f"hold it at a version from 1.{max(minor(cluster) - KUBELET_SKEW, 0)} to {cluster}, or drop kubernetes_version to follow the cluster",
            )
        elif behind:
            # CreateNodegroup `version`: "By default, the Kubernetes version of the cluster is used, and this is the only
            # accepted specified value" (EKS API reference). Only `diff` knows which groups exist; it refuses the rest.
            yield warning(
                "k8s.held-version-new-group",
                where,
                f"pool '{pool.name}' holds its nodes at Kubernetes {held} under a {cluster} control plane: EKS creates node groups "
                f"only at the cluster's version, so the hold applies to this pool's node groups that already run {held}; "
                "creating one (a first deployment, a new pool, a group replaced or split off) is refused",
                "run `railyard diff` against the deployed blueprint before `pulumi up`: it names any held group the change would "
                "create or replace (`change.held-group-created`)",
            )


def check(ctx: Context) -> Iterable[Finding]:
    """The version is in the calendar, in standard support until every Capacity Block ends, and the pools within its skew."""
    yield from skew_findings(ctx)
    pins = load_pins()
    version = ctx.blueprint.kubernetes.version
    where = ("kubernetes", "version")
    entry = pins.eks_version(version)
    if entry is None:
        known = ", ".join(item.version for item in pins.kubernetes)
        yield warning(
            "k8s.version-unknown",
            where,
            f"Kubernetes {version} is not in the EKS release calendar railyard carries ({known}), so its support dates can't be checked",
            f"use one of {known}, or add the version with its dates and source to blueprints/catalog/pins.yaml",
        )
        return
    for pool in ctx.blueprint.pools:
        if pool.capacity.kind != "capacity_block" or pool.capacity.end is None:
            continue  # an unstated end is compared by `validate --online`
        ends = pool.capacity.end.date()
        if ends > entry.end_of_extended:
            yield error(
                "k8s.version-end-of-support",
                where,
                f"EKS ends all support for Kubernetes {version} on {entry.end_of_extended}, before pool '{pool.name}''s "
                f"Capacity Block ends ({ends}); EKS would upgrade the cluster during the block",
                f"use Kubernetes {pins.default_kubernetes}",
            )
        elif ends > entry.end_of_standard:
            yield warning(
                "k8s.version-extended-support",
                where,
                f"standard support for Kubernetes {version} ends on {entry.end_of_standard}, before pool '{pool.name}''s "
                f"Capacity Block ends ({ends}); the cluster would run in extended support, billed per hour",
                f"use Kubernetes {pins.default_kubernetes}",
            )
