"""`railyard plan` on the shipped sample: ranked, proven candidates, every rejection named, written files that validate.

The sample folder (blueprints/examples/plan/offerings) holds 13 offerings; the cheapest feasible one is
cb-0e1a000000000001a, 64 p5.48xlarge in us-east-1a at $41.528 an instance-hour for 504 h = $1,339,527.17.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from railyard.cli import main
from railyard.pipeline import validate
from railyard.plan import plan
from railyard.plan.needs_file import read_needs
from railyard.plan.offerings import read_offerings
from tests.plan.offerings import AT, SAMPLE_NEEDS, SAMPLE_OFFERINGS


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("plan")
    offerings, rejected, unread = read_offerings(str(SAMPLE_OFFERINGS))
    assert unread == []
    return plan(read_needs(SAMPLE_NEEDS), offerings, rejected, AT, top=5, write=folder), offerings


def test_rank_one_is_the_cheapest_feasible_offering_priced_to_the_cent_as_validate_prices_it(written):
    result, offerings = written
    first = result.candidates[0]
    assert first.combination.offering_ids == ("cb-0e1a000000000001a",)
    fees = {offering.offering_id: offering.upfront_usd for offering in offerings}
    assert first.combination.upfront_usd == fees["cb-0e1a000000000001a"] == Decimal("1339527.17")
    assert first.as_json()["upfront_usd"] == 1339527.17
    # validate of the written file reports the same upfront.
    validation = validate(first.blueprint, at=AT)
    assert validation.ok and validation.cost is not None and validation.cost.upfront_usd == pytest.approx(1339527.17, abs=0.005)
    assert first.validated_upfront_usd == pytest.approx(1339527.17, abs=0.005)


def test_the_candidates_are_ranked_by_upfront_and_each_sums_its_offerings_fees(written):
    result, offerings = written
    fees = {offering.offering_id: offering.upfront_usd for offering in offerings}
    assert [(c.rank, c.combination.offering_ids) for c in result.candidates] == [
        (1, ("cb-0e1a000000000001a",)),
        (2, ("cb-0e1a000000000002b",)),
        (3, ("cb-0e2b000000000001b", "cb-0e2b000000000002b")),
    ]
    for candidate in result.candidates:
        assert candidate.combination.upfront_usd == sum(fees[offering_id] for offering_id in candidate.combination.offering_ids)
    assert [c.combination.upfront_usd for c in result.candidates] == sorted(c.combination.upfront_usd for c in result.candidates)


def test_every_unsafe_or_infeasible_offering_is_rejected_with_its_code_and_never_a_candidate(written):
    result, _ = written
    assert {(one.offering_ids, one.code) for one in result.rejected} == {
        (("cb-0e1a000000000003a",), "plan.duration"),
        (("cb-0e2a000000000003a",), "plan.split-zones"),
        (("cb-0e2c000000000004c",), "plan.split-zones"),
        (("cb-0f2a000000000001a",), "plan.over-budget"),
        (("cb-0f2a000000000005a",), "plan.excluded"),
        (("cb-0f2a000000000006a",), "plan.offering-invalid"),
        (("cb-0f2b000000000002b",), "plan.outside-window"),
        (("cb-0f2c000000000003c",), "plan.too-few"),
        (("cb-0f2c000000000004c",), "plan.partial-ultraserver"),
    }
    chosen = {offering_id for candidate in result.candidates for offering_id in candidate.combination.offering_ids}
    assert chosen.isdisjoint(offering_id for one in result.rejected for offering_id in one.offering_ids)
    assert result.infeasible == []


def test_every_written_file_validates_and_names_its_unbought_offerings(written):
    result, _ = written
    for candidate in result.candidates:
        validation = validate(candidate.blueprint, at=AT)
        assert validation.ok, [finding.message for finding in validation.findings if finding.severity == "error"]
        notes = [finding for finding in validation.findings if finding.code == "capacity.offering-unpurchased"]
        assert [(note.severity, note.path[:3]) for note in notes] == [("info", ("pools", 0, "capacity"))]
        assert Path(candidate.blueprint).read_text().startswith("# Planned by `railyard plan` for needs 'llama-pretrain'")


def test_the_checkpoint_sizes_the_lustre_tier(written):
    result, _ = written
    validation = validate(result.candidates[0].blueprint, at=AT)
    (lustre,) = [tier for tier in validation.blueprint.storage if tier.name == "lustre"]
    # 5,000 GiB in 300 s = 17,895.7 MB/s; at 500 MB/s per TiB that is 36,651 GiB, and PERSISTENT_2 comes in 2,400 GiB steps.
    assert lustre.capacity_gib == 38400
    assert not [finding for finding in validation.findings if finding.code == "storage.checkpoint-time"]


def test_the_json_is_byte_identical_for_the_same_folder_and_time(capsys):
    args = ["plan", str(SAMPLE_NEEDS), "--offerings", str(SAMPLE_OFFERINGS), "--at", "2026-12-01T00:00:00Z", "--json", "--top", "1"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out == first
    document = json.loads(first)
    assert set(document) >= {"candidates", "rejected", "infeasible"}
    (candidate,) = document["candidates"]
    assert set(candidate) >= {
        "rank",
        "region",
        "zone",
        "instance_type",
        "nodes",
        "accelerators",
        "offering_ids",
        "start",
        "end",
        "upfront_usd",
        "blueprint",
    }
    assert (candidate["start"], candidate["end"], candidate["blueprint"]) == ("2027-01-11T11:30:00Z", "2027-02-01T11:30:00Z", None)
    assert document["beyond_top"] == 2


def test_the_text_report_prints_how_to_buy_rank_one_and_never_buys(capsys):
    assert main(["plan", str(SAMPLE_NEEDS), "--offerings", str(SAMPLE_OFFERINGS), "--at", "2026-12-01T00:00:00Z", "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert (
        "aws ec2 purchase-capacity-block --capacity-block-offering-id cb-0e1a000000000001a --instance-platform Linux/UNIX --region us-east-1" in out
    )
    assert "cb-0f2c000000000004c: plan.partial-ultraserver:" in out


def test_a_needs_file_with_a_mistake_is_a_finding_with_its_line(tmp_path, capsys):
    bad = tmp_path / "needs.yaml"
    bad.write_text(SAMPLE_NEEDS.read_text().replace("  kinds: [h100, h200, b200]\n", "  kinds: [h100]\n  instance_types: [p5.48xlarge]\n"))
    assert main(["plan", str(bad), "--offerings", str(SAMPLE_OFFERINGS)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:13:" in err and "[needs.accelerators]" in err and "accelerators name kinds or instance_types, and this names both" in err


def test_a_base_that_cant_be_read_is_named(tmp_path, capsys):
    needs = tmp_path / "needs.yaml"
    needs.write_text(SAMPLE_NEEDS.read_text())
    assert main(["plan", str(needs), "--offerings", str(SAMPLE_OFFERINGS)]) == 1
    assert f"[needs.base] base: the base blueprint {tmp_path / 'org-base.yaml'} can't be used: file not found" in capsys.readouterr().err


def test_no_candidate_exits_1_and_says_why(tmp_path, capsys):
    empty = tmp_path / "answers"
    empty.mkdir()
    assert main(["plan", str(SAMPLE_NEEDS), "--offerings", str(empty), "--json", "--at", "2026-12-01T00:00:00Z"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["candidates"] == [] and document["infeasible"] == [
        {"code": "plan.infeasible", "message": "none of the 0 offerings makes a candidate (see rejected)"}
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["plan", "needs.yaml"], "give --offerings DIR (recorded answers) or --online"),
        (["plan", "needs.yaml", "--offerings", "d", "--record", "r"], "--record keeps what --online reads"),
        (["plan", "adopt", "file.yaml"], "adopt takes the written blueprint and one --reservation"),
    ],
)
def test_a_wrong_use_exits_2_with_the_fix(args, message, capsys):
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_a_candidate_validate_refuses_is_rejected_quoting_the_finding(tmp_path, capsys):
    # The base's site allows 10 kW: every candidate's 64 GPU nodes draw far more, so validate refuses each one.
    base = (SAMPLE_NEEDS.parent / "org-base.yaml").read_text().replace("kubernetes:\n", "power:\n  site_budget_kw: 10\n  pue: 1.2\nkubernetes:\n", 1)
    (tmp_path / "org-base.yaml").write_text(base)
    needs = tmp_path / "needs.yaml"
    needs.write_text(SAMPLE_NEEDS.read_text())
    assert main(["plan", str(needs), "--offerings", str(SAMPLE_OFFERINGS), "--at", "2026-12-01T00:00:00Z", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["candidates"] == []
    refused = [one for one in document["rejected"] if one["code"] == "plan.not-proven"]
    assert [one["offering_ids"] for one in refused] == [
        ["cb-0e1a000000000001a"],
        ["cb-0e1a000000000002b"],
        ["cb-0e2b000000000001b", "cb-0e2b000000000002b"],
    ]
    assert refused[0]["message"] == (
        "validate: power.site-budget at power.site_budget_kw: the site draws 783.4 kW at the facility (652.8 kW IT x PUE 1.2), over its 10 kW budget"
    )


def test_a_window_that_ends_before_it_starts_is_a_needs_finding(tmp_path, capsys):
    bad = tmp_path / "needs.yaml"
    bad.write_text(SAMPLE_NEEDS.read_text().replace("latest_end: 2027-02-28", "latest_end: 2027-01-01"))
    assert main(["plan", str(bad), "--offerings", str(SAMPLE_OFFERINGS)]) == 1
    err = capsys.readouterr().err
    assert "[needs.window] window.latest_end: latest_end 2027-01-01 is not after earliest_start 2027-01-04" in err


def test_the_markdown_report_has_the_candidates_and_every_rejection(capsys):
    assert main(["plan", str(SAMPLE_NEEDS), "--offerings", str(SAMPLE_OFFERINGS), "--at", "2026-12-01T00:00:00Z", "--top", "1", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### railyard plan: llama-pretrain\n")
    assert "| 1 | us-east-1 | us-east-1a | p5.48xlarge | 64 | 512 | 2027-01-11 | 2027-02-01 | $1,339,527.17 | $5.19 | 0 err 1 warn | - |" in out
    assert "| cb-0f2c000000000004c | `plan.partial-ultraserver` |" in out
