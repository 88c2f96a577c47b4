"""The mounts rule (`blueprints/rules/mounts.py`): no tier on a path the system keeps, no two FSx tiers of one pool at
the same or nested paths, no FSx tier no pool mounts. Exact code, path, message and hint; each side of each test."""

from __future__ import annotations

import pytest

from tests.blueprints.base import BASE, load, mutate

LUSTRE = "    metadata: {mode: automatic}\n"
SECOND = (
    "  - kind: fsx_lustre\n    name: ckpt\n    deployment_type: PERSISTENT_2\n    capacity_gib: 1200\n"
    "    throughput_mbps_per_tib: 125\n    mount_path: {path}\n  - kind: s3\n"
)
RESERVED_HINT = "mount it under a directory of its own, such as /fsx/<tier> or /mnt/<tier>"


def _found(text: str, code: str) -> list[tuple[str, tuple[object, ...], str, str]]:
    return [(finding.severity, finding.path, finding.message, finding.hint) for finding in load(text).findings if finding.code == code]


def _lustre_at(path: str) -> str:
    return mutate(LUSTRE, f"{LUSTRE}    mount_path: {path}\n")


def test_the_base_blueprint_has_no_mount_findings() -> None:
    assert _found(BASE, "storage.mount-path") + _found(BASE, "storage.tier-unmounted") == []


@pytest.mark.parametrize(
    ("path", "system"), [("/", "/"), ("/proc", "/proc"), ("/var/run/secrets/x", "/var/run/secrets"), ("/etc/", "/etc"), ("/tmp", "/tmp")]
)
def test_an_fsx_tier_on_a_path_pods_keep_is_refused(path: str, system: str) -> None:
    assert _found(_lustre_at(path), "storage.mount-path") == [
        ("error", ("storage", 0, "mount_path"), f"'lustre' mounts at {path} in pods, which the system keeps for itself ({system})", RESERVED_HINT)
    ]


@pytest.mark.parametrize("path", ["/fsx", "/data/x", "/proc2", "/var/run/secretsx", "/etc/fsx", "/mnt/fsx"])
def test_an_fsx_tier_beside_or_under_a_mere_system_directory_passes(path: str) -> None:
    """Under /etc is the pod's own (only /etc itself is kept); /proc2 is not under /proc."""
    assert _found(_lustre_at(path), "storage.mount-path") == []


def _nvme_at(path: str) -> str:
    text = mutate("  - kind: s3\n", f"  - kind: local_nvme\n    name: nvme\n    mount_path: {path}\n  - kind: s3\n")
    return text.replace("      - tier: lustre\n", "      - tier: lustre\n      - tier: nvme\n")


def test_a_local_nvme_tier_on_a_path_the_node_keeps_is_refused() -> None:
    assert _found(_nvme_at("/var/lib/kubelet/disks"), "storage.mount-path") == [
        (
            "error",
            ("storage", 1, "mount_path"),
            "'nvme' mounts at /var/lib/kubelet/disks in the node, which the system keeps for itself (/var/lib/kubelet)",
            RESERVED_HINT,
        )
    ]


def test_a_local_nvme_tier_under_a_path_only_pods_keep_passes() -> None:
    assert _found(_nvme_at("/var/run/secrets/nvme"), "storage.mount-path") == []
    assert _found(_nvme_at("/mnt/k8s-disks"), "storage.mount-path") == []


def test_a_reserved_tier_two_pools_mount_is_reported_once() -> None:
    text = _lustre_at("/proc").replace(
        "    placement:\n      domains: [za, zb]\n", "    storage: [{tier: lustre}]\n    placement:\n      domains: [za, zb]\n"
    )
    assert [item[1] for item in _found(text, "storage.mount-path")] == [("storage", 0, "mount_path")]


def _two(path: str, second: str) -> str:
    text = _lustre_at(path).replace("  - kind: s3\n", SECOND.format(path=second))
    return text.replace("      - tier: lustre\n", "      - tier: lustre\n      - tier: ckpt\n")


@pytest.mark.parametrize(
    ("first", "second", "how"),
    [
        ("/fsx", "/fsx", "at the same path as"),
        ("/fsx", "/fsx/ckpt", "inside"),
        ("/fsx/ckpt", "/fsx", "around"),
        ("/fsx", "/fsx/", "at the same path as"),
    ],
)
def test_two_tiers_at_the_same_or_nested_paths_are_refused_once(first: str, second: str, how: str) -> None:
    shown = second.rstrip("/")
    assert _found(_two(first, second), "storage.mount-path") == [
        (
            "error",
            ("storage", 1, "mount_path"),
            f"pool 'train' mounts 'ckpt' at {shown}, {how} 'lustre' at {first}; one hides the other",
            "give each tier a mount path of its own, side by side (/fsx/train, /fsx/ckpt)",
        )
    ]


def test_two_tiers_side_by_side_pass() -> None:
    assert _found(_two("/fsx/train", "/fsx/ckpt"), "storage.mount-path") == []
    assert _found(_two("/fsx", "/fsx2"), "storage.mount-path") == []


def test_two_pools_mounting_the_same_nested_pair_report_it_once() -> None:
    text = _two("/fsx", "/fsx/ckpt").replace(
        "    placement:\n      domains: [za, zb]\n", "    storage: [{tier: lustre}, {tier: ckpt}]\n    placement:\n      domains: [za, zb]\n"
    )
    assert len(_found(text, "storage.mount-path")) == 1


def test_an_fsx_tier_no_pool_mounts_is_warned_with_its_size() -> None:
    text = mutate("      - tier: lustre\n", "      - tier: data\n")
    assert _found(text, "storage.tier-unmounted") == [
        (
            "warning",
            ("storage", 0, "name"),
            "no pool mounts storage tier 'lustre', but railyard creates its 2,400 GiB PERSISTENT_2 file system",
            "list it in the pools that need it (storage: [{tier: lustre}]), or remove the tier",
        )
    ]


def test_a_storage_class_no_pool_lists_is_warned() -> None:
    text = mutate(
        "  - kind: s3\n",
        "  - kind: fsx_lustre_class\n    name: cls\n    deployment_type: PERSISTENT_2\n    throughput_mbps_per_tib: 250\n  - kind: s3\n",
    )
    [item] = _found(text, "storage.tier-unmounted")
    assert item[1:3] == (("storage", 1, "name"), "no pool mounts storage tier 'cls', but railyard creates its StorageClass")


def test_an_s3_tier_no_pool_mounts_is_not_a_file_system() -> None:
    assert [item[1] for item in _found(BASE, "storage.tier-unmounted")] == []
