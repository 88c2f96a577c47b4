"""Zones written by id (`use1-az4`), the form a Capacity Block is bound to across accounts.

Which id a zone name stands for differs in each account, so a blueprint uses
one form throughout; railyard passes ids to the APIs that take them
(CreateSubnet's AvailabilityZoneId) and expects them on the node label AWS
sets for them (`topology.k8s.aws/zone-id`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from railyard.mocked import run_preview
from railyard.pipeline import validate
from tests.preview.conftest import AT, ROOT, preview_of
from tests.yaml_text import edited_copy, line_of, replace_once

EXAMPLE = ROOT / "blueprints" / "examples" / "p5-capacity-block.yaml"
BY_ID = (
    ("  availability_zones: [us-east-1a, us-east-1b]\n", "  availability_zones: [use1-az4, use1-az6]\n"),
    ("      availability_zone: us-east-1a\n", "      availability_zone: use1-az4\n"),
    ("      zone: us-east-1a\n", "      zone: use1-az4\n"),
)


def _written(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    return edited_copy(EXAMPLE, tmp_path, *edits)


def test_a_blueprint_written_with_zone_ids_validates(tmp_path):
    validation = validate(str(_written(tmp_path, *BY_ID)))
    assert validation.ok, validation.findings


def test_every_subnet_is_created_by_zone_id(tmp_path):
    result = run_preview(str(_written(tmp_path, *BY_ID)), project_dir=ROOT, at=AT)
    subnets = result.of_type("aws:ec2/subnet:Subnet")
    assert subnets and all("availabilityZone" not in subnet.inputs for subnet in subnets)
    assert {subnet.inputs["availabilityZoneId"] for subnet in subnets} == {"use1-az4", "use1-az6"}
    efa = [subnet for subnet in subnets if subnet.name.endswith("efa-ultra-use1a")]
    assert [subnet.inputs["availabilityZoneId"] for subnet in efa] == ["use1-az4"]


def test_a_blueprint_written_with_zone_names_keeps_creating_subnets_by_name():
    result = preview_of("p5-capacity-block")  # the session's preview of the example, at AT
    subnets = result.of_type("aws:ec2/subnet:Subnet")
    assert {subnet.inputs["availabilityZone"] for subnet in subnets} == {"us-east-1a", "us-east-1b"}
    assert all("availabilityZoneId" not in subnet.inputs for subnet in subnets)


def test_mixing_ids_and_names_is_an_error_at_the_first_zone_written_the_other_way(tmp_path):
    path = _written(tmp_path, *BY_ID[:2])  # the Capacity Block still says us-east-1a
    validation = validate(str(path))
    [finding] = [f for f in validation.findings if f.code == "cloud.zone-forms-mixed"]
    assert finding.path_text == "pools[0].capacity.zone"
    assert finding.line == line_of(path.read_text(), "      zone: us-east-1a")
    assert "'us-east-1a' is a zone name" in finding.message and "zone ids" in finding.message
    assert not validation.ok


@pytest.mark.parametrize(
    ("edit", "path_text"),
    [
        (("  availability_zones: [use1-az4, use1-az6]\n", "  availability_zones: [use1-az4, use1-az9]\n"), "cloud.availability_zones[1]"),
        (("      zone: use1-az4\n", "      zone: usw2-az4\n"), "pools[0].capacity.zone"),
    ],
)
def test_an_id_the_region_does_not_have_is_an_error_listing_its_ids(tmp_path, edit, path_text):
    text = EXAMPLE.read_text()
    for old, new in BY_ID:
        text = replace_once(text, old, new)
    path = tmp_path / EXAMPLE.name
    path.write_text(replace_once(text, *edit))
    unknown = [f for f in validate(str(path)).findings if f.code == "cloud.unknown-zone"]
    assert [f.path_text for f in unknown] == [path_text]
    assert "use1-az1, use1-az2, use1-az3, use1-az4, use1-az5, use1-az6" in unknown[0].message
