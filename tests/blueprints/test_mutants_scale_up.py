"""Scale-up domains that span hosts come whole (`blueprints/rules/scale_up.py`).

`pool.scale-up-partial` (a node count that is no whole number of domains), `placement.scale-up-rack` (racks too small
for the domain `spread: racks` puts in each), `pool.nvlink-imex` (NVLink across hosts with ComputeDomains off). The
catalog gives p6e-gb200.36xlarge an NVLink domain of 18 hosts and trn2u.48xlarge a NeuronLink domain of 4; p5.48xlarge
a domain inside one host. Each case builds its blueprint in memory and calls the rule.
"""

from __future__ import annotations

from blueprints.models import Blueprint
from blueprints.rules import scale_up
from blueprints.rules.context import Context
from tests.topology.factory import CATALOG, block, document, pool, zone

ZONES = [
    zone("za", [block("big", 2, 4), block("small", 2, 3), block("tiny", 2, 2)]),
    {"name": "zb", "availability_zone": "us-east-1b"},
]
GUIDE = "https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html"


def _found(pools: list[dict], **kubernetes: object) -> list[tuple[object, ...]]:
    data = document(ZONES, pools)
    data["kubernetes"] |= kubernetes
    model = Blueprint.model_validate(data)
    return [(f.code, f.severity, f.path, f.message, f.hint, f.certificate) for f in scale_up.check(Context(blueprint=model, catalog=CATALOG))]


def test_whole_domains_at_every_size_and_domains_inside_one_host_say_nothing() -> None:
    pools = [
        pool("web", "p5.48xlarge", 3, ["za"]),
        pool("nvl", "p6e-gb200.36xlarge", {"min": 18, "max": 36}, ["za"]),
        pool("trn", "trn2u.48xlarge", {"min": 4, "max": 8, "desired": 8}, ["za"]),
    ]
    assert _found(pools) == []


def test_a_count_that_is_no_whole_number_of_domains_is_refused_naming_each_size_that_is_not() -> None:
    assert _found([pool("web", "p5.48xlarge", 3, ["za"]), pool("trn", "trn2u.48xlarge", 6, ["za"])]) == [
        (
            "pool.scale-up-partial",
            "error",
            ("pools", 1, "nodes"),
            "pool 'trn' (trn2u.48xlarge) has a neuronlink domain of 4 hosts, but its node count (max 6, desired 6) is not a "
            "whole number of domains, so some hosts would be cut off from the rest of theirs",
            "make the node counts multiples of 4 (an UltraServer or NVL72 rack is bought and placed whole)",
            {"hosts_per_domain": 4, "nodes": {"max": 6, "desired": 6}},
        )
    ]


def test_only_the_max_or_only_the_desired_count_off_a_domain_is_named_alone() -> None:
    [(*_, message, _, certificate)] = _found([pool("trn", "trn2u.48xlarge", {"min": 4, "max": 10}, ["za"])])
    assert "its node count (max 10) is not" in message and certificate["nodes"] == {"max": 10}
    [(*_, message, _, certificate)] = _found([pool("trn", "trn2u.48xlarge", {"min": 4, "max": 8, "desired": 5}, ["za"])])
    assert "its node count (desired 5) is not" in message and certificate["nodes"] == {"desired": 5}


def test_spread_over_racks_needs_racks_of_a_domain_each_and_a_rack_of_exactly_a_domain_is_enough() -> None:
    pools = [pool("web", "p5.48xlarge", 3, ["za"]), pool("trn", "trn2u.48xlarge", 8, ["za", "zb"], spread="racks")]
    assert _found(pools) == [
        (
            "placement.scale-up-rack",
            "error",
            ("pools", 1, "placement", "spread"),
            "pool 'trn' spreads over racks, one neuronlink domain of 4 hosts in each, but the racks of blocks ['small', 'tiny'] "
            "hold fewer than 4 hosts",
            "use racks of at least 4 hosts (hosts_per_rack), or spread over blocks",
            {"hosts_per_domain": 4, "blocks": ["small", "tiny"]},
        )
    ]
    assert _found([pool("trn", "trn2u.48xlarge", 8, ["big", "zb"], spread="racks")]) == []


def test_small_racks_are_not_judged_unless_spread_is_racks() -> None:
    assert _found([pool("trn", "trn2u.48xlarge", 8, ["za"], spread="blocks")]) == []


def test_a_partial_pool_spread_over_small_racks_gets_both_errors() -> None:
    found = _found([pool("trn", "trn2u.48xlarge", 6, ["tiny"], spread="racks")])
    assert [(code, certificate) for code, _, _, _, _, certificate in found] == [
        ("pool.scale-up-partial", {"hosts_per_domain": 4, "nodes": {"max": 6, "desired": 6}}),
        ("placement.scale-up-rack", {"hosts_per_domain": 4, "blocks": ["tiny"]}),
    ]


def test_nvlink_across_hosts_with_compute_domains_off_warns_that_there_is_no_imex() -> None:
    pools = [pool("web", "p5.48xlarge", 3, ["za"]), pool("nvl", "p6e-gb200.36xlarge", 18, ["za"])]
    assert _found(pools, compute_domains=False) == [
        (
            "pool.nvlink-imex",
            "warning",
            ("pools", 1, "instance_type"),
            "pool 'nvl' (p6e-gb200.36xlarge) has NVLink domains of 18 hosts, but kubernetes.compute_domains is false, so no IMEX: a job "
            "spanning instances reaches the other instances' GPUs over NVLink only inside an IMEX domain, and without one its traffic "
            "between instances goes over EFA",
            "remove kubernetes.compute_domains: false (railyard then installs NVIDIA's DRA driver, chart nvidia-dra-driver-gpu, and a "
            f"ComputeDomain per such pool), or install it yourself and give each multi-instance job a ComputeDomain, as {GUIDE} shows",
            {"hosts_per_domain": 18},
        )
    ]


def test_no_imex_warning_with_compute_domains_on_or_unset_nor_for_neuronlink() -> None:
    assert _found([pool("nvl", "p6e-gb200.36xlarge", 18, ["za"])], compute_domains=True) == []
    assert _found([pool("nvl", "p6e-gb200.36xlarge", 18, ["za"])]) == []
    assert _found([pool("trn", "trn2u.48xlarge", 4, ["za"])], compute_domains=False) == []


def test_the_imex_warning_comes_before_the_partial_count_of_the_same_pool() -> None:
    found = _found([pool("nvl", "p6e-gb200.36xlarge", 20, ["za"])], compute_domains=False)
    assert [code for code, *_ in found] == ["pool.nvlink-imex", "pool.scale-up-partial"]


def test_a_pool_spread_over_racks_after_one_that_is_not_is_still_judged() -> None:
    pools = [pool("packed", "trn2u.48xlarge", 8, ["za"]), pool("racked", "trn2u.48xlarge", 8, ["tiny"], spread="racks")]
    assert [(code, path) for code, _, path, *_ in _found(pools)] == [("placement.scale-up-rack", ("pools", 1, "placement", "spread"))]
