"""Storage tiers serve their pools' reads, and checkpoints are written in time; the cut says what limits them."""

from __future__ import annotations

import pytest

from blueprints.models.storage import FsxLustre
from tests.topology.factory import block, blueprint, check, codes, only, pool, zone
from topology.storage import tier_throughput


def lustre(capacity_gib=2400, deployment="PERSISTENT_2", per_tib=500):
    tier = {"kind": "fsx_lustre", "name": "lustre", "deployment_type": deployment, "capacity_gib": capacity_gib}
    if per_tib is not None:
        tier["throughput_mbps_per_tib"] = per_tib
    return tier


def cluster(tier, read_mbps=0.0, checkpoint=None, instance="p5en.48xlarge", nodes=4):
    use = {"tier": "lustre", "read_mbps_per_accelerator": read_mbps}
    if checkpoint:
        use["checkpoint"] = checkpoint
    return blueprint([zone("z", [block("b", racks=1, hosts_per_rack=4)])], [pool("p", instance, nodes, ["b"], storage=[use])], storage=[tier])


def test_fsx_throughput_is_capacity_in_tib_times_throughput_per_tib():
    assert tier_throughput(FsxLustre.model_validate(lustre(4800, per_tib=250))) == 4800 / 1024 * 250


def test_scratch_file_systems_give_200_mb_per_s_per_tib():
    assert tier_throughput(FsxLustre.model_validate(lustre(2400, "SCRATCH_2", per_tib=None))) == pytest.approx(468.75)


def test_reads_beyond_the_tiers_throughput_are_a_finding_naming_the_tier_as_the_cut():
    """32 GPUs x 100 MB/s = 3,200 MB/s, against 2,400 GiB = 2.34 TiB x 500 MB/s per TiB = 1,172 MB/s."""
    finding = only(check(cluster(lustre(), read_mbps=100)), "storage.throughput")
    assert finding.path == ("storage", 0, "capacity_gib")
    assert finding.certificate == {"tier": "lustre", "served_mb_per_s": 1171.9, "demand_mb_per_s": 3200.0, "cut": ["tier lustre's throughput"]}
    assert "can serve 1,172 MB/s, but its pools read 3,200 MB/s" in finding.message


def test_reads_limited_by_the_hosts_nics_name_the_pool_as_the_cut():
    """One g6e.xlarge (2.5 Gb/s = 312.5 MB/s) reading 500 MB/s from a big file system."""
    finding = only(check(cluster(lustre(24000), read_mbps=500, instance="g6e.xlarge", nodes=1)), "storage.throughput")
    assert finding.certificate["cut"] == ["p's NICs"] and finding.certificate["served_mb_per_s"] == 312.5


def test_reads_within_the_tiers_throughput_give_no_finding():
    report = check(cluster(lustre(), read_mbps=25))  # 32 GPUs x 25 MB/s = 800 MB/s <= 1,172
    assert "storage.throughput" not in codes(report)
    assert report.figures["storage"][0]["served_mb_per_s"] == 800.0


def test_a_checkpoint_slower_than_its_limit_is_a_finding_with_the_write_rate():
    """1,000 GiB at 1,171.9 MB/s takes 916 s."""
    finding = only(check(cluster(lustre(), checkpoint={"size_gib": 1000, "max_write_seconds": 600})), "storage.checkpoint-time")
    assert finding.path == ("pools", 0, "storage", 0, "checkpoint", "max_write_seconds")
    assert finding.certificate == {"tier": "lustre", "seconds": 916.3, "write_mb_per_s": 1171.9, "limit_seconds": 600}


def test_a_checkpoint_within_its_limit_gives_no_finding():
    assert "storage.checkpoint-time" not in codes(check(cluster(lustre(), checkpoint={"size_gib": 1000, "max_write_seconds": 1000})))


def test_tiers_without_a_throughput_figure_are_reported_but_not_checked():
    model = blueprint(
        [zone("z", [block("b", racks=1, hosts_per_rack=1)])],
        [pool("p", "g6e.xlarge", 1, ["b"], storage=[{"tier": "nvme", "read_mbps_per_accelerator": 10**6}])],
        storage=[{"kind": "local_nvme", "name": "nvme"}],
    )
    report = check(model)
    assert not [code for code in codes(report) if code.startswith("storage.")]
    assert report.figures["storage"][0]["throughput_mb_per_s"] is None
