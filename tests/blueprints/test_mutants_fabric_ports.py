"""The fabric ports rule (`blueprints/rules/fabric_ports.py`): whole NICs per host, no more EFA NICs than the type has,
rails that divide the NICs, scale-up domains of whole devices, and switch ports for every host. Exact code, path,
message and hint; each limit and one past it.

The base blueprint's `efa` fabric (rail_optimized_clos, radix 64, 4 NICs per accelerator) carries `train`: 8
p5.48xlarge hosts of 8 GPUs, 32 EFA interfaces each (the catalog's maximum).
"""

from __future__ import annotations

import pytest

from tests.blueprints.base import BASE, load, mutate

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
