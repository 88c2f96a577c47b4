"""Every total says what it leaves out, an unknown is never zero, and every price the tables can lack can be declared.

Figures are worked by hand from the example and the tables: p5-capacity-block runs 64 p5.48xlarge in a Capacity
Block of 336 hours (2026-12-01T11:30Z to 2026-12-15T11:30Z) at the table's $41.528 per instance-hour, beside a
48,000 GiB PERSISTENT_2 file system at 500 MB/s/TiB that the table doesn't price.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from blueprints.catalog.offerings import load_offerings
from blueprints.catalog.offerings import main as offerings_main
from blueprints.catalog.prices import load_prices
from railyard.cli import main
from railyard.pipeline import validate
from tests.yaml_text import edited_copy
from topology.cost_prices import Pricer

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
P5 = EXAMPLES / "p5-capacity-block.yaml"
WINDOW = "      start: 2026-12-01T11:30:00Z\n      end: 2026-12-15T11:30:00Z\n"
BLOCK_HOURLY = 64 * 41.528
LUSTRE = "storage lustre: FSx for Lustre PERSISTENT_2"
IPV4 = load_prices().service("public_ipv4_address_hour", "us-west-2")


def _lines(result) -> dict:
    return {line.key: line for line in result.cost.lines}


def _declared(tmp_path: Path, cost: str, *edits: tuple[str, str]) -> object:
    path = edited_copy(P5, tmp_path, ("kubernetes:", f"cost:\n{cost}\nkubernetes:"), *edits)
    return validate(str(path))


def test_the_month_line_says_it_leaves_out_the_capacity_block_paid_upfront_and_the_unpriced_file_system(capsys):
    result = validate(str(P5))
    left_out = result.cost.as_json()["left_out"]
    assert [item["key"] for item in left_out["monthly_usd"]] == ["pool:train", "storage:lustre"]
    assert left_out["monthly_usd"][0]["why"] == "a Capacity Block is paid upfront for its window, so it is in the upfront total, not the month"
    assert left_out["monthly_usd"][1]["why"].startswith(
        "unpriced: no source prices it: AWS publishes FSx for Lustre PERSISTENT_2 SSD 500 MB/s/TiB's rate for us-east-1 in its Price List"
    )
    assert [item["key"] for item in left_out["hourly_usd"]] == [item["key"] for item in left_out["hourly_at_max_usd"]] == ["storage:lustre"]
    assert left_out["upfront_usd"] == []
    hourly = result.cost.hourly_usd
    assert hourly == pytest.approx(BLOCK_HOURLY + 0.4032 + 12_900 * 0.08 / 730 + 2 * (0.045 + 0.005) + 0.10)
    assert result.cost.monthly_usd == pytest.approx((hourly - BLOCK_HOURLY) * 730)
    assert result.cost.summary() == [
        f"per hour: ${hourly:,.2f} as planned, ${result.cost.hourly_at_max_usd:,.2f} at max size; "
        f"leaves out {LUSTRE} (unpriced: no source prices it)",
        f"a month: ${result.cost.monthly_usd:,.2f} (730 h); leaves out pool train: p5.48xlarge (Capacity Block, paid upfront for its window), "
        f"{LUSTRE} (unpriced: no source prices it)",
        f"upfront: ${BLOCK_HOURLY * 336:,.2f} for Capacity Blocks",
    ]
    main(["validate", str(P5)])
    text = capsys.readouterr().out
    assert "\n".join(result.cost.summary()) in text and "a month: $1,472.34 (730 h); leaves out pool train" in text


def test_a_capacity_block_without_a_window_has_an_unknown_upfront_named_never_zero(tmp_path):
    path = edited_copy(P5, tmp_path, (WINDOW, ""))
    result = validate(str(path))
    block = _lines(result)["pool:train"]
    assert (block.hourly_usd, block.upfront_usd) == (pytest.approx(BLOCK_HOURLY), None)
    assert block.upfront_unknown == "the block states no start/end window, so what it costs for its window is unknown"
    assert block.hint == (
        "set capacity.start and capacity.end (the block's window, as EC2 gives it), "
        "or declare cost.capacity_block_quotes.train.total_usd (the total AWS quoted)"
    )
    assert result.cost.upfront_usd is None and result.cost.as_json()["upfront_usd"] is None
    assert [line.key for line in result.cost.unpriced] == ["pool:train", "storage:lustre"]
    rows = result.cost.table()[2]
    assert rows[0][4] == "unknown" and rows[-1][-1] == "2 line(s) unpriced, not in these totals"
    assert rows[-1][4] == "unknown"  # the total's upfront too: blank would read as nothing upfront
    assert result.cost.summary()[2] == "upfront: unknown for Capacity Blocks; leaves out pool train: p5.48xlarge (upfront unknown)"
    finding = next(finding for finding in result.findings if finding.code == "cost.price-unknown" and finding.path == ("pools", 0, "capacity"))
    assert finding.message == f"pool train: p5.48xlarge: {block.upfront_unknown}; the upfront total leaves it out" and finding.hint == block.hint


def test_a_quoted_total_prices_a_block_over_its_window_and_a_quoted_rate_wins_over_the_table(tmp_path):
    total = _declared(tmp_path, "  capacity_block_quotes:\n    train: {total_usd: 900000}")
    block = _lines(total)["pool:train"]
    assert (block.hourly_usd, block.upfront_usd) == (pytest.approx(900_000 / 336), 900_000)
    assert block.basis == "$900,000.00 quoted for the 336 h window, paid upfront"
    assert block.source == "declared in the blueprint (cost.capacity_block_quotes.train.total_usd)"
    rate = _declared(tmp_path, "  capacity_block_quotes:\n    train: {usd_per_instance_hour: 40}")
    block = _lines(rate)["pool:train"]
    assert (block.hourly_usd, block.upfront_usd) == (pytest.approx(64 * 40), pytest.approx(64 * 40 * 336))
    assert block.basis == "64 × $40/instance-hour; 336 h window paid upfront"


def test_a_quote_gives_its_rate_or_its_total_never_both(tmp_path):
    result = _declared(tmp_path, "  capacity_block_quotes:\n    train: {total_usd: 900000, usd_per_instance_hour: 40}")
    finding = next(finding for finding in result.findings if finding.code == "cost.declared-price")
    assert finding.message == "a Capacity Block quote gives its rate or its total, and this one gives both"
    assert finding.severity == "error" and not result.ok


def test_a_declared_fsx_lustre_price_prices_the_tier_the_hint_named(tmp_path):
    hint = validate(str(P5))
    assert _lines(hint)["storage:lustre"].hint == (
        "add to cost.fsx_lustre: {deployment_type: PERSISTENT_2, storage_type: SSD, throughput_mbps_per_tib: 500, "
        "usd_per_gb_month: <USD per GB-month>}"
    )
    result = _declared(
        tmp_path, "  fsx_lustre:\n    - {deployment_type: PERSISTENT_2, storage_type: SSD, throughput_mbps_per_tib: 500, usd_per_gb_month: 0.34}"
    )
    lustre = _lines(result)["storage:lustre"]
    assert lustre.hourly_usd == pytest.approx(48_000 * 0.34 / 730) and lustre.basis == "48,000 GiB × $0.34/GB-month"
    assert not result.cost.unpriced and result.cost.table()[2][-1][-1] == "every line priced"
    twice = _declared(
        tmp_path,
        "  fsx_lustre:\n    - {deployment_type: SCRATCH_2, usd_per_gb_month: 0.14}\n    - {deployment_type: SCRATCH_2, usd_per_gb_month: 0.15}",
    )
    assert [finding.message for finding in twice.findings if finding.code == "cost.declared-price"] == ["fsx_lustre prices SCRATCH_2 SSD twice"]


def test_declared_gp3_nat_and_instance_prices_price_a_region_the_tables_lack(tmp_path):
    declared = (
        "cost:\n  instance_usd_per_hour: {g6e.xlarge: 1.861, m7i.xlarge: 0.2016}\n"
        "  ebs_gp3_usd_per_gb_month: 0.08\n  nat_gateway_usd_per_hour: 0.045\nkubernetes:"
    )
    result = validate(str(edited_copy(EXAMPLES / "dev-g6e.yaml", tmp_path, ("kubernetes:", declared))))
    assert not result.cost.unpriced
    assert {key: line.source for key, line in _lines(result).items() if key in ("root-volumes", "nat-gateways")} == {
        "root-volumes": "declared in the blueprint (cost.ebs_gp3_usd_per_gb_month)",
        "nat-gateways": f"declared in the blueprint (cost.nat_gateway_usd_per_hour); {IPV4.source}",
    }
    # The declared price is the gateway's; each gateway's public IPv4 address is AWS's one price everywhere.
    assert _lines(result)["nat-gateways"].hourly_usd == pytest.approx(2 * (0.045 + 0.005))


def test_a_declared_price_nothing_uses_is_a_warning_naming_what_could_use_it(tmp_path):
    cost = (
        "  capacity_block_quotes:\n    trian: {total_usd: 900000}\n"
        "  instance_usd_per_hour: {p5e.48xlarge: 60}\n"
        "  fsx_lustre:\n    - {deployment_type: SCRATCH_2, usd_per_gb_month: 0.14}"
    )
    result = _declared(tmp_path, cost)
    unused = {finding.path: finding.message for finding in result.findings if finding.code == "cost.declared-unused"}
    assert unused == {
        ("cost", "capacity_block_quotes", "trian"): "cost.capacity_block_quotes names 'trian', which is not a Capacity Block pool "
        "(its Capacity Block pools: train)",
        ("cost", "instance_usd_per_hour", "p5e.48xlarge"): "cost.instance_usd_per_hour prices p5e.48xlarge, which no pool or system node group runs",
        ("cost", "fsx_lustre", 0): "cost.fsx_lustre prices SCRATCH_2 SSD, which no FSx for Lustre file system railyard makes uses",
    }
    assert {finding.severity for finding in result.findings if finding.code == "cost.declared-unused"} == {"warning"}


def test_a_type_aws_does_not_sell_in_the_region_is_refused_and_its_price_gap_says_not_sold_with_its_source(tmp_path):
    moved = tmp_path / "heterogeneous.yaml"
    moved.write_text((EXAMPLES / "heterogeneous.yaml").read_text().replace("us-east-2", "us-east-1"))
    result = validate(str(moved))
    # validate refuses the pool (blueprints/rules/offerings.py), so the design is not priced at all ...
    (refused,) = [finding for finding in result.findings if finding.code == "pool.type-not-in-region"]
    assert refused.path == ("pools", 1, "instance_type") and refused.message.endswith("it sells it in ap-south-2, us-east-2")
    assert result.cost is None
    # ... and where a price gap still meets such a type (a system node type), it says why: not sold, not the table's reach.
    gap = Pricer(result.blueprint, load_prices()).on_demand_gap("trn2.48xlarge")
    assert gap.why == (
        "not sold On-Demand in us-east-1: AWS offers no trn2.48xlarge there "
        "(EC2 DescribeInstanceTypeOfferings for us-east-1, moto 5.2.5's dump; blueprints/catalog/offerings.json)"
    )
    assert gap.hint == (
        "AWS sells trn2.48xlarge in ap-south-2, us-east-2: choose one of those regions, or, if the account has it in us-east-1 "
        "after all, declare cost.instance_usd_per_hour.trn2.48xlarge (USD per instance-hour)"
    )
    # A type the offerings data doesn't cover, in a region whose source has no rate for it: the gap names that source.
    gap = Pricer(result.blueprint, load_prices()).on_demand_gap("p6e-gb200.36xlarge")
    assert load_offerings().offered("p6e-gb200.36xlarge", "us-east-1") is None
    assert gap.why == (
        "its source lists no rate: https://github.com/aws/karpenter-provider-aws @ 1d927085dd81: "
        "pkg/providers/pricing/zz_generated.pricing_aws.go (generated 2026-07-20T13:44:30Z) has no On-Demand rate for "
        "p6e-gb200.36xlarge in us-east-1"
    )


def test_offerings_are_motos_per_region_dump_and_regenerate_byte_identically():
    assert offerings_main(["--check"]) == 0
    offerings = load_offerings()
    assert offerings.regions_of("trn2.48xlarge") == ("ap-south-2", "us-east-2")
    assert offerings.offered("trn2.48xlarge", "us-east-1") is False and offerings.offered("trn2.48xlarge", "mars-1") is None
    assert offerings.offered("p5e.48xlarge", "us-east-1") is False and offerings.offered("p5e.48xlarge", "us-west-2") is True


def test_validate_json_with_unknowns_is_byte_identical_run_to_run(tmp_path, capsys):
    path = edited_copy(P5, tmp_path, (WINDOW, ""))
    outputs = []
    for _ in range(2):
        main(["validate", str(path), "--json"])
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    cost = json.loads(outputs[0])["cost"]
    assert cost["upfront_usd"] is None and cost["by_kind_hourly_usd"]["capacity_block"] == pytest.approx(round(BLOCK_HOURLY, 2))


def test_every_unpriced_hint_of_every_example_names_a_cost_field_that_exists(tmp_path):
    from blueprints.models.cost import Cost

    no_window = edited_copy(P5, tmp_path, (WINDOW, ""))
    named: set[str] = set()
    for path in [*sorted(EXAMPLES.glob("*.yaml")), no_window]:
        result = validate(str(path))
        for line in result.cost.unpriced:
            fields = re.findall(r"\bcost\.([a-z0-9_]+)", line.hint)
            assert fields and set(fields) <= set(Cost.model_fields), (path.name, line.hint)
            named |= set(fields)
    # The examples reach every kind of gap but a missing spot discount.
    assert named == {"instance_usd_per_hour", "fsx_lustre", "ebs_gp3_usd_per_gb_month", "nat_gateway_usd_per_hour", "capacity_block_quotes"}
