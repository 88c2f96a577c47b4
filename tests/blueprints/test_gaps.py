"""Mistakes the peer tools catch that railyard used to let through, each a finding at its line."""

from __future__ import annotations

from pathlib import Path

from blueprints.loader import load_text

ROOT = Path(__file__).resolve().parents[2]
P5 = (ROOT / "blueprints" / "examples" / "p5-capacity-block.yaml").read_text()
DEV = (ROOT / "blueprints" / "examples" / "dev-g6e.yaml").read_text()


def errors(text: str) -> list:
    return [finding for finding in load_text(text, "b.yaml").findings if finding.is_error]


def test_spot_on_a_type_aws_never_sells_as_spot_is_refused():
    # trn2u is sold on demand and as Capacity Blocks only (DescribeInstanceTypes SupportedUsageClasses).
    text = DEV.replace("instance_type: g6e.xlarge\n", "instance_type: trn2u.48xlarge\n    capacity: {kind: spot}\n")
    assert "trn2u.48xlarge" in text and "kind: spot" in text
    found = [finding for finding in errors(text) if finding.code == "capacity.spot-unsupported-type"]
    assert len(found) == 1 and found[0].path[-2:] == ("capacity", "kind")
    assert "['capacity-block', 'on-demand']" in found[0].message


def test_spot_on_a_type_sold_as_spot_is_not_refused_for_it():
    text = DEV.replace("instance_type: g6e.xlarge\n", "instance_type: g6e.xlarge\n    capacity: {kind: spot}\n")
    assert "kind: spot" in text
    assert not [finding for finding in errors(text) if finding.code == "capacity.spot-unsupported-type"]


def test_an_extra_tag_may_not_replace_the_owner_or_the_cluster_tag():
    text = P5.replace("    project: llm-pretraining\n", "    project: llm-pretraining\n    owner: someone-else\n    railyard:cluster: other\n", 1)
    assert "someone-else" in text
    found = sorted((finding.path, finding.code) for finding in errors(text) if finding.code == "names.tag-overrides-railyard")
    assert found == [
        (("metadata", "tags", "owner"), "names.tag-overrides-railyard"),
        (("metadata", "tags", "railyard:cluster"), "names.tag-overrides-railyard"),
    ]


FSX_TIER = (
    "  - kind: fsx_lustre\n    name: {name}\n    deployment_type: PERSISTENT_2\n    capacity_gib: 2400\n"
    "    throughput_mbps_per_tib: 250\n    mount_path: {path}\n"
)


def _with_second_tier(path: str) -> str:
    """p5 with a second FSx tier mounted by the same pool at `path` (the first mounts at /fsx)."""
    text = P5.replace("storage:\n  - kind: fsx_lustre", "storage:\n" + FSX_TIER.format(name="ckpt", path=path) + "  - kind: fsx_lustre", 1)
    return text.replace("      - tier: lustre\n", "      - tier: lustre\n      - tier: ckpt\n", 1)


def test_two_tiers_at_one_path_or_one_inside_the_other_are_refused():
    for path, how in (("/fsx", "at the same path as"), ("/fsx/ckpt", "inside")):
        text = _with_second_tier(path)
        assert "tier: ckpt" in text
        found = [finding for finding in errors(text) if finding.code == "storage.mount-path"]
        assert len(found) == 1 and how in found[0].message, [finding.message for finding in found]


def test_tiers_side_by_side_are_fine():
    assert not [finding for finding in errors(_with_second_tier("/ckpt")) if finding.code == "storage.mount-path"]


def test_a_mount_over_the_system_is_refused():
    text = P5.replace("    mount_path: /fsx\n", "    mount_path: /var/run/secrets/data\n", 1)
    (finding,) = [finding for finding in errors(text) if finding.code == "storage.mount-path"]
    assert finding.path == ("storage", 0, "mount_path") and "/var/run/secrets" in finding.message


def test_more_data_repositories_than_fsx_allows_are_refused():
    links = "".join(f"      - {{bucket: data{i}, file_system_path: /d{i}}}\n" for i in range(9))
    text = P5.replace("    data_repositories:\n", "    data_repositories:\n" + links, 1)
    found = [finding for finding in errors(text) if finding.code == "fsx.too-many-repositories"]
    assert len(found) == 1 and "at most 8" in found[0].message


def test_a_scale_up_domain_that_is_not_a_whole_number_of_hosts_is_refused():
    # p5 hosts have 8 GPUs: 4 (half a host) and 16 (two hosts) are whole; 12 is a host and a half.
    def with_domain(size: int) -> str:
        text = P5.replace(
            "    kind: rail_optimized_clos\n", f"    kind: rail_optimized_clos\n    scale_up: {{kind: nvlink, domain_size: {size}}}\n", 1
        )
        assert f"domain_size: {size}" in text
        return text

    found = [finding for finding in errors(with_domain(12)) if finding.code == "fabric.scale-up-size"]
    assert len(found) == 1 and "1.5 p5.48xlarge hosts" in found[0].message
    assert found[0].path == ("fabrics", 0, "scale_up", "domain_size")
    for size in (4, 8, 16):
        assert not [finding for finding in errors(with_domain(size)) if finding.code == "fabric.scale-up-size"]


def test_a_file_system_mounted_over_a_top_level_system_directory_is_refused_but_one_under_it_is_not():
    # AWS ParallelCluster refuses these as shared-storage mount points (SharedStorageMountDirValidator).
    for path in ("/usr", "/etc", "/bin", "/lib64", "/var", "/tmp/"):
        text = P5.replace("    mount_path: /fsx\n", f"    mount_path: {path}\n", 1)
        (finding,) = [finding for finding in errors(text) if finding.code == "storage.mount-path"]
        assert finding.path == ("storage", 0, "mount_path") and "keeps for itself" in finding.message, path
    for path in ("/opt/ml", "/mnt/data", "/home/jobs"):
        text = P5.replace("    mount_path: /fsx\n", f"    mount_path: {path}\n", 1)
        assert not [finding for finding in errors(text) if finding.code == "storage.mount-path"], path


def test_a_file_system_tier_no_pool_mounts_is_a_warning_saying_what_it_creates():
    text = P5.replace("storage:\n  - kind: fsx_lustre", "storage:\n" + FSX_TIER.format(name="ckpt", path="/ckpt") + "  - kind: fsx_lustre", 1)
    found = [finding for finding in load_text(text, "b.yaml").findings if finding.code == "storage.tier-unmounted"]
    assert [(finding.severity, finding.path) for finding in found] == [("warning", ("storage", 0, "name"))]
    assert found[0].message == "no pool mounts storage tier 'ckpt', but railyard creates its 2,400 GiB PERSISTENT_2 file system"
    assert not [finding for finding in load_text(P5, "b.yaml").findings if finding.code == "storage.tier-unmounted"]


def test_uplinks_on_the_top_tier_of_a_two_tier_fabric_are_not_silently_ignored(tmp_path):
    from railyard.pipeline import validate as validate_file

    def fabric_findings(text: str) -> list:
        path = tmp_path / "b.yaml"
        path.write_text(text)
        return [finding for finding in validate_file(str(path)).findings if finding.code == "fabric.top-tier-uplinks"]

    declared = P5.replace("    tiers: 2\n", "    tiers: 2\n    spine: {uplinks: 8}\n", 1)
    (finding,) = fabric_findings(declared)
    assert (finding.severity, finding.path) == ("error", ("fabrics", 0, "spine", "uplinks"))
    assert "declares tiers: 2, so its spine tier is the top" in finding.message and "tiers: 3" in finding.hint
    (finding,) = fabric_findings(P5.replace("    tiers: 2\n", "    spine: {uplinks: 8}\n", 1))
    assert finding.severity == "warning" and "holds its hosts in 2 tier(s)" in finding.message
    assert fabric_findings(P5) == []
