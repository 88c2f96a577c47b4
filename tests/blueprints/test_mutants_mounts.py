"""The mounts rule (`blueprints/rules/mounts.py`): no tier on a path the system keeps, no two FSx tiers of one pool at
the same or nested paths, no FSx tier no pool mounts. Exact code, path, message and hint; each side of each test."""

from __future__ import annotations

import pytest

from blueprints.rules import mounts as mounts_rule
from blueprints.rules.context import Context
from tests.blueprints.base import BASE, load, mutate
from tests.topology.factory import CATALOG, blueprint, pool

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


# The rule called directly on blueprints built in memory (tests/topology/factory.py): findings the loader would merge
# (the same code, path and message twice) stay apart here.
def _lustre(name: str, mount_path: str, **fields: object) -> dict:
    tier = {"kind": "fsx_lustre", "name": name, "deployment_type": "PERSISTENT_2", "capacity_gib": 1200, "throughput_mbps_per_tib": 125}
    return tier | {"mount_path": mount_path, **fields}


def _rule(storage: list[dict], *mounts: list[str]) -> list[tuple[object, ...]]:
    """The rule's findings with one pool per list of tier names in `mounts`."""
    pools = [pool(f"p{n}", "p5.48xlarge", 2, ["za"], storage=[{"tier": tier} for tier in tiers]) for n, tiers in enumerate(mounts)]
    model = blueprint([{"name": "za", "availability_zone": "us-east-1a"}], pools, storage=storage)
    return [(f.code, f.path, f.message) for f in mounts_rule.check(Context(blueprint=model, catalog=CATALOG))]


def test_a_tier_at_the_root_is_refused_and_a_tier_under_it_is_inside_it() -> None:
    assert _rule([_lustre("root", "/"), _lustre("data", "/data")], ["root", "data"]) == [
        ("storage.mount-path", ("storage", 0, "mount_path"), "'root' mounts at / in pods, which the system keeps for itself (/)"),
        ("storage.mount-path", ("storage", 1, "mount_path"), "pool 'p0' mounts 'data' at /data, inside 'root' at /; one hides the other"),
    ]


def test_a_reserved_tier_two_pools_mount_is_one_finding_even_before_the_loader_merges_them() -> None:
    assert _rule([_lustre("proc", "/proc")], ["proc"], ["proc"]) == [
        ("storage.mount-path", ("storage", 0, "mount_path"), "'proc' mounts at /proc in pods, which the system keeps for itself (/proc)")
    ]


def test_a_tier_listed_after_an_unknown_one_is_still_judged() -> None:
    assert [path for _, path, _ in _rule([_lustre("proc", "/proc")], ["nope", "proc"])] == [("storage", 0, "mount_path")]


@pytest.mark.parametrize(("first", "second"), [("/dataX", "/data"), ("/dataX", "/data/y"), ("/tmpX", "/fsx")])
def test_a_path_ending_in_a_letter_is_that_path_and_not_a_prefix_of_it(first: str, second: str) -> None:
    """Only "/" is stripped from a path's end: /dataX is neither /data nor its parent, and /tmpX is not /tmp."""
    assert _rule([_lustre("a", first), _lustre("b", second)], ["a", "b"]) == []


def test_each_nested_pair_is_reported_once_and_a_pair_after_one_already_reported_still_is() -> None:
    """p0 reports (a, c); p1 reports (a, b), skips (a, c) and still reports (b, c)."""
    storage = [_lustre("a", "/fsx"), _lustre("b", "/fsx/b"), _lustre("c", "/fsx/b/c")]
    assert _rule(storage, ["a", "c"], ["a", "b", "c"]) == [
        ("storage.mount-path", ("storage", 2, "mount_path"), "pool 'p0' mounts 'c' at /fsx/b/c, inside 'a' at /fsx; one hides the other"),
        ("storage.mount-path", ("storage", 1, "mount_path"), "pool 'p1' mounts 'b' at /fsx/b, inside 'a' at /fsx; one hides the other"),
        ("storage.mount-path", ("storage", 2, "mount_path"), "pool 'p1' mounts 'c' at /fsx/b/c, inside 'b' at /fsx/b; one hides the other"),
    ]


def test_an_existing_file_system_no_pool_mounts_is_named_by_its_id() -> None:
    existing = {
        "id": "fs-0a1b2c3d4e5f60718",
        "dns_name": "fs-0a1b2c3d4e5f60718.fsx.us-east-1.amazonaws.com",
        "mount_name": "abcdefgh",
        "security_group_id": "sg-0a1b2c3d4e5f60719",
        "availability_zone": "us-east-1a",
    }
    assert _rule([_lustre("team", "/team", existing=existing), _lustre("ours", "/fsx")], ["ours"]) == [
        (
            "storage.tier-unmounted",
            ("storage", 0, "name"),
            "no pool mounts storage tier 'team', but it names the team's file system fs-0a1b2c3d4e5f60718",
        )
    ]
