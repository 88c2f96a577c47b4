"""The FSx rule's feature and version checks (`blueprints/rules/fsx.py`), each half of each condition, with exact words.

`check` is called on one tier built here, for a file system railyard makes (`fsx_lustre`) and for a StorageClass of
file systems the CSI driver makes (`fsx_lustre_class`). Every value is botocore's FSx model's (the module says which).
"""

from __future__ import annotations

from typing import Any

import pytest

from blueprints.models.storage import FsxLustre, FsxLustreClass, S3Bucket
from blueprints.rules import fsx

PATH = ("storage", 0)
P2 = {"kind": "fsx_lustre", "name": "lus", "deployment_type": "PERSISTENT_2", "capacity_gib": 2400, "throughput_mbps_per_tib": 250}
P1 = {"kind": "fsx_lustre", "name": "lus", "deployment_type": "PERSISTENT_1", "capacity_gib": 2400, "throughput_mbps_per_tib": 50}
SCRATCH = {"kind": "fsx_lustre", "name": "lus", "deployment_type": "SCRATCH_2", "capacity_gib": 2400}
CLASS = {"kind": "fsx_lustre_class", "name": "cls", "deployment_type": "PERSISTENT_2", "throughput_mbps_per_tib": 250}
VERSION_HINT = 'use file_system_type_version: "2.15"'


def _run(base: dict[str, Any], **changes: Any) -> list[tuple[str, tuple[Any, ...], str, str]]:
    data = {**base, **changes}
    model = FsxLustreClass if data["kind"] == "fsx_lustre_class" else FsxLustre
    return [(finding.code, finding.path, finding.message, finding.hint) for finding in fsx.check(model.model_validate(data), PATH, None)]


def test_a_legal_persistent_2_tier_with_every_feature_has_no_findings() -> None:
    assert _run(P2, efa=True, metadata={"mode": "automatic"}, data_repositories=[{"bucket": "b", "file_system_path": "/d"}]) == []


@pytest.mark.parametrize("deployment", ["PERSISTENT_2", "SCRATCH_2"])
def test_hdd_is_refused_off_persistent_1(deployment: str) -> None:
    base = P2 if deployment == "PERSISTENT_2" else SCRATCH
    found = [item for item in _run(base, storage_type="HDD", capacity_gib=6000) if item[0] == "fsx.storage-type"]
    assert found == [
        ("fsx.storage-type", (*PATH, "storage_type"), f"HDD storage is offered only on PERSISTENT_1, not {deployment}", "use storage_type: SSD")
    ]


def test_hdd_on_persistent_1_is_allowed() -> None:
    assert _run(P1, storage_type="HDD", capacity_gib=6000, throughput_mbps_per_tib=12) == []


@pytest.mark.parametrize(
    ("field", "value", "what"),
    [
        ("metadata", {"mode": "automatic"}, "a metadata configuration"),
        ("efa", True, "EFA"),
        ("data_repositories", [{"bucket": "b", "file_system_path": "/d"}], "data-repository associations"),
    ],
)
def test_each_persistent_2_feature_is_refused_on_persistent_1(field: str, value: Any, what: str) -> None:
    found = [item for item in _run(P1, **{field: value}) if item[0] == "fsx.feature-unsupported"]
    assert found == [
        (
            "fsx.feature-unsupported",
            (*PATH, field),
            f"PERSISTENT_1 does not support {what}; only PERSISTENT_2 does",
            f"switch 'lus' to PERSISTENT_2 or remove {field}",
        )
    ]


def test_an_efa_file_system_without_metadata_is_refused() -> None:
    assert _run(P2, efa=True) == [
        (
            "fsx.efa-needs-metadata",
            (*PATH, "metadata"),
            "an EFA-enabled file system needs a metadata configuration, and 'lus' has none",
            "add metadata: {mode: automatic}",
        )
    ]


def test_efa_metadata_rule_needs_persistent_2_and_efa() -> None:
    """Off PERSISTENT_2 the feature finding says it all; without EFA no metadata is needed."""
    assert [item[0] for item in _run(P1, efa=True)] == ["fsx.feature-unsupported"]
    assert _run(P2) == []


def test_automatic_metadata_with_iops_is_refused() -> None:
    assert _run(P2, metadata={"mode": "automatic", "iops": 1500}) == [
        (
            "fsx.metadata-iops",
            (*PATH, "metadata", "iops"),
            "metadata mode automatic derives IOPS from capacity; iops 1500 can't be set",
            "remove iops or use mode: user_provisioned",
        )
    ]


@pytest.mark.parametrize("iops", [1500, 3000, 6000, 12000, 24000, 36000, 192000])
def test_offered_user_provisioned_iops_pass(iops: int) -> None:
    assert _run(P2, metadata={"mode": "user_provisioned", "iops": iops}) == []


@pytest.mark.parametrize("iops", [1501, 18000, 204000])
def test_other_user_provisioned_iops_are_refused(iops: int) -> None:
    assert _run(P2, metadata={"mode": "user_provisioned", "iops": iops}) == [
        (
            "fsx.metadata-iops",
            (*PATH, "metadata", "iops"),
            f"metadata iops {iops} is not offered",
            "use 1500, 3000, 6000, 12000 or a multiple of 12000 up to 192000",
        )
    ]


def test_metadata_checks_are_persistent_2s_only() -> None:
    """On PERSISTENT_1, metadata is refused as a feature; its IOPS and version are not judged besides."""
    assert [item[0] for item in _run(P1, metadata={"mode": "user_provisioned", "iops": 7})] == ["fsx.feature-unsupported"]


def test_lustre_2_10_is_refused_on_persistent_2() -> None:
    assert _run(P2, file_system_type_version="2.10") == [
        ("fsx.version", (*PATH, "file_system_type_version"), "Lustre 2.10 is not offered on PERSISTENT_2", VERSION_HINT)
    ]


def test_lustre_2_10_is_allowed_on_persistent_1() -> None:
    assert _run(P1, file_system_type_version="2.10") == []


def test_a_metadata_configuration_needs_lustre_2_15() -> None:
    assert _run(P2, metadata={"mode": "automatic"}, file_system_type_version="2.12") == [
        ("fsx.version", (*PATH, "file_system_type_version"), "a metadata configuration needs Lustre 2.15, not 2.12", VERSION_HINT)
    ]


def test_lustre_2_12_without_metadata_is_allowed_on_persistent_2() -> None:
    assert _run(P2, file_system_type_version="2.12") == []


def test_lustre_2_10_with_metadata_gives_one_version_finding() -> None:
    assert [item[2] for item in _run(P2, metadata={"mode": "automatic"}, file_system_type_version="2.10")] == [
        "Lustre 2.10 is not offered on PERSISTENT_2"
    ]


def test_a_storage_class_with_efa_off_persistent_2_is_refused() -> None:
    assert _run(CLASS, deployment_type="PERSISTENT_1", throughput_mbps_per_tib=50, efa=True) == [
        (
            "fsx.feature-unsupported",
            (*PATH, "efa"),
            "PERSISTENT_1 does not support EFA; only PERSISTENT_2 does",
            "switch 'cls' to PERSISTENT_2 or remove efa",
        )
    ]


def test_a_storage_class_with_efa_on_persistent_2_and_2_15_passes() -> None:
    assert _run(CLASS, efa=True) == []
    assert _run(CLASS, deployment_type="PERSISTENT_1", throughput_mbps_per_tib=50) == []


def test_a_storage_class_on_lustre_2_10_is_refused_on_persistent_2_only() -> None:
    assert _run(CLASS, file_system_type_version="2.10") == [
        ("fsx.version", (*PATH, "file_system_type_version"), "Lustre 2.10 is not offered on PERSISTENT_2", VERSION_HINT)
    ]
    assert _run(CLASS, deployment_type="PERSISTENT_1", throughput_mbps_per_tib=50, file_system_type_version="2.10") == []


def test_an_efa_storage_class_needs_lustre_2_15() -> None:
    assert _run(CLASS, efa=True, file_system_type_version="2.12") == [
        (
            "fsx.version",
            (*PATH, "file_system_type_version"),
            "an EFA-enabled file system needs Lustre 2.15 (for its metadata configuration), not 2.12",
            VERSION_HINT,
        )
    ]
    assert _run(CLASS, file_system_type_version="2.12") == []


def test_a_storage_class_is_held_to_the_throughput_values() -> None:
    assert _run(CLASS, throughput_mbps_per_tib=300) == [
        (
            "fsx.throughput-value",
            (*PATH, "throughput_mbps_per_tib"),
            "300 MB/s per TiB is not offered for PERSISTENT_2 SSD",
            "use one of [125, 250, 500, 1000]",
        )
    ]
    assert _run(CLASS, throughput_mbps_per_tib=None) == [
        (
            "fsx.throughput-required",
            (*PATH, "throughput_mbps_per_tib"),
            "PERSISTENT_2 needs throughput_mbps_per_tib, and 'cls' has none",
            "set one of [125, 250, 500, 1000]",
        )
    ]
    assert _run(CLASS, deployment_type="SCRATCH_2", throughput_mbps_per_tib=200) == [
        (
            "fsx.throughput-not-allowed",
            (*PATH, "throughput_mbps_per_tib"),
            "SCRATCH_2 has no throughput setting, but 'cls' sets 200",
            "remove throughput_mbps_per_tib (scratch gives about 200 MB/s per TiB)",
        )
    ]


def test_other_tier_kinds_have_no_fsx_rules() -> None:
    assert list(fsx.check(S3Bucket(kind="s3", name="data"), PATH, None)) == []


def _links(*paths: str, bucket_prefixes: tuple[str, ...] = ()) -> list[tuple[str, tuple[Any, ...], str, str]]:
    prefixes = bucket_prefixes or tuple(f"p{index}/" for index in range(len(paths)))
    links = [{"bucket": "b", "prefix": prefix, "file_system_path": path} for path, prefix in zip(paths, prefixes, strict=True)]
    return _run(P2, data_repositories=links)


OVERLAP_HINT = "give each association its own top-level directory"


def test_nine_repositories_are_refused_at_the_ninth_with_the_limit() -> None:
    found = [item for item in _links(*(f"/d{index}" for index in range(9))) if item[0] == "fsx.too-many-repositories"]
    assert found == [
        (
            "fsx.too-many-repositories",
            (*PATH, "data_repositories", 8),
            "'lus' links 9 S3 locations; FSx allows at most 8 data repository associations on a file system",
            "link at most 8 (one prefix can hold several datasets), or split the tier",
        )
    ]


def test_a_path_under_another_given_with_a_trailing_slash_overlaps() -> None:
    assert _links("/a/", "/a/b") == [
        (
            "fsx.repository-path",
            (*PATH, "data_repositories", 1, "file_system_path"),
            "file_system_path /a/b overlaps /a; associations may not nest",
            OVERLAP_HINT,
        )
    ]


def test_a_path_under_the_root_names_the_root() -> None:
    assert _links("/", "/data") == [
        (
            "fsx.repository-path",
            (*PATH, "data_repositories", 1, "file_system_path"),
            "file_system_path /data overlaps /; associations may not nest",
            OVERLAP_HINT,
        )
    ]


def test_paths_that_share_only_a_prefix_of_letters_do_not_overlap() -> None:
    """/dataX is beside /data, not inside it: only '/' ends a directory."""
    assert _links("/dataX", "/data") == []
    assert _links("/data", "/dataX/") == []


def test_a_path_ending_in_a_capital_is_named_whole() -> None:
    assert [item[2] for item in _links("/dataX", "/dataX/y")] == ["file_system_path /dataX/y overlaps /dataX; associations may not nest"]


def test_one_bucket_prefix_linked_twice() -> None:
    assert _links("/a", "/b", bucket_prefixes=("p/", "p/")) == [
        ("fsx.repository-path", (*PATH, "data_repositories", 1, "bucket"), "bucket 'b' prefix 'p/' is linked twice", "link each bucket prefix once")
    ]


@pytest.mark.parametrize(
    ("tier", "capacity", "rule", "nearest"),
    [
        ({**P2, "deployment_type": "SCRATCH_1", "throughput_mbps_per_tib": None}, 3000, "1200, 2400, then 2400 + multiples of 3600 GiB", 6000),
        ({**P1, "storage_type": "HDD", "throughput_mbps_per_tib": 40}, 2000, "multiples of 1800 GiB", 3600),
        ({**P1, "storage_type": "HDD", "throughput_mbps_per_tib": 12}, 7000, "multiples of 6000 GiB", 12000),
    ],
)
def test_an_illegal_size_offers_the_next_size_of_its_own_type_storage_and_throughput(
    tier: dict[str, Any], capacity: int, rule: str, nearest: int
) -> None:
    """Each of deployment type, storage type and throughput picks the step: the offered size follows all three."""
    found = [item for item in _run(tier, capacity_gib=capacity) if item[0] == "fsx.capacity-step"]
    assert found == [
        (
            "fsx.capacity-step",
            (*PATH, "capacity_gib"),
            f"capacity_gib {capacity} is not a legal {tier['deployment_type']} {tier.get('storage_type', 'SSD')} size ({rule})",
            f"use {nearest}, the next legal size",
        )
    ]
