"""FSx for Lustre: legal capacity steps, throughput values and features per deployment type.

Every value here comes from botocore's FSx model (fsx/2018-03-01:
CreateFileSystemLustreConfiguration, LustreDeploymentType, MetadataConfiguration)
and the pulumi-aws docstrings, as summarised with sources in
../shared/research/aws-facts.md section 3. Each broken rule is its own finding.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.catalog import Catalog
from blueprints.findings import Finding, Path, error
from blueprints.models.storage import FsxLustre, FsxLustreClass, StorageTier

CODES = (
    "fsx.capacity-step",
    "fsx.throughput-required",
    "fsx.throughput-not-allowed",
    "fsx.throughput-value",
    "fsx.storage-type",
    "fsx.feature-unsupported",
    "fsx.efa-needs-metadata",
    "fsx.metadata-iops",
    "fsx.version",
    "fsx.repository-path",
    "fsx.too-many-repositories",
)
# botocore fsx CreateDataRepositoryAssociation documentation: "You can have a maximum of 8 data repository
# associations on a file system."
MAX_REPOSITORIES = 8
THROUGHPUT = {("PERSISTENT_1", "SSD"): (50, 100, 200), ("PERSISTENT_1", "HDD"): (12, 40), ("PERSISTENT_2", "SSD"): (125, 250, 500, 1000)}
METADATA_IOPS = (1500, 3000, 6000, 12000) + tuple(range(24000, 192001, 12000))


def legal_capacity(deployment: str, storage: str, throughput: int | None, capacity: int) -> tuple[bool, str]:
    """Whether `capacity` GiB is a legal size, and the rule in words."""
    if deployment == "PERSISTENT_1" and storage == "HDD":
        step = 6000 if throughput == 12 else 1800
        return capacity >= step and capacity % step == 0, f"multiples of {step} GiB"
    if deployment == "SCRATCH_1":
        ok = capacity in (1200, 2400) or (capacity > 2400 and (capacity - 2400) % 3600 == 0)
        return ok, "1200, 2400, then 2400 + multiples of 3600 GiB"
    ok = capacity == 1200 or (capacity >= 2400 and capacity % 2400 == 0)
    return ok, "1200, 2400, then multiples of 2400 GiB"


def _nearest(capacity: int, deployment: str, storage: str, throughput: int | None) -> int:
    """The smallest legal size at or above `capacity`, computed from the step (a capacity can be any size the schema allows)."""
    if deployment == "PERSISTENT_1" and storage == "HDD":
        step = 6000 if throughput == 12 else 1800
        return max(step, -(-capacity // step) * step)
    if deployment == "SCRATCH_1":
        if capacity <= 2400:
            return 1200 if capacity <= 1200 else 2400
        return 2400 + -(-(capacity - 2400) // 3600) * 3600
    if capacity <= 1200:
        return 1200
    return max(2400, -(-capacity // 2400) * 2400)


def _throughput(tier: FsxLustre | FsxLustreClass, path: Path) -> Iterable[Finding]:
    where = path + ("throughput_mbps_per_tib",)
    legal = THROUGHPUT.get((tier.deployment_type, tier.storage_type))
    if tier.deployment_type.startswith("SCRATCH"):
        if tier.throughput_mbps_per_tib is not None:
            yield error(
                "fsx.throughput-not-allowed",
                where,
                f"{tier.deployment_type} has no throughput setting, but '{tier.name}' sets {tier.throughput_mbps_per_tib}",
                "remove throughput_mbps_per_tib (scratch gives about 200 MB/s per TiB)",
            )
    elif tier.throughput_mbps_per_tib is None:
        yield error(
            "fsx.throughput-required",
            where,
            f"{tier.deployment_type} needs throughput_mbps_per_tib, and '{tier.name}' has none",
            f"set one of {list(legal or ())}",
        )
    elif legal and tier.throughput_mbps_per_tib not in legal:
        yield error(
            "fsx.throughput-value",
            where,
            f"{tier.throughput_mbps_per_tib} MB/s per TiB is not offered for {tier.deployment_type} {tier.storage_type}",
            f"use one of {list(legal)}",
        )


def _features(tier: FsxLustre, path: Path) -> Iterable[Finding]:
    persistent_2 = tier.deployment_type == "PERSISTENT_2"
    if tier.storage_type == "HDD" and tier.deployment_type != "PERSISTENT_1":
        yield error(
            "fsx.storage-type",
            path + ("storage_type",),
            f"HDD storage is offered only on PERSISTENT_1, not {tier.deployment_type}",
            "use storage_type: SSD",
        )
    for field, present, what in (
        ("metadata", tier.metadata is not None, "a metadata configuration"),
        ("efa", tier.efa, "EFA"),
        ("data_repositories", bool(tier.data_repositories), "data-repository associations"),
    ):
        if present and not persistent_2:
            yield error(
                "fsx.feature-unsupported",
                path + (field,),
                f"{tier.deployment_type} does not support {what}; only PERSISTENT_2 does",
                f"switch '{tier.name}' to PERSISTENT_2 or remove {field}",
            )
    if persistent_2 and tier.efa and tier.metadata is None:
        yield error(
            "fsx.efa-needs-metadata",
            path + ("metadata",),
            f"an EFA-enabled file system needs a metadata configuration, and '{tier.name}' has none",
            "add metadata: {mode: automatic}",
        )
    meta = tier.metadata
    if meta is not None and persistent_2:
        if meta.mode == "automatic" and meta.iops is not None:
            yield error(
                "fsx.metadata-iops",
                path + ("metadata", "iops"),
                f"metadata mode automatic derives IOPS from capacity; iops {meta.iops} can't be set",
                "remove iops or use mode: user_provisioned",
            )
        if meta.mode == "user_provisioned" and meta.iops not in METADATA_IOPS:
            yield error(
                "fsx.metadata-iops",
                path + ("metadata", "iops"),
                f"metadata iops {meta.iops} is not offered",
                "use 1500, 3000, 6000, 12000 or a multiple of 12000 up to 192000",
            )
    if persistent_2 and tier.file_system_type_version == "2.10":
        yield error(
            "fsx.version", path + ("file_system_type_version",), "Lustre 2.10 is not offered on PERSISTENT_2", 'use file_system_type_version: "2.15"'
        )
    elif persistent_2 and meta is not None and tier.file_system_type_version != "2.15":
        yield error(
            "fsx.version",
            path + ("file_system_type_version",),
            f"a metadata configuration needs Lustre 2.15, not {tier.file_system_type_version}",
            'use file_system_type_version: "2.15"',
        )


def _repositories(tier: FsxLustre, path: Path) -> Iterable[Finding]:
    if len(tier.data_repositories) > MAX_REPOSITORIES:
        yield error(
            "fsx.too-many-repositories",
            path + ("data_repositories", MAX_REPOSITORIES),
            f"'{tier.name}' links {len(tier.data_repositories)} S3 locations; FSx allows at most {MAX_REPOSITORIES} "
            "data repository associations on a file system",
            f"link at most {MAX_REPOSITORIES} (one prefix can hold several datasets), or split the tier",
        )
    seen_paths: list[str] = []
    seen_buckets: set[tuple[str, str]] = set()
    for index, link in enumerate(tier.data_repositories):
        where = path + ("data_repositories", index, "file_system_path")
        directory = link.file_system_path.rstrip("/") + "/"
        for other in seen_paths:
            if directory.startswith(other) or other.startswith(directory):
                yield error(
                    "fsx.repository-path",
                    where,
                    f"file_system_path {link.file_system_path} overlaps {other.rstrip('/') or '/'}; associations may not nest",
                    "give each association its own top-level directory",
                )
        if (link.bucket, link.prefix) in seen_buckets:
            yield error(
                "fsx.repository-path",
                path + ("data_repositories", index, "bucket"),
                f"bucket '{link.bucket}' prefix '{link.prefix}' is linked twice",
                "link each bucket prefix once",
            )
        seen_paths.append(directory)
        seen_buckets.add((link.bucket, link.prefix))


def _class_features(tier: FsxLustreClass, path: Path) -> Iterable[Finding]:
    if tier.efa and tier.deployment_type != "PERSISTENT_2":
        yield error(
            "fsx.feature-unsupported",
            path + ("efa",),
            f"{tier.deployment_type} does not support EFA; only PERSISTENT_2 does",
            f"switch '{tier.name}' to PERSISTENT_2 or remove efa",
        )
    if tier.deployment_type == "PERSISTENT_2" and tier.file_system_type_version == "2.10":
        yield error(
            "fsx.version", path + ("file_system_type_version",), "Lustre 2.10 is not offered on PERSISTENT_2", 'use file_system_type_version: "2.15"'
        )
    elif tier.efa and tier.file_system_type_version != "2.15":
        # EFA needs a metadata configuration, which the class always sets with EFA, and that needs Lustre 2.15.
        yield error(
            "fsx.version",
            path + ("file_system_type_version",),
            f"an EFA-enabled file system needs Lustre 2.15 (for its metadata configuration), not {tier.file_system_type_version}",
            'use file_system_type_version: "2.15"',
        )


def check(tier: StorageTier, path: Path, catalog: Catalog) -> Iterable[Finding]:
    """Every FSx rule for one tier; other tier kinds have none here."""
    if isinstance(tier, FsxLustreClass):
        yield from _throughput(tier, path)
        yield from _class_features(tier, path)
        return
    if not isinstance(tier, FsxLustre):
        return
    ok, rule = legal_capacity(tier.deployment_type, tier.storage_type, tier.throughput_mbps_per_tib, tier.capacity_gib)
    if not ok:
        nearest = _nearest(tier.capacity_gib, tier.deployment_type, tier.storage_type, tier.throughput_mbps_per_tib)
        yield error(
            "fsx.capacity-step",
            path + ("capacity_gib",),
            f"capacity_gib {tier.capacity_gib} is not a legal {tier.deployment_type} {tier.storage_type} size ({rule})",
            f"use {nearest}, the next legal size",
        )
    yield from _throughput(tier, path)
    yield from _features(tier, path)
    yield from _repositories(tier, path)
