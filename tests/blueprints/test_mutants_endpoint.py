"""Whoever applies the Kubernetes layer must reach the EKS API server (`blueprints/rules/endpoint.py`).

Each of the five codes from the settings that make it and the ones next to them that don't: no endpoint at all, a
private-only endpoint applied from the cluster's own stack, a separate layer stack with the VPC as its runner's network
(the default), with no runner network, with its own, and private CIDRs on a private endpoint that is off. Each case
builds its blueprint in memory and calls the rule.
"""

from __future__ import annotations

from blueprints.models import Blueprint
from blueprints.rules import endpoint
from blueprints.rules.context import Context
from tests.topology.factory import CATALOG, document, pool

WAYS_OUT = (
    "either open the public endpoint to the deployer's CIDRs (kubernetes.endpoint.public_access_cidrs: "
    "[<CI or VPN egress>/32]), or apply the layer from inside the VPC with kubernetes.layer_stack: separate "
    "and kubernetes.endpoint.private_access_cidrs: [<runner network>]"
)
PUBLIC = {"public_access_cidrs": ["203.0.113.0/24"]}


def _found(layer_stack: str, **settings: object) -> list[tuple[object, ...]]:
    data = document([{"name": "za", "availability_zone": "us-east-1a"}], [pool("web", "p5.48xlarge", 2, ["za"])])
    data["kubernetes"] = {"layer_stack": layer_stack, "endpoint": settings}
    model = Blueprint.model_validate(data)
    return [(f.code, f.severity, f.path, f.message, f.hint) for f in endpoint.check(Context(blueprint=model, catalog=CATALOG))]


def test_no_private_and_no_public_endpoint_is_refused_and_nothing_else_is_said() -> None:
    assert _found("separate", private=False, private_access_cidrs=["10.0.0.0/16"]) == [
        (
            "endpoint.none",
            "error",
            ("kubernetes", "endpoint", "private"),
            "kubernetes.endpoint has private: false and no public_access_cidrs, so nothing could reach the API "
            "server (EKS refuses a cluster with neither endpoint)",
            "set private: true, and list public_access_cidrs if the deployer is outside the VPC",
        )
    ]


def test_a_public_endpoint_alone_is_an_endpoint_and_private_cidrs_beside_it_are_unused() -> None:
    assert _found("same", private=False, **PUBLIC) == []
    assert _found("same", private=False, private_access_cidrs=["10.0.0.0/16"], **PUBLIC) == [
        (
            "endpoint.private-cidrs-unused",
            "warning",
            ("kubernetes", "endpoint", "private_access_cidrs"),
            "private_access_cidrs is set, but the private endpoint is off, so the rule it adds admits nothing",
            "set private: true, or drop private_access_cidrs",
        )
    ]


def test_a_private_only_endpoint_applied_from_the_clusters_own_stack_is_unreachable() -> None:
    assert _found("same") == [
        (
            "endpoint.unreachable",
            "error",
            ("kubernetes", "endpoint"),
            "the API endpoint is private only, and the cluster's own stack applies the Kubernetes layer: the "
            "machine running `pulumi up` is outside the VPC this same program creates, so every Helm release, "
            "volume and Kueue object would time out",
            WAYS_OUT,
        )
    ]
    assert _found("same", private_access_cidrs=["10.0.0.0/16"])[0][0] == "endpoint.unreachable"


def test_the_clusters_own_stack_with_a_public_endpoint_is_reachable() -> None:
    assert _found("same", **PUBLIC) == []


def test_a_separate_stack_with_no_runner_network_named_runs_in_the_vpc_and_says_so() -> None:
    [(code, severity, path, message, hint)] = _found("separate")
    assert (code, severity, path) == ("endpoint.runner-in-vpc", "info", ("kubernetes", "endpoint", "private_access_cidrs"))
    assert message == (
        "the Kubernetes layer is applied by its own stack (`pulumi up --stack <stack>-kubernetes`), which must run "
        "inside this VPC: the cluster security group admits 10.0.0.0/16 (cloud.vpc_cidr) to the private endpoint on 443"
    )
    assert hint == (
        "run the layer's stack from a runner in the VPC (CodeBuild, an SSM-managed instance, a self-hosted CI runner), "
        "or list its network in kubernetes.endpoint.private_access_cidrs, or open the public endpoint to your "
        "deployers with kubernetes.endpoint.public_access_cidrs and layer_stack: same (docs/endpoint-access.md)"
    )


def test_a_separate_stack_with_its_runner_network_or_a_public_endpoint_says_nothing() -> None:
    assert _found("separate", private_access_cidrs=["192.168.0.0/24"]) == []
    assert _found("separate", **PUBLIC) == []


def test_a_separate_stack_whose_private_endpoint_admits_no_runner_is_refused() -> None:
    assert _found("separate", private_access_cidrs=[]) == [
        (
            "endpoint.runner-unreachable",
            "error",
            ("kubernetes", "endpoint", "private_access_cidrs"),
            "the Kubernetes layer is applied by its own stack, but the private endpoint admits only the "
            "cluster's own security group (its nodes); the stack's runner could not reach it",
            "list the runner's network (a subnet of this VPC, or a peered or VPN range) in kubernetes.endpoint.private_access_cidrs",
        )
    ]
