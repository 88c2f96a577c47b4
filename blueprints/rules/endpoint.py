"""Whoever applies the Kubernetes layer must be able to reach the EKS API server.

The layer's Helm releases, volumes and Kueue objects are applied through the
cluster's API endpoint. With only the private endpoint, the API server is
reachable "from within the VPC or a connected network" (EKS user guide,
cluster-endpoint), and the VPC is made by the same program, so a `pulumi up`
that applies the layer in the cluster's stack can never reach it. Two ways
out, each a complete design (docs/endpoint-access.md):

1. the public endpoint, restricted to the deployer's CIDRs
   (`endpoint.public_access_cidrs`), private access on for the nodes;
2. `layer_stack: separate`: a second stack, run from inside the VPC or a
   connected network, applies the layer; `endpoint.private_access_cidrs`
   names that network, and the cluster security group lets it in on 443.

A blueprint that says neither gets the second design, with the VPC's own block
as the runner's network (`Blueprint.endpoint_runner_cidrs`), and a note saying
where the layer's stack must run: the defaults form a design railyard accepts.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, error, info, warning
from blueprints.rules.context import Context

CODES = ("endpoint.unreachable", "endpoint.none", "endpoint.runner-unreachable", "endpoint.runner-in-vpc", "endpoint.private-cidrs-unused")

WAYS_OUT = (
    "either open the public endpoint to the deployer's CIDRs (kubernetes.endpoint.public_access_cidrs: "
    "[<CI or VPN egress>/32]), or apply the layer from inside the VPC with kubernetes.layer_stack: separate "
    "and kubernetes.endpoint.private_access_cidrs: [<runner network>]"
)


def check(ctx: Context) -> Iterable[Finding]:
    """The endpoint's access against where the Kubernetes layer is applied from."""
    settings = ctx.blueprint.kubernetes
    endpoint = settings.endpoint
    where = ("kubernetes", "endpoint")
    if not endpoint.private and not endpoint.public_access_cidrs:
        yield error(
            "endpoint.none",
            (*where, "private"),
            "kubernetes.endpoint has private: false and no public_access_cidrs, so nothing could reach the API "
            "server (EKS refuses a cluster with neither endpoint)",
            "set private: true, and list public_access_cidrs if the deployer is outside the VPC",
        )
        return
    if settings.layer_stack == "same" and not endpoint.public_access_cidrs:
        yield error(
            "endpoint.unreachable",
            where,
            "the API endpoint is private only, and the cluster's own stack applies the Kubernetes layer: the "
            "machine running `pulumi up` is outside the VPC this same program creates, so every Helm release, "
            "volume and Kueue object would time out",
            WAYS_OUT,
        )
    runners = ctx.blueprint.endpoint_runner_cidrs()
    if settings.layer_stack == "separate" and not endpoint.public_access_cidrs and runners and not endpoint.private_access_cidrs:
        yield info(
            "endpoint.runner-in-vpc",
            (*where, "private_access_cidrs"),
            f"the Kubernetes layer is applied by its own stack (`pulumi up --stack <stack>-kubernetes`), which must run "
            f"inside this VPC: the cluster security group admits {runners[0]} (cloud.vpc_cidr) to the private endpoint on 443",
            "run the layer's stack from a runner in the VPC (CodeBuild, an SSM-managed instance, a self-hosted CI runner), "
            "or list its network in kubernetes.endpoint.private_access_cidrs, or open the public endpoint to your "
            "deployers with kubernetes.endpoint.public_access_cidrs and layer_stack: same (docs/endpoint-access.md)",
        )
    if settings.layer_stack == "separate" and not endpoint.public_access_cidrs and not runners:
        yield error(
            "endpoint.runner-unreachable",
            (*where, "private_access_cidrs"),
            "the Kubernetes layer is applied by its own stack, but the private endpoint admits only the "
            "cluster's own security group (its nodes); the stack's runner could not reach it",
            "list the runner's network (a subnet of this VPC, or a peered or VPN range) in kubernetes.endpoint.private_access_cidrs",
        )
    if endpoint.private_access_cidrs and not endpoint.private:
        yield warning(
            "endpoint.private-cidrs-unused",
            (*where, "private_access_cidrs"),
            "private_access_cidrs is set, but the private endpoint is off, so the rule it adds admits nothing",
            "set private: true, or drop private_access_cidrs",
        )
