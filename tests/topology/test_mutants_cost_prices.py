"""topology/cost_prices.py: where each price comes from (a declared price before the table's, a Capacity Block quote under
any pool on the block), how a rate reads, why a price is missing (a type AWS doesn't sell in the region, per moto's
offerings dump), and `cost.declared-unused` for each declared price nothing uses: a quote for a pool on no block, a block
quoted twice, a type no pool or system group runs, an FSx tier no file system railyard makes has. On
`tests/blueprints/base.BASE` and the round-price table of `tests/topology/round_prices.py`.

The words of a gap where a table has no row are left to topology/cost.py's tests (issue 49 rewords them); what is
held here is which gap, its hint, and the region and type it names."""

from __future__ import annotations

import pytest

from blueprints.catalog import load_catalog
from blueprints.catalog.offerings import load_offerings
from blueprints.catalog.prices import Price
from tests.topology.round_prices import SPARE, TABLE, TABLE_SOURCE, priced_blueprint, service, table
from topology.cluster.node_groups import plan_node_groups
from topology.cost_prices import Pricer, declared, declared_findings, rate

BLOCK_ID = "cr-0123456789abcdef0"


def _pricer(cost: str = "", region: str | None = None) -> Pricer:
    blueprint = priced_blueprint(cost=cost)
    if region is not None:
        blueprint = blueprint.model_copy(update={"cloud": blueprint.cloud.model_copy(update={"region": region})})
    return Pricer(blueprint, TABLE)


@pytest.mark.parametrize(
    ("usd", "discount", "words"),
    [
        (41.528, 0.0, "$41.528/hour"),
        (40.0, 0.0, "$40/hour"),
        (0.1, 0.25, "$0.1/hour less 25%"),
        (1234.5, 0.0, "$1,234.5/hour"),
        (0.00005, 0.0, "$0.0001/hour"),
        (2.0, 0.125, "$2/hour less 12%"),
    ],
)
def test_a_rate_reads_in_dollars_to_four_places_without_trailing_zeros_and_its_discount_in_percent(usd, discount, words):
    assert rate(Price(usd, "hour", "s", "d"), discount) == words


def test_a_declared_price_names_its_field():
    assert declared(2.5, "instance-hour", "instance_usd_per_hour") == Price(
        2.5, "instance-hour", "declared in the blueprint (cost.instance_usd_per_hour)", "declared", "declared"
    )


def test_a_declared_on_demand_rate_comes_before_the_tables():
    pricer = _pricer("{instance_usd_per_hour: {p5.48xlarge: 33.5}}")
    assert pricer.on_demand("p5.48xlarge") == declared(33.5, "instance-hour", "instance_usd_per_hour")
    assert pricer.on_demand("inf2.48xlarge") == Price(12.0, "instance-hour", TABLE_SOURCE, "2026-07-20", "generated")
    assert pricer.on_demand("zz9.nothing") is None
    assert (pricer.region, pricer.prices) == ("us-east-1", TABLE)


def test_a_type_aws_does_not_sell_in_the_region_says_where_it_is_sold():
    offerings = load_offerings()
    assert offerings.offered("p5.48xlarge", "af-south-1") is False
    regions = offerings.regions_of("p5.48xlarge")
    assert "us-east-1" in regions
    gap = _pricer(region="af-south-1").on_demand_gap("p5.48xlarge")
    assert gap.why == (
        "not sold On-Demand in af-south-1: AWS offers no p5.48xlarge there (EC2 DescribeInstanceTypeOfferings for af-south-1, "
        "moto 5.2.5's dump; blueprints/catalog/offerings.json)"
    )
    assert gap.hint == (
        f"AWS sells p5.48xlarge in {', '.join(regions)}: choose one of those regions, or, if the account has it in af-south-1 "
        "after all, declare cost.instance_usd_per_hour.p5.48xlarge (USD per instance-hour)"
    )


def test_a_type_sold_in_the_region_but_not_priced_asks_for_its_rate():
    gap = _pricer().on_demand_gap("inf2.24xlarge")
    assert "inf2.24xlarge" in gap.why and "us-east-1" in gap.why and not gap.why.startswith("not sold")
    assert gap.hint == "declare cost.instance_usd_per_hour.inf2.24xlarge (USD per instance-hour)"


def test_a_declared_lustre_price_matches_its_tier_exactly():
    pricer = _pricer(
        "{fsx_lustre: [{deployment_type: PERSISTENT_2, storage_type: SSD, throughput_mbps_per_tib: 125, usd_per_gb_month: 0.9}, "
        "{deployment_type: PERSISTENT_2, storage_type: SSD, throughput_mbps_per_tib: 250, usd_per_gb_month: 0.7}]}"
    )
    assert pricer.lustre("PERSISTENT_2", "SSD", 250) == declared(0.7, "GB-month", "fsx_lustre")
    assert pricer.lustre("PERSISTENT_2", "SSD", 500) is None
    assert _pricer().lustre("PERSISTENT_2", "SSD", 250) == Price(0.2, "GB-month", "lustre", "2026-01-01", "published")


def test_a_lustre_gap_names_the_tier_and_the_entry_to_add_with_its_throughput_where_it_has_one():
    with_throughput = _pricer().lustre_gap("PERSISTENT_2", "SSD", 250)
    assert all(words in with_throughput.why for words in ("FSx for Lustre", "PERSISTENT_2 SSD 250 MB/s/TiB", "us-east-1"))
    assert with_throughput.hint == (
        "add to cost.fsx_lustre: {deployment_type: PERSISTENT_2, storage_type: SSD, throughput_mbps_per_tib: 250, "
        "usd_per_gb_month: <USD per GB-month>}"
    )
    scratch = _pricer().lustre_gap("SCRATCH_2", "SSD", None)
    assert all(words in scratch.why for words in ("FSx for Lustre", "SCRATCH_2 SSD")) and "MB/s" not in scratch.why
    assert scratch.hint == "add to cost.fsx_lustre: {deployment_type: SCRATCH_2, storage_type: SSD, usd_per_gb_month: <USD per GB-month>}"


def test_declared_gp3_and_nat_prices_come_before_the_tables():
    pricer = _pricer("{ebs_gp3_usd_per_gb_month: 0.1, nat_gateway_usd_per_hour: 0.07}")
    assert pricer.gp3() == declared(0.1, "GB-month", "ebs_gp3_usd_per_gb_month")
    assert pricer.nat_gateway() == declared(0.07, "gateway-hour", "nat_gateway_usd_per_hour")
    assert _pricer().gp3() == Price(0.08, "GB-month", "gp3", "2026-01-01", "published")
    assert _pricer().nat_gateway() == Price(0.05, "gateway-hour", "nat", "2026-01-01", "published")


def test_a_blocks_quote_is_the_first_pools_on_it_that_has_one_else_the_first_pool_pays_unquoted():
    pricer = _pricer("{capacity_block_quotes: {spare: {usd_per_instance_hour: 20}, other: {total_usd: 100}}}")
    assert pricer.block_quote(["train", "spare", "other"])[0] == "spare"
    assert pricer.block_quote(["train", "spare", "other"])[1].usd_per_instance_hour == 20
    assert pricer.block_quote(["other", "spare"])[0] == "other"
    assert pricer.block_quote(["train", "gone"]) == ("train", None)


def test_a_blocks_rate_is_its_quoted_rate_else_the_tables_even_beside_a_quoted_total():
    pricer = _pricer("{capacity_block_quotes: {train: {usd_per_instance_hour: 25}, total: {total_usd: 100}}}")
    assert pricer.capacity_block_rate("train", "p5.48xlarge") == declared(25, "instance-hour", "capacity_block_quotes.train")
    table_rate = Price(30.0, "instance-hour", "blocks", "2026-01-01", "published")
    assert pricer.capacity_block_rate("total", "p5.48xlarge") == table_rate
    assert pricer.capacity_block_rate("unquoted", "p5.48xlarge") == table_rate
    assert pricer.capacity_block_rate("unquoted", "inf2.48xlarge") is None


def _unused(*changes: tuple[str, str], cost: str) -> list[dict]:
    blueprint = priced_blueprint(*changes, cost=cost)
    return [finding.as_json() for finding in declared_findings(blueprint, plan_node_groups(blueprint, load_catalog()))]


def _warning(path: str, message: str, hint: str) -> dict:
    return {
        "code": "cost.declared-unused",
        "severity": "warning",
        "path": path,
        "file": None,
        "line": None,
        "column": None,
        "message": message,
        "hint": hint,
    }


def test_every_declared_price_the_design_uses_is_no_finding():
    cost = (
        "{capacity_block_quotes: {train: {usd_per_instance_hour: 25}}, instance_usd_per_hour: {inf2.48xlarge: 11, m7i.xlarge: 0.2}, "
        "fsx_lustre: [{deployment_type: PERSISTENT_2, storage_type: SSD, throughput_mbps_per_tib: 250, usd_per_gb_month: 0.7}]}"
    )
    assert _unused(cost=cost) == []


def test_a_quote_for_a_pool_on_no_block_is_unused_naming_the_block_pools():
    assert _unused(cost="{capacity_block_quotes: {serve: {usd_per_instance_hour: 25}}}") == [
        _warning(
            "cost.capacity_block_quotes.serve",
            "cost.capacity_block_quotes names 'serve', which is not a Capacity Block pool (its Capacity Block pools: train)",
            "key each quote by the name of the pool whose capacity is the block",
        )
    ]


def test_a_quote_where_no_pool_is_on_a_block_says_there_is_none():
    on_demand = ("      kind: capacity_block\n", "      kind: capacity_reservation\n")
    (found,) = _unused(
        on_demand,
        ("      start: 2026-12-01T00:00:00Z\n      end: 2026-12-08T00:00:00Z\n", ""),
        cost="{capacity_block_quotes: {train: {total_usd: 5}}}",
    )
    assert found["message"] == "cost.capacity_block_quotes names 'train', which is not a Capacity Block pool (the blueprint has none)"


def test_a_block_quoted_under_both_its_pools_keeps_the_served_pools_quote():
    found = _unused(("pools:\n", "pools:\n" + SPARE), cost="{capacity_block_quotes: {spare: {total_usd: 5}, train: {total_usd: 6}}}")
    assert found == [
        _warning(
            "cost.capacity_block_quotes.spare",
            f"cost.capacity_block_quotes quotes pool 'spare', whose Capacity Block {BLOCK_ID} is quoted already under 'train': a block is "
            "priced once, with its first quote",
            f"keep one quote for {BLOCK_ID}, under 'train'",
        )
    ]


def test_a_rate_for_a_type_nothing_runs_is_unused_naming_the_types_the_design_runs():
    assert _unused(cost="{instance_usd_per_hour: {p5e.48xlarge: 50, m7i.xlarge: 0.2}}") == [
        _warning(
            "cost.instance_usd_per_hour.p5e.48xlarge",
            "cost.instance_usd_per_hour prices p5e.48xlarge, which no pool or system node group runs",
            "drop it, or check the name against the types the design runs: inf2.48xlarge, m7i.xlarge, p5.48xlarge",
        )
    ]


def test_a_lustre_price_for_a_tier_railyard_does_not_make_is_unused_at_its_index():
    cost = (
        "{fsx_lustre: [{deployment_type: PERSISTENT_2, storage_type: SSD, throughput_mbps_per_tib: 250, usd_per_gb_month: 0.7}, "
        "{deployment_type: PERSISTENT_2, storage_type: SSD, throughput_mbps_per_tib: 500, usd_per_gb_month: 0.9}, "
        "{deployment_type: SCRATCH_2, storage_type: SSD, usd_per_gb_month: 0.1}]}"
    )
    assert _unused(cost=cost) == [
        _warning(
            "cost.fsx_lustre[1]",
            "cost.fsx_lustre prices PERSISTENT_2 SSD 500 MB/s/TiB, which no FSx for Lustre file system railyard makes uses",
            "match deployment_type, storage_type and throughput_mbps_per_tib to a storage tier's, or drop it",
        ),
        _warning(
            "cost.fsx_lustre[2]",
            "cost.fsx_lustre prices SCRATCH_2 SSD, which no FSx for Lustre file system railyard makes uses",
            "match deployment_type, storage_type and throughput_mbps_per_tib to a storage tier's, or drop it",
        ),
    ]


def test_a_lustre_price_for_an_existing_file_system_is_unused():
    existing = (
        "    existing:\n      id: fs-0a1b2c3d4e5f60718\n      dns_name: fs-0a1b2c3d4e5f60718.fsx.us-east-1.amazonaws.com\n"
        "      mount_name: abcdefgh\n      security_group_id: sg-0a1b2c3d4e5f60719\n      availability_zone: us-east-1a\n"
    )
    cost = "{fsx_lustre: [{deployment_type: PERSISTENT_2, storage_type: SSD, throughput_mbps_per_tib: 250, usd_per_gb_month: 0.7}]}"
    (found,) = _unused(("    metadata: {mode: automatic}\n", existing), cost=cost)
    assert found["path"] == "cost.fsx_lustre[0]"


def test_a_lustre_tier_is_priced_for_its_own_storage_type():
    hdd = table(fsx_lustre={"prices": [service(0.04, "GB-month", "hdd", deployment_type="PERSISTENT_1", storage_type="HDD", throughput=12)]})
    pricer = Pricer(priced_blueprint(), hdd)
    assert pricer.lustre("PERSISTENT_1", "HDD", 12) == Price(0.04, "GB-month", "hdd", "2026-01-01", "published")
    assert pricer.lustre("PERSISTENT_1", "SSD", 12) is None


def test_a_lustre_gap_without_a_throughput_names_the_tier_and_nothing_after_it():
    why = _pricer().lustre_gap("SCRATCH_2", "SSD", None).why
    assert why.split("SCRATCH_2 SSD", 1)[1][:1] in (" ", "'")


def test_a_quote_under_the_spare_alone_prices_its_served_pools_block_once():
    assert _unused(("pools:\n", "pools:\n" + SPARE), cost="{capacity_block_quotes: {spare: {total_usd: 5}}}") == []


def test_a_quote_for_a_pool_on_no_block_names_every_block_pool():
    (found,) = _unused(("pools:\n", "pools:\n" + SPARE), cost="{capacity_block_quotes: {serve: {total_usd: 5}}}")
    assert found["message"] == "cost.capacity_block_quotes names 'serve', which is not a Capacity Block pool (its Capacity Block pools: spare, train)"
