"""FSx for Lustre file systems and S3 buckets, planned from the storage tiers.

An FSx file system lives in exactly one subnet (aws-facts.md 3.1). It goes
where the pools that mount it are: the subnet of the first node group that
lists the tier - that group's EFA subnet when the file system is EFA-enabled
and the group is on EFA (EFA traffic stays in one subnet), otherwise the
private subnet of that group's zone. A tier no pool mounts goes in the private
subnet of the first zone.

The plan also carries what the blueprint declares the tier must deliver, for the
policy pack (which sees only resources) to check against the file system's
throughput: the pools' reads at once (accelerators at their most nodes x read
MB/s each) or the largest single checkpoint burst (size / time allowed),
whichever is more. These are the two demands the topology checker proves.
"""

from __future__ import annotations

from blueprints.catalog import Catalog
from blueprints.models import Blueprint
from blueprints.models.storage import DataRepository, FsxLustre, FsxLustreClass, S3Bucket
from blueprints.records import record
from blueprints.rules.names import bucket_name
from topology.cluster.node_groups import NodeGroupPlan
from topology.storage import MEGABYTES_PER_GIB


@record
class FileSystemPlan:
    """One FSx for Lustre file system: the tier as declared and where it is placed."""

    tier: FsxLustre
    availability_zone: str
    subnet_key: str
    client_pools: tuple[str, ...]
    reason: str
    demand_mb_per_s: float = 0.0

    @property
    def name(self) -> str:
        """The tier's name."""
        return self.tier.name

    @property
    def persistent(self) -> bool:
        """True for PERSISTENT_1 and PERSISTENT_2 (which take a KMS key and a throughput per TiB)."""
        return self.tier.deployment_type.startswith("PERSISTENT")

    @property
    def tags(self) -> dict[str, str]:
        """Tags naming the client pools and the declared demand (MB/s), which the policy pack reads."""
        return {"railyard:mounted-by": " ".join(self.client_pools), "railyard:demand-mbps": str(round(self.demand_mb_per_s))}

    @property
    def existing(self) -> bool:
        """True when the file system already exists (`existing:`): mounted, never created."""
        return self.tier.existing is not None

    @property
    def data_repositories(self) -> tuple[DataRepository, ...]:
        """The tier's S3 links."""
        return tuple(self.tier.data_repositories)


@record
class BucketPlan:
    """One S3 bucket: its tier, its bucket name and whether it keeps versions."""

    tier: str
    bucket_name: str
    versioning: bool
    # The bucket already exists (its tier says `existing: true`): linked by name, never created.
    existing: bool = False
    # The tier's own `protect` (the cluster's `protect_stateful` applies on top).
    protect: bool = True


def declared_demand(tier_name: str, blueprint: Blueprint, catalog: Catalog) -> float:
    """MB/s the blueprint asks of a tier: all pools' reads together, or the largest checkpoint burst."""
    reads, bursts = 0.0, [0.0]
    for pool in blueprint.pools:
        spec = catalog.get(pool.instance_type)
        accelerators = pool.max_nodes * (spec.accelerator_count if spec else 0)
        for use in pool.storage:
            if use.tier != tier_name:
                continue
            reads += accelerators * use.read_mbps_per_accelerator
            if use.checkpoint is not None:
                bursts.append(use.checkpoint.size_gib * MEGABYTES_PER_GIB / use.checkpoint.max_write_seconds)
    return max(reads, max(bursts))


def _near_clients(tier: str, efa: bool, blueprint: Blueprint, node_groups: tuple[NodeGroupPlan, ...]) -> tuple[str, str, tuple[str, ...], str]:
    """(zone, subnet key, client pools, why) for file systems of `tier`: the subnet of the first node group that lists it."""
    clients = tuple(pool.name for pool in blueprint.pools if any(use.tier == tier for use in pool.storage))
    groups = [group for group in node_groups if group.pool in clients]
    if not groups:
        zone = blueprint.cloud.availability_zones[0]
        return zone, f"private-{zone}", (), f"no pool mounts '{tier}': first zone {zone}"
    first = groups[0]
    zone = first.availability_zones[0]
    efa_subnet = efa and first.efa_interfaces > 0
    subnet = first.subnet_keys[0] if efa_subnet else f"private-{zone}"
    why = "the EFA subnet of" if efa_subnet else "the zone of"
    return zone, subnet, clients, f"{why} pool '{first.pool}' ({first.name}) in {zone}"


def place_file_system(tier: FsxLustre, blueprint: Blueprint, catalog: Catalog, node_groups: tuple[NodeGroupPlan, ...]) -> FileSystemPlan:
    """Put one FSx tier in the subnet of the pools that mount it (see the module docstring)."""
    demand = declared_demand(tier.name, blueprint, catalog)
    if tier.existing is not None:
        zone = tier.existing.availability_zone
        clients = tuple(pool.name for pool in blueprint.pools if any(use.tier == tier.name for use in pool.storage))
        return FileSystemPlan(tier, zone, f"private-{zone}", clients, f"'{tier.name}' exists ({tier.existing.id}) in {zone}", demand)
    zone, subnet, clients, why = _near_clients(tier.name, tier.efa, blueprint, node_groups)
    return FileSystemPlan(tier, zone, subnet, clients, why, demand)


# The FSx CSI chart's controller service account (aws-fsx-csi-driver 1.17.0 values.yaml `controller.serviceAccount.name`),
# named explicitly in the release so the Pod Identity association names the account the controller runs as.
FSX_CONTROLLER_ACCOUNT = ("kube-system", "fsx-csi-controller-sa")


@record
class FsxClassPlan:
    """One FSx for Lustre StorageClass: the file systems the driver makes for its claims go in this subnet."""

    tier: FsxLustreClass
    availability_zone: str
    subnet_key: str
    client_pools: tuple[str, ...]
    reason: str

    @property
    def name(self) -> str:
        """The tier's (and the StorageClass's) name."""
        return self.tier.name


def plan_fsx_classes(blueprint: Blueprint, node_groups: tuple[NodeGroupPlan, ...]) -> tuple[FsxClassPlan, ...]:
    """Where each `fsx_lustre_class` tier's file systems are made, in blueprint order (placed like a file system)."""
    planned = []
    for tier in blueprint.storage:
        if isinstance(tier, FsxLustreClass):
            planned.append(FsxClassPlan(tier, *_near_clients(tier.name, tier.efa, blueprint, node_groups)))
    return tuple(planned)


def plan_storage(
    blueprint: Blueprint, catalog: Catalog, cluster_name: str, node_groups: tuple[NodeGroupPlan, ...]
) -> tuple[tuple[FileSystemPlan, ...], tuple[BucketPlan, ...]]:
    """(file systems, buckets) for every FSx and S3 tier, in blueprint order."""
    file_systems = tuple(place_file_system(tier, blueprint, catalog, node_groups) for tier in blueprint.storage if isinstance(tier, FsxLustre))
    buckets = tuple(
        BucketPlan(tier.name, bucket_name(cluster_name, tier), tier.versioning, tier.existing, tier.protect)
        for tier in blueprint.storage
        if isinstance(tier, S3Bucket)
    )
    return file_systems, buckets
