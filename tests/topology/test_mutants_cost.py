"""topology/cost.py's figures, each line compared whole, against a price table made here with round prices (so every
figure is worked out in the test, whatever table railyard ships): a pool by where its instances come from (On-Demand
with and without a discount, spot with and without its discount or its price, a reservation billed for its reserved
instances when fewer run and for every node when more may), the system nodes of one type and of two, the root
volumes, FSx for Lustre tiers made and not, NAT gateways and their addresses, the control plane on the last day of
standard support and the day after, each price missing in turn, and `cost.price-unknown` for a line and for an upfront.

Blueprints are `tests/blueprints/base.BASE` changed one snippet at a time; node groups are the planner's, resized."""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import Any

import pytest

from blueprints.catalog import load_catalog
from blueprints.catalog.prices import Price, PriceTable
from tests.topology.round_prices import ELSEWHERE, HOURS, SPARE, TABLE, TABLE_SOURCE, line_fields, priced_blueprint, service, table
from topology.cluster.node_groups import plan_node_groups
from topology.cost import cost_findings, cost_report
from topology.cost_prices import Gap, Pricer, unsourced
from topology.cost_report import CostLine

CATALOG = load_catalog()
LAST_STANDARD_DAY = date(2027, 3, 27)  # Kubernetes 1.35's end of standard support in the pinned EKS calendar
DAY = date(2026, 12, 1)


def _groups(blueprint, **sizes: tuple[int, int]):
    """The planner's node groups, those named in `sizes` set to (desired, most)."""
    groups = plan_node_groups(blueprint, CATALOG)
    return [
        dataclasses.replace(group, desired_size=sizes[group.name][0], max_size=sizes[group.name][1]) if group.name in sizes else group
        for group in groups
    ]


def _lines(blueprint, groups=None, prices: PriceTable = TABLE, tier: str = "standard", today: date = DAY) -> dict[str, CostLine]:
    report = cost_report(blueprint, _groups(blueprint) if groups is None else groups, tier, prices, today)
    assert (report.region, report.hours_per_month) == ("us-east-1", HOURS)
    return {line.key: line for line in report.lines}


def _gap(blueprint, prices: PriceTable, instance_type: str) -> Gap:
    """Why the pricer has no On-Demand rate for `instance_type` (its words are topology/cost_prices.py's): what a line passes on."""
    return Pricer(blueprint, prices).on_demand_gap(instance_type)


def _fields(line: CostLine) -> dict[str, Any]:
    return dataclasses.asdict(line)


SERVE = "    nodes: {min: 1, max: 4}\n"
# serve's two node groups resized to 2 + 1 desired and 5 + 3 at most: 3 nodes planned, 8 at most.
SERVE_SIZES = {"serve-za": (2, 5), "serve-zb": (1, 3)}
SERVE_ITEM = "pool serve: inf2.48xlarge"
SERVE_PATH = ("pools", 1, "capacity")


def _serve(capacity: str, cost: str = "") -> dict[str, Any]:
    blueprint = priced_blueprint((SERVE, SERVE + f"    capacity: {capacity}\n"), cost=cost)
    return _fields(_lines(blueprint, _groups(blueprint, **SERVE_SIZES))["pool:serve"])


def test_an_on_demand_pool_costs_its_planned_nodes_and_its_most_at_the_tables_rate():
    assert _serve("{kind: on_demand}") == line_fields(
        "pool:serve", SERVE_ITEM, "on_demand", SERVE_PATH, 3 * 12.0, 8 * 12.0, "3 × $12/instance-hour", TABLE_SOURCE
    )


def test_an_on_demand_discount_is_taken_off_the_rate_once():
    assert _serve("{kind: on_demand}", "{on_demand_discount: 0.25}") == line_fields(
        "pool:serve", SERVE_ITEM, "on_demand", SERVE_PATH, 3 * 9.0, 8 * 9.0, "3 × $12/instance-hour less 25%", TABLE_SOURCE
    )


def test_a_spot_pool_costs_on_demand_less_the_declared_spot_discount_and_not_the_on_demand_one():
    assert _serve("{kind: spot}", "{spot_discount: 0.75, on_demand_discount: 0.5}") == line_fields(
        "pool:serve", SERVE_ITEM, "spot", SERVE_PATH, 3 * 3.0, 8 * 3.0, "3 × $12/instance-hour less 75% (declared spot discount)", TABLE_SOURCE
    )


def test_a_spot_pool_without_a_declared_discount_is_unpriced_with_the_field_to_declare():
    assert _serve("{kind: spot}") == line_fields(
        "pool:serve",
        SERVE_ITEM,
        "spot",
        SERVE_PATH,
        None,
        None,
        "3-8 spot",
        unknown="spot prices are the account's",
        hint="declare cost.spot_discount",
    )


def test_a_spot_pool_with_a_discount_but_no_rate_is_unpriced_for_the_rate():
    blueprint = priced_blueprint((SERVE, SERVE + "    capacity: {kind: spot}\n"), cost="{spot_discount: 0.5}")
    prices = table(on_demand={})  # no type has a rate
    line = _fields(_lines(blueprint, _groups(blueprint, **SERVE_SIZES), prices)["pool:serve"])
    assert line == line_fields(
        "pool:serve",
        SERVE_ITEM,
        "spot",
        SERVE_PATH,
        None,
        None,
        "3-8 spot",
        unknown=_gap(blueprint, prices, "inf2.48xlarge").why,
        hint=_gap(blueprint, prices, "inf2.48xlarge").hint,
    )


def test_an_on_demand_pool_without_a_rate_is_unpriced_never_free():
    blueprint = priced_blueprint()
    prices = table(on_demand={"p5.48xlarge": 40.0, "m7i.xlarge": 0.25})
    line = _fields(_lines(blueprint, _groups(blueprint, **SERVE_SIZES), prices)["pool:serve"])
    assert line == line_fields(
        "pool:serve",
        SERVE_ITEM,
        "on_demand",
        SERVE_PATH,
        None,
        None,
        "3-8 nodes",
        unknown=_gap(blueprint, prices, "inf2.48xlarge").why,
        hint=_gap(blueprint, prices, "inf2.48xlarge").hint,
    )


BLOCK = "      kind: capacity_block\n"
WINDOW = "      start: 2026-12-01T00:00:00Z\n      end: 2026-12-08T00:00:00Z\n"
TRAIN_ITEM = "pool train: p5.48xlarge"
TRAIN_PATH = ("pools", 0, "capacity")


def _reserved(count: int, desired: int, most: int, cost: str = "") -> dict[str, Any]:
    """The train pool on a capacity reservation of `count` instances, its node group `desired` and at `most`."""
    blueprint = priced_blueprint(
        (BLOCK, "      kind: capacity_reservation\n"), ("      instance_count: 8\n", f"      instance_count: {count}\n"), (WINDOW, ""), cost=cost
    )
    return _fields(_lines(blueprint, _groups(blueprint, **{"train-za": (desired, most)}))["pool:train"])


def test_a_reservation_is_billed_for_every_reserved_instance_when_fewer_run():
    assert _reserved(6, 2, 4) == line_fields(
        "pool:train",
        TRAIN_ITEM,
        "capacity_reservation",
        TRAIN_PATH,
        6 * 40.0,
        6 * 40.0,
        "6 reserved × $40/instance-hour, billed used or not",
        TABLE_SOURCE,
    )


def test_a_reservation_smaller_than_the_pool_bills_each_node_past_it_at_the_same_rate():
    assert _reserved(3, 5, 7, "{on_demand_discount: 0.5}") == line_fields(
        "pool:train",
        TRAIN_ITEM,
        "capacity_reservation",
        TRAIN_PATH,
        5 * 20.0,
        7 * 20.0,
        "3 reserved × $40/instance-hour less 50%, billed used or not",
        TABLE_SOURCE,
    )


def test_a_reservation_group_of_no_stated_count_is_billed_for_the_pools_most():
    group = "      kind: reservation_group\n      reservation_ids: [cr-0123456789abcdef0]\n"
    blueprint = priced_blueprint((BLOCK + "      reservation_id: cr-0123456789abcdef0\n", group), ("      instance_count: 8\n", ""), (WINDOW, ""))
    line = _fields(_lines(blueprint, _groups(blueprint, **{"train-za": (2, 6)}))["pool:train"])
    assert line == line_fields(
        "pool:train",
        TRAIN_ITEM,
        "capacity_reservation",
        TRAIN_PATH,
        6 * 40.0,
        6 * 40.0,
        "6 reserved × $40/instance-hour, billed used or not",
        TABLE_SOURCE,
    )


def test_a_capacity_block_is_priced_by_the_blocks_module_at_its_rate_and_window():
    line = _fields(_lines(priced_blueprint())["pool:train"])
    assert line == line_fields(
        "pool:train",
        TRAIN_ITEM,
        "capacity_block",
        TRAIN_PATH,
        8 * 30.0,
        8 * 30.0,
        "8 × $30/instance-hour (indicative: the rate of 2026-01-01; AWS prices a block when it offers it); 168 h window paid upfront",
        "blocks",
        upfront_usd=pytest.approx(8 * 30.0 * 168),
    )


def _system(groups, cost: str = "", prices: PriceTable = TABLE) -> dict[str, Any]:
    return _fields(_lines(priced_blueprint(cost=cost), groups, prices)["system-nodes"])


def _system_groups(*shapes: tuple[str, int, int]):
    """The planner's groups with its system group replaced by one of each (type, desired, most)."""
    planned = plan_node_groups(priced_blueprint(), CATALOG)
    (system,) = [group for group in planned if group.system]
    made = [
        dataclasses.replace(system, name=f"system-{index}", instance_type=kind, desired_size=desired, max_size=most)
        for index, (kind, desired, most) in enumerate(shapes)
    ]
    return [group for group in planned if not group.system] + made


SYSTEM_PATH = ("kubernetes", "system_nodes")


def test_system_nodes_of_one_type_cost_their_desired_and_most_at_its_rate():
    assert _system(_system_groups(("m7i.xlarge", 2, 3), ("m7i.xlarge", 1, 4)), "{on_demand_discount: 0.2}") == line_fields(
        "system-nodes", "system nodes: m7i.xlarge", "system", SYSTEM_PATH, 3 * 0.2, 7 * 0.2, "3 × $0.25/instance-hour less 20%", TABLE_SOURCE
    )


def test_system_nodes_of_two_types_name_both_and_take_the_first_types_source():
    declared = "{instance_usd_per_hour: {m7i.2xlarge: 2.0}}"
    assert _system(_system_groups(("m7i.xlarge", 2, 3), ("m7i.2xlarge", 1, 5)), declared) == line_fields(
        "system-nodes",
        "system nodes: m7i.2xlarge, m7i.xlarge",
        "system",
        SYSTEM_PATH,
        2 * 0.25 + 1 * 2.0,
        3 * 0.25 + 5 * 2.0,
        "3 nodes of 2 types",
        "declared in the blueprint (cost.instance_usd_per_hour)",
    )


def test_system_nodes_with_one_type_unpriced_are_unpriced_for_it():
    prices = table(on_demand={"p5.48xlarge": 40.0, "inf2.48xlarge": 12.0, "m7i.xlarge": 0.25})
    assert _system(_system_groups(("m7i.xlarge", 2, 3), ("m7i.2xlarge", 1, 5)), prices=prices) == line_fields(
        "system-nodes",
        "system nodes: m7i.2xlarge, m7i.xlarge",
        "system",
        SYSTEM_PATH,
        None,
        None,
        "3 nodes",
        unknown=_gap(priced_blueprint(), prices, "m7i.2xlarge").why,
        hint=_gap(priced_blueprint(), prices, "m7i.2xlarge").hint,
    )


def test_without_system_groups_or_any_group_there_is_no_system_or_volume_line():
    blueprint = priced_blueprint()
    without = [group for group in plan_node_groups(blueprint, CATALOG) if not group.system]
    assert "system-nodes" not in _lines(blueprint, without) and "root-volumes" in _lines(blueprint, without)
    assert {"system-nodes", "root-volumes"}.isdisjoint(_lines(blueprint, []))


def test_root_volumes_cost_every_nodes_gib_at_desired_and_at_most():
    blueprint = priced_blueprint()
    groups = [dataclasses.replace(group, root_volume_gib=100 + index) for index, group in enumerate(_groups(blueprint, **SERVE_SIZES))]
    desired = sum(group.desired_size * group.root_volume_gib for group in groups)
    most = sum(group.max_size * group.root_volume_gib for group in groups)
    # system 2 of 100 GiB (at most 4), train 8 of 101, serve 2 of 102 and 1 of 103 (at most 5 and 3)
    assert (desired, most) == (2 * 100 + 8 * 101 + 2 * 102 + 103, 4 * 100 + 8 * 101 + 5 * 102 + 3 * 103)
    assert _fields(_lines(blueprint, groups)["root-volumes"]) == line_fields(
        "root-volumes",
        "root volumes (gp3)",
        "storage",
        ("pools",),
        desired * 0.08 / HOURS,
        most * 0.08 / HOURS,
        f"{desired:,} GiB × $0.08/GB-month",
        "gp3",
    )


def test_root_volumes_without_a_gp3_price_are_unpriced_with_the_field_to_declare():
    prices = table(ebs_gp3_storage=service(0.08, "GB-month", "gp3", ELSEWHERE))
    blueprint = priced_blueprint()
    groups = _groups(blueprint)
    desired = sum(group.desired_size * group.root_volume_gib for group in groups)
    assert desired > 1000  # printed with a thousands separator
    assert _fields(_lines(blueprint, groups, prices)["root-volumes"]) == line_fields(
        "root-volumes",
        "root volumes (gp3)",
        "storage",
        ("pools",),
        None,
        None,
        f"{desired:,} GiB",
        unknown=unsourced("EBS gp3 storage's rate", "us-east-1"),
        hint="declare cost.ebs_gp3_usd_per_gb_month (USD per GB-month)",
    )


LUSTRE = "  - kind: fsx_lustre\n    name: lustre\n"
LUSTRE_ITEM = "storage lustre: FSx for Lustre PERSISTENT_2"


def test_a_lustre_tier_railyard_makes_costs_its_capacity_at_the_tiers_rate_at_its_place():
    # The S3 tier listed first puts the file system at storage[1].
    blueprint = priced_blueprint(("storage:\n  - kind: fsx_lustre", "storage:\n  - kind: s3\n    name: first\n  - kind: fsx_lustre"))
    assert _fields(_lines(blueprint)["storage:lustre"]) == line_fields(
        "storage:lustre", LUSTRE_ITEM, "storage", ("storage", 1), 2400 * 0.2 / HOURS, 2400 * 0.2 / HOURS, "2,400 GiB × $0.2/GB-month", "lustre"
    )


def test_a_lustre_tier_without_a_price_is_unpriced_and_the_next_tier_still_priced():
    second = "  - kind: fsx_lustre\n    name: scratch\n    deployment_type: SCRATCH_2\n    capacity_gib: 1200\n"
    blueprint = priced_blueprint(("  - kind: s3\n", second + "  - kind: s3\n"))
    prices = table(fsx_lustre={"prices": [service(0.1, "GB-month", "scratch", deployment_type="SCRATCH_2", storage_type="SSD")]})
    lines = _lines(blueprint, prices=prices)
    assert _fields(lines["storage:lustre"]) == line_fields(
        "storage:lustre",
        LUSTRE_ITEM,
        "storage",
        ("storage", 0),
        None,
        None,
        "2,400 GiB",
        unknown=Pricer(blueprint, prices).lustre_gap("PERSISTENT_2", "SSD", 250).why,
        hint=Pricer(blueprint, prices).lustre_gap("PERSISTENT_2", "SSD", 250).hint,
    )
    assert _fields(lines["storage:scratch"]) == line_fields(
        "storage:scratch",
        "storage scratch: FSx for Lustre SCRATCH_2",
        "storage",
        ("storage", 1),
        1200 * 0.1 / HOURS,
        1200 * 0.1 / HOURS,
        "1,200 GiB × $0.1/GB-month",
        "scratch",
    )


def test_an_existing_file_system_and_an_s3_tier_cost_nothing_here():
    existing = (
        "    existing:\n      id: fs-0a1b2c3d4e5f60718\n      dns_name: fs-0a1b2c3d4e5f60718.fsx.us-east-1.amazonaws.com\n"
        "      mount_name: abcdefgh\n      security_group_id: sg-0a1b2c3d4e5f60719\n      availability_zone: us-east-1a\n"
    )
    blueprint = priced_blueprint(("    metadata: {mode: automatic}\n", existing))
    assert list(_lines(blueprint)) == ["pool:train", "pool:serve", "system-nodes", "root-volumes", "nat-gateways", "control-plane"]


def test_nat_gateways_cost_one_gateway_and_one_public_address_per_zone():
    assert _fields(_lines(priced_blueprint())["nat-gateways"]) == line_fields(
        "nat-gateways",
        "NAT gateways (2, one per zone)",
        "network",
        ("cloud", "availability_zones"),
        2 * (0.05 + 0.005),
        2 * (0.05 + 0.005),
        "2 × $0.05/gateway-hour + 2 public IPv4 × $0.005/address-hour (data processed left out)",
        "nat; ipv4",
    )


def test_nat_gateways_without_a_gateway_price_or_an_address_price_are_unpriced_for_that_one():
    no_gateway = table(nat_gateway_hour=service(0.05, "gateway-hour", "nat", ELSEWHERE))
    assert _fields(_lines(priced_blueprint(), prices=no_gateway)["nat-gateways"]) == line_fields(
        "nat-gateways",
        "NAT gateways (2, one per zone)",
        "network",
        ("cloud", "availability_zones"),
        None,
        None,
        "2 gateways",
        unknown=unsourced("the NAT gateway-hour rate", "us-east-1"),
        hint="declare cost.nat_gateway_usd_per_hour (USD per gateway-hour)",
    )
    no_address = table(public_ipv4_address_hour=service(0.005, "address-hour", "ipv4", ELSEWHERE))
    line = _lines(priced_blueprint(), prices=no_address)["nat-gateways"]
    assert (line.hourly_usd, line.basis) == (None, "2 gateways")
    assert (line.unknown, line.hint) == (
        unsourced("the public IPv4 address-hour rate", "us-east-1"),
        "add it to blueprints/catalog/service_prices.yaml",
    )


def test_a_declared_nat_price_is_used_and_an_existing_vpc_has_no_gateway_line():
    line = _lines(priced_blueprint(cost="{nat_gateway_usd_per_hour: 0.1}"))["nat-gateways"]
    assert line.hourly_usd == pytest.approx(2 * 0.105)
    existing = (
        "  existing_vpc:\n    id: vpc-0123456789abcdef0\n    subnets:\n"
        "      - {id: subnet-0123456789abcdef0, availability_zone: us-east-1a, cidr: 10.0.0.0/20}\n"
        "      - {id: subnet-0123456789abcdef1, availability_zone: us-east-1b, cidr: 10.0.16.0/20}\n"
    )
    lines = _lines(priced_blueprint(("  vpc_cidr: 10.0.0.0/16\n", "  vpc_cidr: 10.0.0.0/16\n" + existing)))
    assert "nat-gateways" not in lines and "control-plane" in lines


PLANE_PATH = ("kubernetes", "version")


def test_the_control_plane_on_its_versions_last_standard_day_costs_standard_support():
    line = _lines(priced_blueprint(), today=LAST_STANDARD_DAY)["control-plane"]
    assert _fields(line) == line_fields(
        "control-plane",
        "EKS control plane (Kubernetes 1.35, standard support, standard)",
        "control_plane",
        PLANE_PATH,
        0.1,
        0.1,
        "$0.1/cluster-hour standard support (until 2027-03-27)",
        "eks",
    )


def test_the_control_plane_the_day_after_costs_extended_support_and_a_tier_adds_its_price():
    line = _lines(priced_blueprint(), today=date(2027, 3, 28), tier="tier-xl")["control-plane"]
    assert _fields(line) == line_fields(
        "control-plane",
        "EKS control plane (Kubernetes 1.35, extended support, tier-xl)",
        "control_plane",
        PLANE_PATH,
        0.6 + 1.5,
        0.6 + 1.5,
        "$0.6/cluster-hour extended support (standard support ended 2027-03-27) + $1.5/cluster-hour tier-xl",
        "eks; tiers",
    )


def test_a_version_the_calendar_does_not_list_costs_standard_support_with_no_date():
    blueprint = priced_blueprint()
    unlisted = blueprint.model_copy(update={"kubernetes": blueprint.kubernetes.model_copy(update={"version": "1.99"})})
    line = _lines(unlisted, _groups(blueprint), today=date(2030, 1, 1))["control-plane"]
    assert (line.item, line.basis, line.hourly_usd) == (
        "EKS control plane (Kubernetes 1.99, standard support, standard)",
        "$0.1/cluster-hour standard support",
        0.1,
    )


@pytest.mark.parametrize(
    ("prices", "tier", "support"),
    [
        (table(eks_provisioned_control_plane={"prices": [service(0.0, "cluster-hour", "tiers", "*", tier="standard")]}), "tier-xl", "standard"),
        (table(eks_control_plane={"prices": [service(0.6, "cluster-hour", "eks", "*", support="extended")]}), "standard", "standard"),
    ],
    ids=["no-tier-price", "no-support-price"],
)
def test_a_control_plane_without_its_support_or_tier_price_is_unpriced(prices, tier, support):
    line = _lines(priced_blueprint(), prices=prices, tier=tier)["control-plane"]
    assert _fields(line) == line_fields(
        "control-plane",
        f"EKS control plane (Kubernetes 1.35, {support} support, {tier})",
        "control_plane",
        PLANE_PATH,
        None,
        None,
        "1 cluster",
        unknown=f"no EKS price for {support} support and tier {tier}",
        hint="add the price to blueprints/catalog/service_prices.yaml (docs/cost.md)",
    )


def test_the_report_lists_pools_in_order_then_system_volumes_storage_gateways_and_the_control_plane():
    assert list(_lines(priced_blueprint())) == [
        "pool:train",
        "pool:serve",
        "system-nodes",
        "root-volumes",
        "storage:lustre",
        "nat-gateways",
        "control-plane",
    ]


def test_system_groups_are_not_a_pools_nodes():
    blueprint = priced_blueprint()
    groups = _groups(blueprint, system=(5, 9), **SERVE_SIZES)
    assert _lines(blueprint, groups)["pool:serve"].hourly_usd == pytest.approx(3 * 12.0)


def test_an_unpriced_line_and_an_unknown_upfront_are_each_a_price_unknown_note():
    no_window = priced_blueprint((WINDOW, ""))
    no_address = table(public_ipv4_address_hour=service(0.005, "address-hour", "ipv4", ELSEWHERE))
    report = cost_report(no_window, _groups(no_window), "standard", no_address, DAY)
    found = [finding.as_json() for finding in cost_findings(report)]
    assert found == [
        {
            "code": "cost.price-unknown",
            "severity": "info",
            "path": "pools[0].capacity",
            "file": None,
            "line": None,
            "column": None,
            "message": "pool train: p5.48xlarge: the block states no start/end window, so what it costs for its window is unknown; "
            "the upfront total leaves it out",
            "hint": "set capacity.start and capacity.end (the block's window, as EC2 gives it), or declare "
            "cost.capacity_block_quotes.train.total_usd (the total AWS quoted)",
        },
        {
            "code": "cost.price-unknown",
            "severity": "info",
            "path": "cloud.availability_zones",
            "file": None,
            "line": None,
            "column": None,
            "message": f"NAT gateways (2, one per zone): {unsourced('the public IPv4 address-hour rate', 'us-east-1')}; the cost totals leave it out",
            "hint": "add it to blueprints/catalog/service_prices.yaml",
        },
    ]


def test_a_fully_priced_design_has_no_price_note():
    assert cost_findings(cost_report(priced_blueprint(), _groups(priced_blueprint()), "standard", TABLE, DAY)) == []


def test_the_table_made_here_prices_as_railyards_tables_do():
    price = TABLE.on_demand("us-east-1", "p5.48xlarge")
    assert price == Price(40.0, "instance-hour", TABLE_SOURCE, "2026-07-20", "generated")


def test_prices_listed_for_the_blueprints_region_only_are_found_there():
    # railyard's EKS and public IPv4 rows hold for every region ("*"); rows for us-east-1 alone must be found the same.
    regional = table(
        eks_control_plane={"prices": [service(0.1, "cluster-hour", "eks", support="standard")]},
        eks_provisioned_control_plane={"prices": [service(1.5, "cluster-hour", "tiers", tier="tier-xl")]},
        public_ipv4_address_hour=service(0.005, "address-hour", "ipv4"),
    )
    lines = _lines(priced_blueprint(), prices=regional, tier="tier-xl")
    assert (lines["control-plane"].hourly_usd, lines["nat-gateways"].hourly_usd) == (pytest.approx(1.6), pytest.approx(2 * 0.055))


def test_nat_gateways_without_an_address_price_are_a_whole_unpriced_network_line():
    no_address = table(public_ipv4_address_hour=service(0.005, "address-hour", "ipv4", ELSEWHERE))
    assert _fields(_lines(priced_blueprint(), prices=no_address)["nat-gateways"]) == line_fields(
        "nat-gateways",
        "NAT gateways (2, one per zone)",
        "network",
        ("cloud", "availability_zones"),
        None,
        None,
        "2 gateways",
        unknown=unsourced("the public IPv4 address-hour rate", "us-east-1"),
        hint="add it to blueprints/catalog/service_prices.yaml",
    )


def test_a_spare_on_its_served_pools_block_costs_nothing_more_and_the_served_pool_pays_once():
    lines = _lines(priced_blueprint(("pools:\n", "pools:\n" + SPARE)))
    assert _fields(lines["pool:spare"]) == line_fields(
        "pool:spare",
        "pool spare: p5.48xlarge",
        "capacity_block",
        ("pools", 0, "capacity"),
        0.0,
        0.0,
        "on Capacity Block cr-0123456789abcdef0 with pool train, priced once on pool train's line",
        upfront_usd=0.0,
        shared_with="train",
    )
    assert (lines["pool:train"].hourly_usd, lines["pool:train"].path, lines["pool:train"].shared_with) == (
        pytest.approx(8 * 30.0),
        ("pools", 1, "capacity"),
        "",
    )
