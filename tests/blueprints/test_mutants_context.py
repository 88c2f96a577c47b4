"""The lookups every rule shares (`blueprints/rules/context.py`): domains by name, a pool's blocks and zones, its
scale-up domain. Each case builds a blueprint in memory and asks the Context directly.

The scale-up cases rest on the catalog's p6e-gb200.36xlarge (4 GPUs a host, an NVLink domain of 18 hosts) and
p5.48xlarge (8 GPUs, a domain inside the host); a catalog copy with a type stripped of its accelerator or of its
scale-up entry stands for the types the shipped catalog doesn't have.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from blueprints.catalog.collection import Catalog
from blueprints.rules.context import Context
from tests.topology.factory import CATALOG, block, blueprint, fabric, pool, zone

ZONES = [
    zone("za", [block("za-b1", 2, 4), block("za-b2", 2, 4)]),
    {"name": "zb", "availability_zone": "us-east-1b"},
    zone("zc", [block("zc-b1", 2, 4)], availability_zone="us-east-1b"),
]


def _context(pools: list[dict], fabrics: list[dict] = (), catalog: Catalog = CATALOG) -> Context:
    storage = [{"kind": "s3", "name": "data"}, {"kind": "s3", "name": "logs"}]
    return Context(blueprint=blueprint(ZONES, pools, fabrics, storage), catalog=catalog)


def _blocks(ctx: Context, index: int = 0) -> list[tuple[str, str]]:
    return [(z.name, b.name) for z, b in ctx.pool_blocks(ctx.blueprint.pools[index])]


def test_domains_fabrics_and_tiers_are_found_by_name() -> None:
    ctx = _context([pool("p", "p5.48xlarge", 2, ["za"])], [fabric("f1", "fat_tree", 64), fabric("f2", "fat_tree", 64)])
    assert list(ctx.zones) == ["za", "zb", "zc"] and ctx.zones["zc"].availability_zone == "us-east-1b"
    assert {name: (z.name, b.name) for name, (z, b) in ctx.blocks.items()} == {
        "za-b1": ("za", "za-b1"),
        "za-b2": ("za", "za-b2"),
        "zc-b1": ("zc", "zc-b1"),
    }
    assert list(ctx.fabrics) == ["f1", "f2"] and ctx.fabrics["f2"].name == "f2"
    assert list(ctx.tiers) == ["data", "logs"] and ctx.tiers["logs"].name == "logs"


def test_a_zone_gives_every_block_of_it_and_a_zone_without_blocks_is_one_site() -> None:
    ctx = _context([pool("p", "p5.48xlarge", 2, ["za", "zb"])])
    assert _blocks(ctx) == [("za", "za-b1"), ("za", "za-b2"), ("zb", "zb")]


def test_a_named_block_is_that_block_with_its_zone_and_a_block_already_given_by_its_zone_comes_once() -> None:
    assert _blocks(_context([pool("p", "p5.48xlarge", 2, ["zc-b1"])])) == [("zc", "zc-b1")]
    assert _blocks(_context([pool("p", "p5.48xlarge", 2, ["za-b2", "za"])])) == [("za", "za-b2"), ("za", "za-b1")]


def test_pool_zones_are_distinct_and_in_blueprint_order_not_placement_order() -> None:
    ctx = _context([pool("p", "p5.48xlarge", 2, ["zc-b1", "za-b1", "za-b2"])])
    assert [z.name for z in ctx.pool_zones(ctx.blueprint.pools[0])] == ["za", "zc"]


def test_declared_scale_up_is_a_designed_fabrics_and_never_aws_efas_nor_a_pool_off_any_fabric() -> None:
    designed = fabric("rails", "rail_optimized_clos", 64, scale_up={"kind": "nvlink", "domain_size": 72})
    ctx = _context(
        [
            pool("on", "p6e-gb200.36xlarge", 18, ["za"], fabric="rails"),
            pool("aws", "p5.48xlarge", 2, ["za"], fabric="efa"),
            pool("off", "p5.48xlarge", 2, ["za"]),
        ],
        [designed, {"kind": "aws_efa", "name": "efa"}],
    )
    on, aws, off = ctx.blueprint.pools
    assert ctx.declared_scale_up(on) == ctx.fabrics["rails"].scale_up and ctx.declared_scale_up(on).domain_size == 72
    assert ctx.declared_scale_up(aws) is None and ctx.declared_scale_up(off) is None
    plain = _context([pool("on", "p5.48xlarge", 2, ["za"], fabric="rails")], [fabric("rails", "rail_optimized_clos", 64)])
    assert plain.declared_scale_up(plain.blueprint.pools[0]) is None


def test_without_a_declared_size_the_catalogs_domain_is_the_pools() -> None:
    ctx = _context([pool("nvl", "p6e-gb200.36xlarge", 18, ["za"]), pool("p5", "p5.48xlarge", 2, ["za"])])
    assert [ctx.scale_up_domain(p) for p in ctx.blueprint.pools] == [("nvlink", 18), ("nvlink", 1)]
    declared_kind_only = fabric("rails", "rail_optimized_clos", 64, scale_up={"kind": "pcie"})
    ctx = _context([pool("nvl", "p6e-gb200.36xlarge", 18, ["za"], fabric="rails")], [declared_kind_only])
    assert ctx.scale_up_domain(ctx.blueprint.pools[0]) == ("nvlink", 18)


@pytest.mark.parametrize(
    ("size", "domain"),
    [
        (72, ("neuronlink", 18)),
        (8, ("neuronlink", 2)),
        (4, ("neuronlink", 1)),
        (6, ("neuronlink", 1)),
        (10, ("neuronlink", 1)),
        (2, ("neuronlink", 1)),
    ],
)
def test_a_declared_size_counts_hosts_when_it_is_a_whole_multiple_of_the_hosts_accelerators_and_larger(size: int, domain: tuple[str, int]) -> None:
    """p6e-gb200 has 4 GPUs a host: 72 is 18 hosts, 8 is 2; 4 (one host), 6 and 10 (no multiple, 10 // 4 being 2) and 2
    (less than a host) are 1.
    The declared kind (neuronlink, on purpose not the catalog's) is what is returned."""
    declared = fabric("rails", "rail_optimized_clos", 64, scale_up={"kind": "neuronlink", "domain_size": size})
    ctx = _context([pool("nvl", "p6e-gb200.36xlarge", 18, ["za"], fabric="rails")], [declared])
    kind, hosts = ctx.scale_up_domain(ctx.blueprint.pools[0])
    assert (kind, hosts) == domain and type(hosts) is int  # a count of hosts, never 18.0


def test_a_type_not_in_the_catalog_without_accelerators_or_without_a_scale_up_entry_is_pcie_of_one_host() -> None:
    p6e = CATALOG.get("p6e-gb200.36xlarge")
    types = dict(CATALOG.items()) | {
        "cpu.large": replace(p6e, name="cpu.large", accelerator=None),
        "bare.large": replace(p6e, name="bare.large", scale_up=None),
    }
    catalog = Catalog(types, {})
    ctx = _context([pool(name.split(".")[0], name, 18, ["za"]) for name in ("unknown.large", "cpu.large", "bare.large")], catalog=catalog)
    assert [ctx.scale_up_domain(p) for p in ctx.blueprint.pools] == [("pcie", 1), ("pcie", 1), ("pcie", 1)]
