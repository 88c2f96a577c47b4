"""Storage tiers: FSx for Lustre, the nodes' local NVMe, and S3 buckets.

The legal FSx values (capacity steps, throughput per TiB, which deployment type
supports metadata configuration, EFA and data-repository associations) are
checked by `blueprints/rules/fsx.py`, which reports every broken one at once.
An `fsx_lustre` tier is one file system railyard makes (or one that exists);
an `fsx_lustre_class` is a StorageClass the FSx CSI driver makes file systems
from, one per claim.
"""

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from blueprints.models.base import AvailabilityZone, Model, Name, no_items

MountPath = Annotated[str, StringConstraints(pattern=r"^/[A-Za-z0-9._/-]*$"), Field(description="An absolute path.")]
BucketName = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"),
    Field(description="An S3 bucket name (3 to 63 lower-case characters)."),
]
S3Event = Literal["NEW", "CHANGED", "DELETED"]


def _every_event() -> list[S3Event]:
    return ["NEW", "CHANGED", "DELETED"]


class DataRepository(Model):
    """A data-repository association: an FSx directory linked to an S3 prefix (PERSISTENT_2 only)."""

    bucket: Name = Field(description="The name of an `s3` storage tier in this blueprint.")
    prefix: Annotated[str, StringConstraints(pattern=r"^([A-Za-z0-9._-]+/)*$")] = Field(
        default="", description="A key prefix inside the bucket, ending in '/' (empty = the whole bucket)."
    )
    file_system_path: MountPath = Field(description="The directory in the file system, such as /datasets.")
    import_events: list[S3Event] = Field(default_factory=_every_event, description="S3 changes imported automatically.")
    export_events: list[S3Event] = Field(default_factory=no_items, description="File-system changes exported to S3.")


class MetadataConfig(Model):
    """Lustre metadata performance (PERSISTENT_2 only)."""

    mode: Literal["automatic", "user_provisioned"] = Field(description="`automatic` sizes IOPS from capacity.")
    iops: int | None = Field(
        default=None, description="Metadata IOPS with `user_provisioned`: 1500, 3000, 6000, 12000, then multiples of 12000 up to 192000."
    )


class ExistingFileSystem(Model):
    """An FSx for Lustre file system that already exists: railyard mounts it (a static volume) and creates nothing."""

    id: Annotated[str, StringConstraints(pattern=r"^fs-[0-9a-f]{8,17}$")] = Field(description="Its id, such as fs-0123456789abcdef0.")
    dns_name: Annotated[str, StringConstraints(pattern=r"^fs-[0-9a-f]{8,17}\.fsx\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$")] = Field(
        description="Its DNS name, such as fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com (aws fsx describe-file-systems)."
    )
    mount_name: Annotated[str, StringConstraints(pattern=r"^[a-z0-9]{1,8}$|^fsx$")] = Field(
        description="Its Lustre mount name (LustreConfiguration.MountName; `fsx` on SCRATCH_1)."
    )
    availability_zone: AvailabilityZone = Field(description="The zone of its subnet; the pools that mount it are checked against it.")
    security_group_id: Annotated[str, StringConstraints(pattern=r"^sg-[0-9a-f]{8,17}$")] = Field(
        description="A security group on its network interfaces (aws ec2 describe-network-interfaces on the file system's "
        "NetworkInterfaceIds). railyard admits the cluster's nodes to it on the Lustre ports, 988 and 1018-1023 (all traffic "
        "when EFA-enabled), as for the file systems it creates; without that path mounts hang."
    )


class FsxLustre(Model):
    """An FSx for Lustre file system, mounted by the pools that list it."""

    kind: Literal["fsx_lustre"] = Field(description="FSx for Lustre.")
    name: Name = Field(description="The tier's name; pools mount it by name.")
    deployment_type: Literal["SCRATCH_1", "SCRATCH_2", "PERSISTENT_1", "PERSISTENT_2"] = Field(
        description="The FSx deployment type. Always explicit: the API's default (SCRATCH_1) is rarely wanted."
    )
    storage_type: Literal["SSD", "HDD"] = Field(default="SSD", description="SSD, or HDD (PERSISTENT_1 only).")
    capacity_gib: int = Field(
        ge=1,
        le=2_147_483_647,  # botocore fsx StorageCapacity maximum
        description="Storage capacity in GiB, on the deployment type's legal steps (at most the API's 2,147,483,647).",
    )
    throughput_mbps_per_tib: int | None = Field(
        default=None, description="Throughput in megabytes per second per TiB of storage (persistent types only): PERSISTENT_2 125/250/500/1000."
    )
    efa: bool = Field(default=False, description="EFA-enabled file system (PERSISTENT_2 with metadata configuration).")
    metadata: MetadataConfig | None = Field(default=None, description="Metadata configuration (PERSISTENT_2 only).")
    data_repositories: list[DataRepository] = Field(default_factory=no_items, description="S3 links (PERSISTENT_2 only).")
    mount_path: MountPath = Field(default="/fsx", description="Where pods mount it.")
    file_system_type_version: Literal["2.10", "2.12", "2.15"] = Field(default="2.15", description="The Lustre version.")
    existing: ExistingFileSystem | None = Field(
        default=None,
        description="Mount a file system that already exists (the fields above then describe it, for the checks); none = railyard creates it.",
    )
    accept_replacement: bool = Field(
        default=False,
        description="Allow a change that replaces this file system: a new, empty one is made and the old one and its data are deleted. "
        "`railyard diff` reports such a change as an error without it; with it, the file system is compiled unprotected, "
        "so the replacement can apply.",
    )
    protect: bool = Field(
        default=True,
        description="Pulumi's `protect` on this tier's file system (with `cloud.protect_stateful`). Pulumi deletes a protected resource "
        "only after an `up` has unprotected it, so removing the tier takes two changes: `protect: false` here and `pulumi up`, then the "
        "tier removed (`railyard diff` says so). It unprotects this tier alone, not the whole cluster.",
    )


class FsxLustreClass(Model):
    """A StorageClass that makes an FSx for Lustre file system for each PersistentVolumeClaim (dynamic provisioning).

    Pods claim with `storageClassName: <name>`; the FSx CSI driver creates a file
    system of the claim's size, rounded up to the deployment type's step, in the
    subnet of the first pool that lists this tier (its EFA subnet when both are
    on EFA), behind a security group railyard makes for the class. Its
    controller gets an IAM role (AmazonFSxFullAccess) through EKS Pod Identity.
    Parameters are the driver's (aws-fsx-csi-driver pkg/driver/controller.go).
    """

    kind: Literal["fsx_lustre_class"] = Field(description="A StorageClass of FSx for Lustre file systems made on demand.")
    name: Name = Field(description="The tier's and the StorageClass's name; pools list it, claims name it.")
    deployment_type: Literal["SCRATCH_2", "PERSISTENT_1", "PERSISTENT_2"] = Field(
        description="The FSx deployment type of every file system it makes. Always explicit: the driver's default is SCRATCH_1."
    )
    throughput_mbps_per_tib: int | None = Field(
        default=None, description="Throughput per TiB (persistent types only): PERSISTENT_1 50/100/200, PERSISTENT_2 125/250/500/1000."
    )
    efa: bool = Field(default=False, description="EFA-enabled file systems (PERSISTENT_2; metadata configuration is set to automatic).")
    data_compression: Literal["NONE", "LZ4"] = Field(default="LZ4", description="Lustre data compression (LZ4, as railyard's own file systems use).")
    file_system_type_version: Literal["2.10", "2.12", "2.15"] = Field(default="2.15", description="The Lustre version.")
    reclaim_policy: Literal["Retain", "Delete"] = Field(
        default="Retain",
        description="What happens to a file system when its claim is deleted: `Retain` keeps it (and its data), `Delete` deletes it.",
    )

    @property
    def storage_type(self) -> Literal["SSD"]:
        """Dynamic file systems are SSD (HDD needs a drive cache the class does not set)."""
        return "SSD"


class LocalNvme(Model):
    """The nodes' instance-store NVMe disks, assembled into one RAID0 volume at boot."""

    kind: Literal["local_nvme"] = Field(description="Instance-store NVMe.")
    name: Name = Field(description="The tier's name.")
    raid: Literal["raid0"] = Field(default="raid0", description="How the disks are combined (RAID0: all capacity, no redundancy).")
    mount_path: MountPath = Field(default="/mnt/k8s-disks", description="Where the volume is mounted on the node.")


class S3Bucket(Model):
    """An S3 bucket for datasets and checkpoints; public access is always blocked."""

    kind: Literal["s3"] = Field(description="An S3 bucket.")
    name: Name = Field(description="The tier's name; FSx data repositories name it.")
    bucket_name: BucketName | None = Field(default=None, description="The bucket's name; none = derived from the cluster and tier names.")
    versioning: bool = Field(default=True, description="Keep object versions (protects checkpoints from overwrite).")
    existing: bool = Field(
        default=False,
        description="The bucket already exists (name it in bucket_name): railyard links it and creates nothing, since a taken name can't be made.",
    )
    protect: bool = Field(
        default=True,
        description="Pulumi's `protect` on this tier's bucket (with `cloud.protect_stateful`). Pulumi deletes a protected resource "
        "only after an `up` has unprotected it, so removing the tier takes two changes: `protect: false` here and `pulumi up`, then the "
        "tier removed (`railyard diff` says so). It unprotects this tier alone, not the whole cluster.",
    )


StorageTier = Annotated[
    FsxLustre | FsxLustreClass | LocalNvme | S3Bucket,
    Field(discriminator="kind", description="A storage tier."),
]
