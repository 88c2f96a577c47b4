"""`validate --at TIME` prices the plan as of that instant, so the same blueprint and `--at` give the same bytes.

p5-capacity-block runs Kubernetes 1.35, whose standard support ends 2027-03-27 (blueprints/catalog/pins.yaml): the
control plane bills $0.10 per cluster-hour up to that day and $0.60 (extended support) after it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from railyard.cli import main
from railyard.pipeline import validate

P5 = Path(__file__).resolve().parents[2] / "blueprints" / "examples" / "p5-capacity-block.yaml"
LAST_STANDARD_DAY = "2027-03-27T23:59:59Z"
FIRST_EXTENDED_DAY = "2027-03-28T00:00:00Z"


def _validate_json(capsys, *at: str) -> str:
    assert main(["validate", str(P5), "--json", *at]) == 0
    return capsys.readouterr().out


def _control_plane(document: str) -> dict:
    return next(line for line in json.loads(document)["cost"]["lines"] if line["key"] == "control-plane")


def test_validate_json_is_byte_identical_for_the_same_at(capsys):
    first, second = _validate_json(capsys, "--at", LAST_STANDARD_DAY), _validate_json(capsys, "--at", LAST_STANDARD_DAY)
    assert first == second
    plane = _control_plane(first)
    assert plane["hourly_usd"] == 0.10 and plane["basis"] == "$0.1/cluster-hour standard support (until 2027-03-27)"


def test_the_same_blueprint_costs_more_the_day_after_standard_support_ends(capsys):
    before = json.loads(_validate_json(capsys, "--at", LAST_STANDARD_DAY))["cost"]
    after = json.loads(_validate_json(capsys, "--at", FIRST_EXTENDED_DAY))["cost"]
    plane = _control_plane(json.dumps({"cost": after}))
    assert plane["hourly_usd"] == 0.60 and plane["basis"] == "$0.6/cluster-hour extended support (standard support ended 2027-03-27)"
    assert "extended support" in plane["item"]
    assert after["hourly_usd"] == pytest.approx(before["hourly_usd"] + 0.50)
    assert after["monthly_usd"] == pytest.approx(before["monthly_usd"] + 0.50 * 730)
    assert [line for line in after["lines"] if line["key"] != "control-plane"] == [line for line in before["lines"] if line["key"] != "control-plane"]


def test_a_time_without_a_zone_is_utc_and_a_bad_time_is_refused_with_an_example(capsys):
    assert _validate_json(capsys, "--at", "2027-03-28T00:00:00") == _validate_json(capsys, "--at", FIRST_EXTENDED_DAY)
    with pytest.raises(SystemExit):
        main(["validate", str(P5), "--at", "next tuesday"])
    assert "'next tuesday' is not an ISO 8601 time such as 2026-12-01T00:00:00Z" in capsys.readouterr().err


def test_validate_prices_as_of_the_instant_it_is_given_in_any_zone():
    # 2027-03-28T01:00 in Paris (+01:00) is 2027-03-28T00:00Z: already extended support in UTC.
    paris = datetime.fromisoformat("2027-03-28T01:00:00+01:00")
    utc = datetime(2027, 3, 28, tzinfo=UTC)
    lines = [{line.key: line for line in validate(str(P5), at=moment).cost.lines}["control-plane"] for moment in (paris, utc)]
    assert lines[0] == lines[1] and lines[0].hourly_usd == pytest.approx(0.60)
    earlier = validate(str(P5), at=datetime.fromisoformat("2027-03-28T00:59:59+01:00"))
    assert {line.key: line for line in earlier.cost.lines}["control-plane"].hourly_usd == pytest.approx(0.10)
