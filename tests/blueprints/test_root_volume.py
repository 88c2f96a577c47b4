"""A pool's root volume: gp3 within the API's ranges and EBS's ratios, and what the launch template gets."""

from __future__ import annotations

from blueprints.loader import load_text
from railyard.mocked import run_preview
from tests.blueprints.base import BASE
from tests.preview.conftest import AT

VOLUME = "    root_volume: {size_gib: %d, iops: %d, throughput_mibps: %d}\n"


def with_volume(size: int, iops: int, throughput: int) -> str:
    text = BASE.replace("    placement:\n", VOLUME % (size, iops, throughput) + "    placement:\n", 1)
    assert "root_volume" in text
    return text


def codes(text: str) -> list[tuple[str, str]]:
    return [(finding.code, finding.path_text) for finding in load_text(text, "b.yaml").findings if finding.is_error]


def test_iops_over_500_per_gib_and_throughput_over_a_quarter_mib_per_iops_are_refused():
    assert codes(with_volume(20, 12_000, 125)) == [("pool.root-volume-iops", "pools[0].root_volume.iops")]
    assert codes(with_volume(500, 4_000, 1_001)) == [("pool.root-volume-throughput", "pools[0].root_volume.throughput_mibps")]
    assert codes(with_volume(500, 8_000, 2_000)) == []


def test_values_outside_the_apis_ranges_are_schema_findings():
    assert [code for code, _ in codes(with_volume(10, 3_000, 125))] == ["schema.out-of-range"]
    assert [code for code, _ in codes(with_volume(500, 90_000, 125))] == ["schema.out-of-range"]


def test_the_launch_template_gets_the_size_iops_and_throughput(tmp_path):
    path = tmp_path / "volume.yaml"
    path.write_text(with_volume(800, 12_000, 1_000))
    result = run_preview(str(path), at=AT)
    assert result.ok, [f.message for f in result.findings if f.is_error]
    pool = result.validation.blueprint.pools[0].name
    cluster = f"{result.validation.blueprint.metadata.name}-{result.validation.blueprint.metadata.environment}"
    templates = [t for t in result.of_type("aws:ec2/launchTemplate:LaunchTemplate") if t.name.startswith(f"{cluster}-{pool}-")]
    assert templates
    for template in templates:
        [mapping] = template.inputs["blockDeviceMappings"]
        ebs = mapping["ebs"]
        assert (ebs["volumeSize"], ebs["iops"], ebs["throughput"], ebs["volumeType"], ebs["encrypted"]) == (800, 12_000, 1_000, "gp3", "true")


def test_by_default_the_root_volume_is_200_gib_at_gp3s_included_performance():
    blueprint = load_text(BASE, "b.yaml").blueprint
    assert blueprint is not None
    volume = blueprint.pools[0].root_volume
    assert (volume.size_gib, volume.iops, volume.throughput_mibps) == (200, None, None)
