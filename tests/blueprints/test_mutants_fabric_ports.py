"""The fabric ports rule (`blueprints/rules/fabric_ports.py`): whole NICs per host, no more EFA NICs than the type has,
rails that divide the NICs, scale-up domains of whole devices, and switch ports for every host. Exact code, path,
message and hint; each limit and one past it.

The base blueprint's `efa` fabric (rail_optimized_clos, radix 64, 4 NICs per accelerator) carries `train`: 8
p5.48xlarge hosts of 8 GPUs, 32 EFA interfaces each (the catalog's maximum).
"""

from __future__ import annotations

import pytest

from blueprints.rules import fabric_ports
from blueprints.rules.context import Context
from tests.blueprints.base import BASE, load, mutate
from tests.topology.factory import CATALOG, blueprint, fabric, pool

NICS = "    nics_per_accelerator: 4\n"


def _found(text: str, code: str) -> list[tuple[tuple[object, ...], str, str]]:
    return [(finding.path, finding.message, finding.hint) for finding in load(text).findings if finding.code == code]


def _codes(text: str) -> list[str]:
    return [finding.code for finding in load(text).findings if finding.code.startswith("fabric.")]


def test_the_base_fabric_has_no_findings() -> None:
    assert _codes(BASE) == []


@pytest.mark.parametrize(("per", "total"), [("0.3", "2.4"), ("0.1", "0.8")])
def test_a_fractional_or_less_than_one_nic_per_host_is_refused(per: str, total: str) -> None:
    assert _found(mutate(NICS, f"    nics_per_accelerator: {per}\n"), "fabric.fractional-nics") == [
        (
            ("fabrics", 0, "nics_per_accelerator"),
            f"8 accelerators x {per} NICs each = {total} NICs per p5.48xlarge host, not a whole number",
            "pick nics_per_accelerator so accelerators x NICs is a whole number (p4d: 0.5, p5: 4)",
        )
    ]


def test_one_nic_per_host_is_whole() -> None:
    assert _found(mutate(NICS, "    nics_per_accelerator: 0.125\n"), "fabric.fractional-nics") == []


def test_more_efa_nics_than_the_type_has_are_refused() -> None:
    assert _found(mutate(NICS, "    nics_per_accelerator: 4.125\n"), "fabric.too-few-nics") == [
        (
            ("fabrics", 0, "nics_per_accelerator"),
            "fabric 'efa' needs 33 EFA NICs per host, but p5.48xlarge has at most 32",
            "set nics_per_accelerator to 4 or less",
        )
    ]


def test_an_ena_fabric_is_not_held_to_the_efa_maximum() -> None:
    text = mutate(NICS, "    nics_per_accelerator: 4.125\n    transport: ena\n")
    assert _found(text, "fabric.too-few-nics") == []


@pytest.mark.parametrize(("rails", "ok"), [(3, False), (5, False), (4, True), (32, True)])
def test_rails_must_divide_the_nics(rails: int, ok: bool) -> None:
    found = _found(mutate(NICS, f"{NICS}    rails: {rails}\n"), "fabric.rails-mismatch")
    expected = [(("fabrics", 0, "rails"), f"32 NICs per p5.48xlarge host can't be split evenly over {rails} rails", "use a divisor of 32 such as 8")]
    assert found == ([] if ok else expected)


def _scale_up(size: int) -> str:
    return mutate(NICS, f"{NICS}    scale_up: {{kind: nvlink, domain_size: {size}}}\n")


@pytest.mark.parametrize("size", [1, 2, 4, 8, 16, 72])
def test_a_scale_up_domain_of_whole_devices_passes(size: int) -> None:
    assert _found(_scale_up(size), "fabric.scale-up-size") == []


@pytest.mark.parametrize(("size", "hosts"), [(3, "0.375"), (12, "1.5")])
def test_a_scale_up_domain_splitting_a_host_unevenly_is_refused(size: int, hosts: str) -> None:
    assert _found(_scale_up(size), "fabric.scale-up-size") == [
        (
            ("fabrics", 0, "scale_up", "domain_size"),
            f"a scale-up domain of {size} accelerators is {hosts} p5.48xlarge hosts (8 accelerators each): neither a part of "
            "one host nor a whole number of hosts",
            "use a size that divides 8 or is a multiple of it, such as 1, 2, 4, 8, 16, 32",
        )
    ]


def _train_nodes(count: int, radix: int) -> str:
    text = mutate("    switch_radix: 64\n", f"    switch_radix: {radix}\n")
    text = text.replace("    nodes: 8\n", f"    nodes: {count}\n", 1).replace("      instance_count: 8\n", f"      instance_count: {count}\n", 1)
    return text.replace("          racks: 4\n          hosts_per_rack: 4\n", "          racks: 64\n          hosts_per_rack: 4\n", 1)


def test_a_radix_8_fabric_holds_four_hosts_of_32_nics() -> None:
    """Three tiers of radix-8 switches hold 8^3 / 4 = 128 host ports: 4 hosts of 32 NICs fit exactly."""
    assert _found(_train_nodes(4, 8), "fabric.too-small") == []


def test_one_host_past_the_fabrics_room_is_refused_with_both_counts() -> None:
    assert _found(_train_nodes(5, 8), "fabric.too-small") == [
        (
            ("fabrics", 0, "switch_radix"),
            "fabric 'efa' (rail_optimized_clos, radix 8, 3 tiers, leaf oversubscription 1) holds at most 128 host ports, but its pools need 160",
            "raise switch_radix, add a tier, add a plane, or allow more oversubscription",
        )
    ]


def test_host_ports_beside_the_nics_count_toward_the_room() -> None:
    """4 hosts of 32 NICs and one in-band port each need 132 ports: past the 128."""
    text = _train_nodes(4, 8).replace(NICS, f"{NICS}    host_ports:\n      - {{name: inband, ports: 1}}\n")
    [(_, message, _)] = _found(text, "fabric.too-small")
    assert message.endswith("holds at most 128 host ports, but its pools need 132")


# The rule called directly on blueprints built in memory (tests/topology/factory.py), certificates included.
ZA = [{"name": "za", "availability_zone": "us-east-1a"}]


def _rule(fabrics: list[dict], *pools: dict) -> list[tuple[str, tuple[object, ...], str, dict[str, object]]]:
    model = blueprint(ZA, list(pools), fabrics)
    return [(f.code, f.path, f.message, f.certificate) for f in fabric_ports.check(Context(blueprint=model, catalog=CATALOG))]


def _p5(name: str, nodes: int, on: str | None = "f") -> dict:
    return pool(name, "p5.48xlarge", nodes, ["za"], fabric=on)


def test_a_fat_tree_holds_radix_cubed_over_four_host_ports_whatever_its_leaf_oversubscription() -> None:
    """Radix 8: 128 ports; 5 p5 hosts of 32 NICs need 160 (a Clos of the same radix and 3:1 leaves would hold 192)."""
    fat = fabric("f", "fat_tree", 8, nics_per_accelerator=4, oversubscription={"leaf": 3})
    assert _rule([fat], _p5("p", 5)) == [
        (
            "fabric.too-small",
            ("fabrics", 0, "switch_radix"),
            "fabric 'f' (fat_tree, radix 8, 3 tiers, leaf oversubscription 3) holds at most 128 host ports, but its pools need 160",
            {"needed_ports": 160, "available_ports": 128},
        )
    ]
    assert _rule([fat], _p5("p", 4)) == []


def test_a_rail_only_fabric_holds_one_leafs_ports_per_rail_one_rail_per_gpu_unless_it_names_its_rails() -> None:
    """One tier of radix 8: 8 ports a rail; p5's 32 NICs over its 8 GPUs make 8 rails (64 ports), 4 named rails 32."""
    rails_of_gpus = fabric("f", "rail_only", 8, nics_per_accelerator=4, tiers=1)
    [(_, _, message, certificate)] = _rule([rails_of_gpus], _p5("p", 3))
    assert message.endswith("(rail_only, radix 8, 1 tiers, leaf oversubscription 1) holds at most 64 host ports, but its pools need 96")
    assert certificate == {"needed_ports": 96, "available_ports": 64}
    assert _rule([rails_of_gpus], _p5("p", 2)) == []
    named = fabric("f", "rail_only", 8, nics_per_accelerator=4, tiers=1, rails=4)
    assert [certificate for *_, certificate in _rule([named], _p5("p", 2))] == [{"needed_ports": 64, "available_ports": 32}]
    assert _rule([named], _p5("p", 1)) == []


def test_a_clos_of_two_tiers_holds_fewer_ports_than_the_three_it_is_otherwise_sized_at() -> None:
    two = fabric("f", "rail_optimized_clos", 8, nics_per_accelerator=4, tiers=2)
    [(_, _, message, certificate)] = _rule([two], _p5("p", 2))
    assert "(rail_optimized_clos, radix 8, 2 tiers, leaf oversubscription 1) holds at most 32 host ports" in message
    assert certificate == {"needed_ports": 64, "available_ports": 32}
    assert _rule([fabric("f", "rail_optimized_clos", 8, nics_per_accelerator=4)], _p5("p", 2)) == []


def test_every_pool_on_the_fabric_counts_and_a_pool_off_it_does_not() -> None:
    fat = fabric("f", "fat_tree", 8, nics_per_accelerator=4)
    found = _rule([fat], _p5("off", 9, on=None), _p5("a", 2), _p5("b", 3))
    assert [certificate for *_, certificate in found] == [{"needed_ports": 160, "available_ports": 128}]


def test_a_host_with_less_than_one_nic_still_takes_one_port() -> None:
    """0.1 NIC per GPU is 0.8 a p5 host (fractional, refused), counted as 1 port: 17 hosts need 17 of a radix-4 fat tree's 16."""
    found = _rule([fabric("f", "fat_tree", 4, nics_per_accelerator=0.1)], _p5("p", 17))
    assert [(code, certificate) for code, _, _, certificate in found] == [
        ("fabric.fractional-nics", {}),
        ("fabric.too-small", {"needed_ports": 17, "available_ports": 16}),
    ]


def test_a_fabric_after_aws_efa_or_after_one_no_pool_uses_is_still_sized() -> None:
    fabrics = [{"kind": "aws_efa", "name": "aws"}, fabric("idle", "fat_tree", 8), fabric("f", "fat_tree", 8, nics_per_accelerator=4)]
    assert [(path, certificate) for _, path, _, certificate in _rule(fabrics, _p5("p", 5))] == [
        (("fabrics", 2, "switch_radix"), {"needed_ports": 160, "available_ports": 128})
    ]


def test_a_pool_after_one_off_the_fabric_or_with_a_fractional_count_is_still_judged() -> None:
    """0.375 NICs per GPU: 1.5 on p6e-gb200 (4 GPUs, fractional), 3 on p5 (8 GPUs), which 2 rails can't split."""
    rails = fabric("f", "rail_optimized_clos", 64, nics_per_accelerator=0.375, rails=2)
    pools = (_p5("off", 2, on=None), pool("nvl", "p6e-gb200.36xlarge", 18, ["za"], fabric="f"), _p5("p5", 2))
    assert [(code, path) for code, path, _, _ in _rule([rails], *pools)] == [
        ("fabric.fractional-nics", ("fabrics", 0, "nics_per_accelerator")),
        ("fabric.rails-mismatch", ("fabrics", 0, "rails")),
    ]


def test_a_single_gpu_types_efa_limit_is_given_per_gpu() -> None:
    """p5.4xlarge: 1 GPU, at most 1 EFA interface; 2 NICs a GPU is 2."""
    assert (CATALOG.get("p5.4xlarge").accelerator_count, CATALOG.get("p5.4xlarge").max_efa_interfaces) == (1, 1)
    model = blueprint(ZA, [pool("one", "p5.4xlarge", 2, ["za"], fabric="f")], [fabric("f", "fat_tree", 64, nics_per_accelerator=2)])
    [finding] = [f for f in fabric_ports.check(Context(blueprint=model, catalog=CATALOG)) if f.code == "fabric.too-few-nics"]
    assert finding.message == "fabric 'f' needs 2 EFA NICs per host, but p5.4xlarge has at most 1"
    assert finding.hint == "set nics_per_accelerator to 1 or less"


def test_a_scale_up_size_splitting_a_host_names_the_pool_size_and_host_and_skips_what_it_cant_judge() -> None:
    """The pool off the fabric and the type not in the catalog come first; the p5 after them is judged."""
    sized = fabric("f", "rail_optimized_clos", 64, nics_per_accelerator=4, scale_up={"kind": "nvlink", "domain_size": 12})
    pools = (_p5("off", 2, on=None), pool("odd", "x9.large", 2, ["za"], fabric="f"), _p5("p5", 2))
    found = [(code, path, certificate) for code, path, _, certificate in _rule([sized], *pools) if code == "fabric.scale-up-size"]
    assert found == [
        ("fabric.scale-up-size", ("fabrics", 0, "scale_up", "domain_size"), {"pool": "p5", "domain_size": 12, "accelerators_per_host": 8})
    ]
