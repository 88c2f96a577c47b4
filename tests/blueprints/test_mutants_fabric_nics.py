"""EFA interfaces a designed fabric leaves idle (`blueprints/rules/fabric_nics.py`): `fabric.unused-nics`.

A node on a designed EFA fabric gets `nics_per_accelerator` x accelerators EFA interfaces; fewer than its type's EFA
devices warns, once per (fabric, instance type). The catalog's counts these cases rest on: p5.48xlarge has 8 GPUs and
32 EFA devices, p4d.24xlarge 8 GPUs and 4. Each case calls the rule on a blueprint built in memory: one interface
fewer than the type's and exactly the type's, a fractional count, the least whole count (1), AWS's own EFA network,
an ENA fabric, a pool off the fabric, an unknown type, two pools of one type.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from blueprints.catalog.collection import Catalog
from blueprints.rules import fabric_nics
from blueprints.rules.context import Context
from tests.topology.factory import CATALOG, blueprint, fabric, pool

ZONES = [{"name": "za", "availability_zone": "us-east-1a"}]


def _designed(nics: float, transport: str = "efa") -> dict:
    return fabric("rails", "rail_optimized_clos", 64, nics_per_accelerator=nics, transport=transport)


def _unused(fabrics: list[dict], *pools: dict) -> list[tuple[object, ...]]:
    model = blueprint(ZONES, list(pools), fabrics)
    return [
        (finding.code, finding.severity, finding.path, finding.message, finding.hint, finding.certificate)
        for finding in fabric_nics.check(Context(blueprint=model, catalog=CATALOG))
    ]


def test_the_catalog_counts_these_cases_rest_on() -> None:
    assert (CATALOG.get("p5.48xlarge").accelerator_count, CATALOG.get("p5.48xlarge").efa_devices) == (8, 32)
    assert (CATALOG.get("p4d.24xlarge").accelerator_count, CATALOG.get("p4d.24xlarge").efa_devices) == (8, 4)


def test_a_p5_on_two_nics_per_gpu_warns_that_half_its_interfaces_stay_idle() -> None:
    assert _unused([_designed(2)], pool("train", "p5.48xlarge", 2, ["za"], fabric="rails")) == [
        (
            "fabric.unused-nics",
            "warning",
            ("fabrics", 0, "nics_per_accelerator"),
            "fabric 'rails' gives each p5.48xlarge node 16 EFA interfaces, but the type has 32: 16 stay idle",
            "set nics_per_accelerator to 4 if the fabric has the ports for them",
            {"pool": "train", "wired": 16, "available": 32},
        )
    ]


def test_one_interface_short_warns_and_every_interface_wired_does_not() -> None:
    """p4d: 0.375 x 8 GPUs = 3 interfaces of 4; 0.5 x 8 = 4, all of them; the hint's whole count is fractional (0.5)."""
    [(_, _, _, message, hint, certificate)] = _unused([_designed(0.375)], pool("train", "p4d.24xlarge", 2, ["za"], fabric="rails"))
    assert message == "fabric 'rails' gives each p4d.24xlarge node 3 EFA interfaces, but the type has 4: 1 stay idle"
    assert hint == "set nics_per_accelerator to 0.5 if the fabric has the ports for them" and certificate["wired"] == 3
    assert _unused([_designed(0.5)], pool("train", "p4d.24xlarge", 2, ["za"], fabric="rails")) == []


def test_one_interface_per_node_is_the_least_the_rule_judges() -> None:
    """0.125 x 8 = 1 interface (judged); 0.0625 x 8 = 0.5, not a whole interface (fabric_ports reports it)."""
    [(_, _, _, message, _, _)] = _unused([_designed(0.125)], pool("train", "p4d.24xlarge", 2, ["za"], fabric="rails"))
    assert message == "fabric 'rails' gives each p4d.24xlarge node 1 EFA interfaces, but the type has 4: 3 stay idle"
    assert _unused([_designed(0.0625)], pool("train", "p4d.24xlarge", 2, ["za"], fabric="rails")) == []


@pytest.mark.parametrize("nics", [0.3, 1.1])
def test_a_count_that_is_no_whole_number_of_interfaces_is_left_to_fabric_ports(nics: float) -> None:
    assert _unused([_designed(nics)], pool("train", "p5.48xlarge", 2, ["za"], fabric="rails")) == []


def test_more_interfaces_than_the_type_has_is_left_to_fabric_ports() -> None:
    assert _unused([_designed(8)], pool("train", "p5.48xlarge", 2, ["za"], fabric="rails")) == []


def test_aws_efa_and_an_ena_fabric_are_not_judged() -> None:
    aws = {"kind": "aws_efa", "name": "rails"}
    assert _unused([aws], pool("train", "p5.48xlarge", 2, ["za"], fabric="rails")) == []
    assert _unused([_designed(2, transport="ena")], pool("train", "p5.48xlarge", 2, ["za"], fabric="rails")) == []


def test_only_the_pools_on_the_fabric_are_judged_each_type_once_and_the_fabric_found_by_index() -> None:
    """The second fabric (index 1) is the short one; a pool off it, a pool on the other, and a second p5 pool say nothing more."""
    fabrics = [_designed(4) | {"name": "full"}, _designed(2)]
    pools = (
        pool("off", "p5.48xlarge", 2, ["za"]),
        pool("full", "p5.48xlarge", 2, ["za"], fabric="full"),
        pool("a", "p5.48xlarge", 2, ["za"], fabric="rails"),
        pool("b", "p5.48xlarge", 2, ["za"], fabric="rails"),
        pool("c", "p4d.24xlarge", 2, ["za"], fabric="rails"),
    )
    found = _unused(fabrics, *pools)
    assert [(path, certificate) for _, _, path, _, _, certificate in found] == [
        (("fabrics", 1, "nics_per_accelerator"), {"pool": "a", "wired": 16, "available": 32}),
    ]


def test_a_second_type_on_the_same_fabric_gets_its_own_warning() -> None:
    pools = (pool("a", "p5.48xlarge", 2, ["za"], fabric="rails"), pool("c", "p4d.24xlarge", 2, ["za"], fabric="rails"))
    found = _unused([_designed(0.25)], *pools)
    assert [certificate for *_, certificate in found] == [
        {"pool": "a", "wired": 2, "available": 32},
        {"pool": "c", "wired": 2, "available": 4},
    ]


def test_a_fabric_after_aws_efa_and_a_pool_after_one_with_too_many_interfaces_are_still_judged() -> None:
    """AWS's EFA fabric comes first and is skipped; on the designed one, p4d (8 interfaces of 4: fabric_ports's) comes
    before the p5 that is short."""
    fabrics = [{"kind": "aws_efa", "name": "aws"}, _designed(1)]
    pools = (pool("p4d", "p4d.24xlarge", 2, ["za"], fabric="rails"), pool("p5", "p5.48xlarge", 2, ["za"], fabric="rails"))
    assert [(path, certificate) for _, _, path, _, _, certificate in _unused(fabrics, *pools)] == [
        (("fabrics", 1, "nics_per_accelerator"), {"pool": "p5", "wired": 8, "available": 32}),
    ]


def test_the_hints_count_is_the_types_efa_devices_over_its_accelerators_even_for_one_accelerator() -> None:
    """No shipped type has one accelerator and several EFA devices; a catalog copy of p4d with one GPU stands for one."""
    p4d = CATALOG.get("p4d.24xlarge")
    one = replace(p4d, name="p4d.1gpu", accelerator=replace(p4d.accelerator, count=1))
    catalog = Catalog(dict(CATALOG.items()) | {"p4d.1gpu": one}, {})
    model = blueprint(ZONES, [pool("one", "p4d.1gpu", 2, ["za"], fabric="rails")], [_designed(1)])
    [finding] = fabric_nics.check(Context(blueprint=model, catalog=catalog))
    assert finding.message == "fabric 'rails' gives each p4d.1gpu node 1 EFA interfaces, but the type has 4: 3 stay idle"
    assert finding.hint == "set nics_per_accelerator to 4 if the fabric has the ports for them"
