"""NVLink domains across instances need NVIDIA's DRA driver (`blueprints/rules/compute_domains.py`).

`k8s.dra-version`: Kubernetes below 1.33 with such a pool; `pool.dra-karpenter`: such a pool on Karpenter. The catalog
gives p6e-gb200.36xlarge an NVLink domain of 18 instances, trn2u.48xlarge a NeuronLink domain of 4, p5.48xlarge an
NVLink domain inside one instance. Each case builds its blueprint in memory and calls the rule: 1.32 and 1.33, each
kind of pool, ComputeDomains off, on and unset, each provisioner.
"""

from __future__ import annotations

from blueprints.models import Blueprint
from blueprints.rules import compute_domains
from blueprints.rules.context import Context
from tests.topology.factory import CATALOG, document, fabric, pool

ZONES = [{"name": "za", "availability_zone": "us-east-1a"}]
GUIDE = "https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html"


def _found(pools: list[dict], version: str = "1.35", **kubernetes: object) -> list[tuple[object, ...]]:
    data = document(ZONES, pools)
    data["kubernetes"] |= {"version": version, **kubernetes}
    model = Blueprint.model_validate(data)
    return [
        (finding.code, finding.severity, finding.path, finding.message, finding.hint, finding.certificate)
        for finding in compute_domains.check(Context(blueprint=model, catalog=CATALOG))
    ]


def _gb200(name: str = "nvl", **fields: object) -> dict:
    return pool(name, "p6e-gb200.36xlarge", 18, ["za"], **fields)


def test_the_catalogs_domains_these_cases_rest_on() -> None:
    assert [
        (CATALOG.get(name).scale_up.kind, CATALOG.get(name).scale_up.instances_per_domain)
        for name in ("p6e-gb200.36xlarge", "trn2u.48xlarge", "p5.48xlarge")
    ] == [
        ("nvlink", 18),
        ("neuronlink", 4),
        ("nvlink", 1),
    ]


def test_kubernetes_1_32_with_an_nvlink_pool_is_refused_naming_every_such_pool() -> None:
    pools = [pool("web", "m5.large", 2, ["za"]), _gb200("a"), _gb200("b")]
    assert _found(pools, "1.32") == [
        (
            "k8s.dra-version",
            "error",
            ("kubernetes", "version"),
            "kubernetes 1.32 can't run NVIDIA's DRA driver for the NVLink domains of pool(s) ['a', 'b']: EKS supports "
            "P6e-GB200 UltraServers for Kubernetes 1.33 and above, the first with Dynamic Resource Allocation "
            f'on by default, and "DRA is a requirement" ({GUIDE})',
            'set kubernetes.version to "1.33" or later (EKS upgrades a running cluster one minor version at a time)',
            {"pools": ["a", "b"]},
        )
    ]


def test_kubernetes_1_33_is_the_first_accepted() -> None:
    assert _found([_gb200()], "1.33") == []


def test_compute_domains_on_or_unset_is_judged_and_off_is_not() -> None:
    assert [code for code, *_ in _found([_gb200()], "1.32", compute_domains=True)] == ["k8s.dra-version"]
    assert [code for code, *_ in _found([_gb200()], "1.32")] == ["k8s.dra-version"]
    assert _found([_gb200(provisioner="karpenter")], "1.32", compute_domains=False) == []


def test_domains_inside_one_instance_or_over_neuronlink_need_no_dra_driver() -> None:
    pools = [pool("p5", "p5.48xlarge", 2, ["za"], provisioner="karpenter"), pool("trn", "trn2u.48xlarge", 4, ["za"], provisioner="karpenter")]
    assert _found(pools, "1.32") == []


def test_an_nvlink_pool_on_karpenter_is_refused_at_its_provisioner() -> None:
    pools = [pool("web", "m5.large", 2, ["za"]), _gb200("mng"), _gb200("kp", provisioner="karpenter")]
    assert _found(pools) == [
        (
            "pool.dra-karpenter",
            "error",
            ("pools", 2, "provisioner"),
            "pool 'kp' (p6e-gb200.36xlarge) is provisioned by Karpenter, but its NVLink domains need NVIDIA's DRA "
            f'driver and the EKS user guide says "DRA is not supported in Karpenter or EKS Auto Mode" ({GUIDE})',
            "set provisioner: managed_node_group (the guide recommends managed or self-managed node groups for P6e-GB200)",
            {},
        )
    ]


def test_an_old_version_and_karpenter_are_both_said() -> None:
    assert [code for code, *_ in _found([_gb200(provisioner="karpenter")], "1.31")] == ["k8s.dra-version", "pool.dra-karpenter"]


def test_an_nvlink_domain_of_two_hosts_already_spans_instances() -> None:
    """A designed fabric may state the domain: 8 GPUs over p6e-gb200's 4 a host is 2 hosts, the fewest that span."""
    data = document(ZONES, [_gb200(fabric="rails")], [fabric("rails", "rail_optimized_clos", 64, scale_up={"kind": "nvlink", "domain_size": 8})])
    data["kubernetes"] |= {"version": "1.32"}
    context = Context(blueprint=Blueprint.model_validate(data), catalog=CATALOG)
    assert context.scale_up_domain(context.blueprint.pools[0]) == ("nvlink", 2)
    assert [finding.code for finding in compute_domains.check(context)] == ["k8s.dra-version"]
