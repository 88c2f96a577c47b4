"""A design's cost: recomputed by hand from the price tables for two examples, and never zero where a price is unknown."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from blueprints.catalog import load_catalog
from blueprints.catalog.ec2_sources import PriceSourceError, parse_karpenter_table
from blueprints.catalog.pins import load_pins
from blueprints.catalog.prices import generate, load_prices
from railyard.cli import main
from railyard.pipeline import validate
from tests.yaml_text import edited_copy
from topology.cluster.node_groups import plan_node_groups
from topology.cost import cost_report

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
TABLE = load_prices()


def _od(instance_type: str) -> float:
    price = TABLE.on_demand("us-east-1", instance_type)
    assert price is not None
    return price.usd


def _service(name: str) -> float:
    price = TABLE.service(name, "us-east-1")
    assert price is not None
    return price.usd


def _lines(result) -> dict[str, object]:
    return {line.key: line for line in result.cost.lines}


def test_the_dgx_superpod_costs_its_127_on_demand_nodes_system_nodes_volumes_gateways_and_control_plane():
    result = validate(str(EXAMPLES / "dgx-h100-superpod.yaml"))
    # By hand, from the example (127 p5.48xlarge On-Demand; two m7i.xlarge system nodes; 200 GiB roots for
    # accelerator nodes and 50 GiB for system nodes; two zones, so two NAT gateways; Kubernetes 1.35 in
    # standard support on the standard tier) and the tables' prices.
    pool = 127 * _od("p5.48xlarge")
    system = 2 * _od("m7i.xlarge")
    volumes = (127 * 200 + 2 * 50) * _service("ebs_gp3_storage") / 730
    gateways = 2 * (_service("nat_gateway_hour") + _service("public_ipv4_address_hour"))  # each with its Elastic IP
    plane = 0.10
    assert pool == pytest.approx(127 * 55.04)
    assert result.cost.hourly_usd == pytest.approx(pool + system + volumes + gateways + plane)
    assert result.cost.monthly_usd == pytest.approx((pool + system + volumes + gateways + plane) * 730)
    assert not result.cost.unknown and result.cost.upfront_usd == 0


def test_a_reserved_pool_in_an_existing_vpc_costs_every_reserved_instance_and_no_nat_gateway():
    result = validate(str(EXAMPLES / "parallelcluster-odcr.yaml"))
    lines = _lines(result)
    # 16 p5en.48xlarge reserved (billed whether used or not), two system nodes, roots, the control plane;
    # the team's VPC is theirs, so its NAT gateways are not this stack's cost, nor is the existing file system.
    reserved = 16 * _od("p5en.48xlarge")
    volumes = (16 * 200 + 2 * 50) * _service("ebs_gp3_storage") / 730
    expected = reserved + 2 * _od("m7i.xlarge") + volumes + 0.10
    assert lines["pool:gpu-queue"].kind == "capacity_reservation" and lines["pool:gpu-queue"].hourly_usd == pytest.approx(reserved)
    assert "nat-gateways" not in lines and not any(key.startswith("storage:") for key in lines)
    assert result.cost.hourly_usd == pytest.approx(expected)


def test_a_capacity_block_is_its_instance_hour_rate_while_it_runs_and_its_whole_window_upfront():
    result = validate(str(EXAMPLES / "p5-capacity-block.yaml"))
    block = _lines(result)["pool:train"]
    rate = TABLE.capacity_block("us-east-1", "p5.48xlarge")
    assert rate is not None
    pool = result.blueprint.pools[0]
    hours = (pool.capacity.end - pool.capacity.start).total_seconds() / 3600
    assert block.hourly_usd == pytest.approx(pool.capacity.instance_count * rate.usd)
    assert block.upfront_usd == pytest.approx(pool.capacity.instance_count * rate.usd * hours)
    # A block is paid upfront, so a month's running cost leaves it out.
    assert result.cost.monthly_usd == pytest.approx((result.cost.hourly_usd - block.hourly_usd) * 730)


def test_an_unknown_price_is_named_never_zero_and_left_out_of_the_totals():
    result = validate(str(EXAMPLES / "dev-g6e.yaml"))  # us-west-2: no source railyard may ship prices its instances
    pool = _lines(result)["pool:dev"]
    # The reason is a fact of the world, dated: no openly licensed copy of AWS's us-west-2 rates, never "the table's reach".
    assert pool.hourly_usd is None and pool.unknown == (
        "no source prices it: AWS publishes g6e.xlarge's On-Demand rate for us-west-2 in its Price List, and no openly licensed, "
        'current copy of that could be found to ship with railyard (searched 2026-11-29; docs/cost.md, "What railyard does not know")'
    )
    assert pool.hint == (
        "declare cost.instance_usd_per_hour.g6e.xlarge (USD per instance-hour), or add AWS's EC2 offer file for us-west-2 "
        "(see 'Refreshing the tables')"
    )
    unknown = [finding for finding in result.findings if finding.code == "cost.price-unknown"]
    assert {finding.path for finding in unknown} >= {("pools", 0, "capacity")}
    assert {finding.hint for finding in unknown if finding.path == ("pools", 0, "capacity")} == {pool.hint}
    assert all(finding.severity == "info" for finding in unknown)
    assert result.cost.hourly_usd == pytest.approx(sum(line.hourly_usd for line in result.cost.lines if line.hourly_usd is not None))


def test_declared_prices_and_discounts_price_what_the_tables_cannot(tmp_path):
    declared = (
        "cost:\n  spot_discount: 0.6\n  on_demand_discount: 0.25\n  instance_usd_per_hour: {g6e.xlarge: 1.861, m7i.xlarge: 0.2016}\nkubernetes:"
    )
    path = edited_copy(EXAMPLES / "dev-g6e.yaml", tmp_path, ("kubernetes:", declared))
    result = validate(str(path))
    assert result.ok, [finding.message for finding in result.findings if finding.severity == "error"]
    pool = _lines(result)["pool:dev"]
    desired = result.blueprint.pools[0].desired_nodes
    assert pool.hourly_usd == pytest.approx(desired * 1.861 * 0.75) and "less 25%" in pool.basis


def test_the_control_plane_costs_extended_support_once_the_versions_standard_support_has_ended():
    result = validate(str(EXAMPLES / "dgx-h100-superpod.yaml"))
    ends = load_pins().eks_version(result.blueprint.kubernetes.version).end_of_standard
    groups = plan_node_groups(result.blueprint, load_catalog())
    on_the_day = cost_report(result.blueprint, groups, "standard", TABLE, ends)
    after = cost_report(result.blueprint, groups, "tier-xl", TABLE, ends + timedelta(days=1))
    assert {line.key: line for line in on_the_day.lines}["control-plane"].hourly_usd == pytest.approx(0.10)
    plane = {line.key: line for line in after.lines}["control-plane"]
    assert plane.hourly_usd == pytest.approx(0.60 + 1.65) and "extended support, tier-xl" in plane.item


def test_every_example_has_its_cost_in_validate_json(capsys):
    for path in sorted(EXAMPLES.glob("*.yaml")):
        main(["validate", str(path), "--json"])
        document = json.loads(capsys.readouterr().out)
        cost = document["cost"]
        assert cost is not None and cost["currency"] == "USD", path.name
        assert cost["hourly_usd"] >= 0.10 and cost["lines"][-1]["key"] == "control-plane", path.name
        assert all((line["hourly_usd"] is None) == bool(line["unknown"]) for line in cost["lines"]), path.name
        # An unknown is never zero: a figure is a number or null with its reason, and every total names what it leaves out.
        unpriced = {line["key"] for line in cost["lines"] if line["unknown"]}
        assert {item["key"] for item in cost["left_out"]["hourly_usd"]} == unpriced, path.name
        upfront_unknown = {line["key"] for line in cost["lines"] if line["kind"] == "capacity_block" and line["upfront_usd"] is None}
        assert {item["key"] for item in cost["left_out"]["upfront_usd"]} == upfront_unknown, path.name


def test_the_price_table_is_current_and_regenerates_byte_identically():
    committed = (Path(__file__).resolve().parents[2] / "blueprints" / "catalog" / "prices.json").read_text()
    assert generate() == committed == generate()
    document = json.loads(committed)
    ec2 = document["ec2_on_demand"]
    # Each region's rows name their source: Karpenter's us-east-1 table, and its GovCloud one.
    assert ec2["region_source"] == {
        "us-east-1": "karpenter:karpenter_pricing_aws.go",
        "us-gov-east-1": "karpenter:karpenter_pricing_aws_us_gov.go",
        "us-gov-west-1": "karpenter:karpenter_pricing_aws_us_gov.go",
    }
    source = ec2["sources"]["karpenter:karpenter_pricing_aws.go"]
    assert source["generated_at"] == "2026-07-20T13:44:30Z" and len(source["commit"]) == 40
    assert ec2["sources"]["karpenter:karpenter_pricing_aws_us_gov.go"]["generated_at"] == "2026-07-20T13:44:38Z"
    assert set(ec2["prices"]) == set(ec2["region_source"])
    for entry in document["services"].values():
        for row in entry.get("prices", [entry]):
            merged = {**entry, **row}
            assert merged["source"] and merged["date"] and merged["unit"] and merged["usd"] >= 0


def test_karpenters_table_is_read_by_region_and_a_file_of_another_shape_is_refused():
    shaped = (
        "package pricing\n\n// generated at 2026-07-20T13:44:30Z for us-east-1\n\n"
        "var InitialOnDemandPricesAWS = map[string]map[ec2types.InstanceType]float64{\n"
        '\t// us-east-1\n\t"us-east-1": {\n\t\t// p5 family\n\t\t"p5.48xlarge": 55.040000, "p5.4xlarge": 6.880000,\n\t},\n'
        '\t"us-west-2": {\n\t\t"g6e.xlarge": 1.861000,\n\t},\n}\n'
    )
    stamp, table = parse_karpenter_table(shaped)
    assert stamp == "2026-07-20T13:44:30Z"
    assert table == {"us-east-1": {"p5.48xlarge": 55.04, "p5.4xlarge": 6.88}, "us-west-2": {"g6e.xlarge": 1.861}}
    with pytest.raises(PriceSourceError, match="generated at"):
        parse_karpenter_table('"p5.48xlarge": 55.04')


def test_the_preview_ends_with_what_the_plan_costs():
    from railyard.commands.preview import render
    from tests.preview.conftest import preview_of

    result = preview_of("p5-capacity-block")
    cost = result.validation.cost
    line = render(result).rsplit("\n\n", 1)[-1]
    lustre = "storage lustre: FSx for Lustre PERSISTENT_2 (unpriced: no source prices it)"
    assert line == (
        f"cost (us-east-1, USD): per hour: ${cost.hourly_usd:,.2f} as planned, ${cost.hourly_at_max_usd:,.2f} at max size; leaves out {lustre}. "
        f"a month: ${cost.monthly_usd:,.2f} (730 h); leaves out pool train: p5.48xlarge (Capacity Block, paid upfront for its window), {lustre}. "
        f"upfront: ${cost.upfront_usd:,.2f} for Capacity Blocks. (`railyard validate` lists every line; docs/cost.md)"
    )


def test_each_nat_gateway_costs_its_public_ipv4_address_beside_its_gateway_hour():
    # p5-capacity-block: two zones, so two NAT gateways, each holding one Elastic IP (components/network.py),
    # billed at $0.005 per public IPv4 address-hour in every region since 2024-02-01.
    nat = _lines(validate(str(EXAMPLES / "p5-capacity-block.yaml")))["nat-gateways"]
    address = TABLE.service("public_ipv4_address_hour", "eu-west-1")
    assert address is not None and (address.usd, address.unit, address.date) == (0.005, "address-hour", "2024-02-01")
    assert nat.hourly_usd == pytest.approx(2 * 0.045 + 2 * 0.005) == nat.hourly_at_max_usd
    assert nat.basis == "2 × $0.045/gateway-hour + 2 public IPv4 × $0.005/address-hour (data processed left out)"
    assert nat.source.endswith(address.source) and "identify-and-optimize-public-ipv4-address-usage-on-aws" in address.source
