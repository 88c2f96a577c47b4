"""Accelerator pools: groups of identical nodes with one role, one capacity source and one placement."""

from typing import Annotated, Literal, Self

from pydantic import Discriminator, Field, StringConstraints, Tag, model_validator

from blueprints.models.acceptance import Acceptance
from blueprints.models.base import Model, Name, from_defaults, no_entries, no_items, violation
from blueprints.models.capacity import CapacitySource, InstanceTypeName

# gp3 (EBS user guide, "General Purpose SSD volumes"): 3,000 IOPS included, at most 500 IOPS per GiB
# and 0.25 MiB/s of throughput per provisioned IOPS.
GP3_BASELINE_IOPS = 3_000
GP3_IOPS_PER_GIB = 500
GP3_MIBPS_PER_IOPS = 0.25
# The EBS volume type of every node's root volume (the launch template's, and Karpenter's EC2NodeClass's).
ROOT_VOLUME_TYPE = "gp3"

# EC2 resource ids: the prefix, a hyphen, then 8 or (since 2016-2018) 17 characters (EC2 user guide, "Resource IDs").
AmiId = Annotated[str, StringConstraints(pattern=r"^ami-([0-9a-f]{8}|[0-9a-f]{17})$"), Field(description="An AMI id, such as ami-0123456789abcdef0.")]
LabelKey = Annotated[str, StringConstraints(pattern=r"^([a-z0-9.-]{1,253}/)?[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$")]
LabelValue = Annotated[str, StringConstraints(pattern=r"^([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$")]


class NodeRange(Model):
    """An autoscaling node count."""

    min: int = Field(ge=0, description="Fewest nodes.")
    max: int = Field(ge=1, description="Most nodes; the fabric, power and blast-radius checks use this.")
    desired: int | None = Field(default=None, ge=0, description="Nodes at creation; none = `min`.")

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        desired = self.min if self.desired is None else self.desired
        if not self.min <= desired <= self.max:
            raise violation(
                "pool.node-range",
                f"node range min {self.min}, desired {desired}, max {self.max} is not ordered",
                "make min <= desired <= max",
            )
        return self


class Placement(Model):
    """Where a pool's nodes go, and how much of it one failure may take."""

    domains: list[Name] = Field(min_length=1, description="Failure domains (zone or block names) the pool is placed in.")
    spread: Literal["packed", "racks", "blocks", "zones"] = Field(
        default="packed",
        description="`packed` fills racks in order (best locality); `racks`/`blocks`/`zones` spread nodes evenly across them.",
    )
    max_failure_share: float = Field(
        default=1.0, gt=0.0, le=1.0, description="The most of the pool (0-1] any single failure may take; 1.0 = unchecked."
    )
    share_with_served: bool = Field(
        default=True,
        description="For a hot spare (`standby_for`): true = its nodes in each zone launch into the placement group of the pool "
        "it serves there (that pool's cluster, partition or spread group, not one of their own), so a promoted spare runs the "
        "pool's job on the same low-latency network segment; `validate` then holds the spare to the served pool's zones and blocks "
        "and to capacity that can join its placement (docs/spares.md). false = the spare is placed like any pool, apart from the "
        "pool it serves. Only a pool with `standby_for` may set it.",
    )


class Taint(Model):
    """A Kubernetes taint put on every node of the pool."""

    key: LabelKey = Field(description="The taint key, such as nvidia.com/gpu.")
    value: LabelValue = Field(default="", description="The taint value (may be empty).")
    effect: Literal["NoSchedule", "NoExecute", "PreferNoSchedule"] = Field(description="The taint effect.")


class Checkpoint(Model):
    """A checkpoint the pool writes, and how long it may take."""

    size_gib: float = Field(gt=0, description="Size of one full checkpoint of the job's state.")
    max_write_seconds: float = Field(gt=0, description="The longest a checkpoint write may take.")


class StorageUse(Model):
    """How a pool uses one storage tier: what it reads and what it writes."""

    tier: Name = Field(description="The storage tier's name.")
    read_mbps_per_accelerator: float = Field(
        default=0.0, ge=0, description="Sustained read demand per accelerator, in megabytes per second (MB/s, like FSx throughput)."
    )
    checkpoint: Checkpoint | None = Field(default=None, description="Checkpoints written to this tier; none = no checkpoint demand.")


class RootVolume(Model):
    """A node's encrypted gp3 root volume: container images, logs and the kubelet's ephemeral storage.

    Limits are the EC2 API's for gp3 in a launch template (botocore ec2 LaunchTemplateEbsBlockDeviceRequest:
    1 to 65,536 GiB, 3,000 to 80,000 IOPS, 125 to 2,000 MiB/s) and the EBS user guide's gp3 ratios (at most
    500 IOPS per GiB and 0.25 MiB/s per IOPS); EKS's own default root disk is 20 GiB (CreateNodegroup diskSize).
    """

    size_gib: int = Field(default=200, ge=20, le=65_536, description="Size in GiB (accelerator images are large: 200 by default).")
    iops: int | None = Field(default=None, ge=3_000, le=80_000, description="Provisioned IOPS; none = gp3's included 3,000.")
    throughput_mibps: int | None = Field(default=None, ge=125, le=2_000, description="Provisioned MiB/s; none = gp3's included 125.")

    @model_validator(mode="after")
    def _gp3_ratios(self) -> Self:
        iops = self.iops or GP3_BASELINE_IOPS
        if self.iops is not None and self.iops > GP3_IOPS_PER_GIB * self.size_gib:
            raise violation(
                "pool.root-volume-iops",
                f"{self.iops} IOPS on {self.size_gib} GiB is over gp3's {GP3_IOPS_PER_GIB} IOPS per GiB",
                f"use at most {GP3_IOPS_PER_GIB * self.size_gib} IOPS, or at least {-(-self.iops // GP3_IOPS_PER_GIB)} GiB",
                field="iops",
            )
        if self.throughput_mibps is not None and self.throughput_mibps > iops * GP3_MIBPS_PER_IOPS:
            raise violation(
                "pool.root-volume-throughput",
                f"{self.throughput_mibps} MiB/s over {iops} IOPS is over gp3's {GP3_MIBPS_PER_IOPS} MiB/s per IOPS",
                f"use at most {int(iops * GP3_MIBPS_PER_IOPS)} MiB/s, or at least {int(self.throughput_mibps / GP3_MIBPS_PER_IOPS)} IOPS",
                field="throughput_mibps",
            )
        return self


class Pool(Model):
    """An accelerator pool: one EKS managed node group per failure domain it is placed in."""

    name: Name = Field(description="The pool's name; labels, node groups and flavors derive from it.")
    instance_type: InstanceTypeName = Field(description="An instance type from `railyard catalog`.")
    role: Literal["training", "inference", "dev"] = Field(description="What the pool runs.")
    nodes: Annotated[
        Annotated[int, Tag("fixed")] | Annotated[NodeRange, Tag("range")],
        Discriminator(lambda value: "range" if isinstance(value, (dict, NodeRange)) else "fixed"),
    ] = Field(description="A fixed node count, or {min, max, desired}.")
    capacity: CapacitySource = Field(default_factory=from_defaults(kind="on_demand"), description="Where instances come from; default on-demand.")
    placement: Placement = Field(description="Failure domains, spread and tolerance.")
    fabric: Name | None = Field(default=None, description="The fabric the pool joins; none = no scale-out fabric.")
    standby_for: Name | None = Field(
        default=None,
        description="Make these hosts hot spares of the named pool (same instance type and fabric): wired, powered and priced, "
        "counted in that pool's blast radius as the spares that cover its failures, and left out of the oversubscription and "
        "bisection its jobs see (Alibaba HPN's backup hosts). Their nodes carry the taint `railyard.dev/standby-for=<pool>:NoSchedule` "
        "(the device plugins tolerate it, so a spare is ready; jobs don't, so none lands there) and Kueue gives the spare pool no "
        "flavor or quota; an operator promotes a spare by relabelling it into the pool and removing the taint. By default the "
        "spares share the served pool's placement group (`placement.share_with_served`). None = the pool runs jobs. docs/spares.md.",
    )
    labels: dict[LabelKey, LabelValue] = Field(default_factory=no_entries, description="Extra node labels.")
    taints: list[Taint] = Field(default_factory=no_items, description="Extra node taints (the accelerator taint is added for you).")
    node_power_kw: float | None = Field(default=None, gt=0, description="Per-node draw; none = the catalog's typical draw.")
    storage: list[StorageUse] = Field(default_factory=no_items, description="The storage tiers the pool mounts and its demand on them.")
    root_volume: RootVolume = Field(default_factory=from_defaults(), description="The nodes' root volume (gp3, encrypted with the volume key).")
    provisioner: Literal["managed_node_group", "karpenter"] = Field(
        default="managed_node_group",
        description="What launches the nodes: EKS managed node groups (one per failure domain), or Karpenter (a NodePool and "
        "EC2NodeClass per failure domain, nodes launched for pending pods). Karpenter is for pools not on reserved capacity.",
    )
    kubernetes_version: Annotated[str, StringConstraints(pattern=r"^1\.[0-9]{2}$")] | None = Field(
        default=None,
        description='Hold the pool\'s nodes at this Kubernetes version (quoted, "1.34") while the control plane moves on, for '
        "a staged upgrade: roll the pool when its jobs allow. None = the cluster's kubernetes.version. Within the version-skew "
        "policy: not newer than the cluster, at most three minor versions older. Managed node groups on EKS's AMIs only.",
    )
    scaled_to_zero: bool = Field(
        default=False,
        description="The pool's node groups stand at desired size 0 (set by hand with `aws eks update-nodegroup-config`), the step "
        "the EKS user guide requires before upgrading a P6e-GB200 UltraServer node group: `railyard diff` then lets a version or AMI "
        "change roll them (change.ultraserver-roll). Drop it once the roll is applied and the sizes are restored.",
    )
    ami_id: AmiId | None = Field(
        default=None,
        description="A custom Amazon Linux 2023 AMI with nodeadm (built from the EKS AMI); none = EKS's AMI for the accelerator. "
        "EKS bootstraps no custom AMI: railyard writes the node's whole NodeConfig, labels and taints included.",
    )

    acceptance: Acceptance | None = Field(
        default=None,
        description="Gate each new node on the design before it takes work (docs/acceptance.md): the nodes start tainted "
        "`railyard.dev/acceptance=pending:NoSchedule` and a checker DaemonSet lifts the taint from a node that passes. "
        "None = no gate (the default); a stack file can set it per environment.",
    )

    @model_validator(mode="after")
    def _fixed_nodes_positive(self) -> Self:
        if isinstance(self.nodes, int) and self.nodes < 1:
            raise violation("pool.node-count", f"nodes is {self.nodes}; a pool has at least 1 node", "set nodes: 1 or more", field="nodes")
        return self

    @model_validator(mode="after")
    def _share_only_for_spares(self) -> Self:
        if self.standby_for is None and "share_with_served" in self.placement.model_fields_set:
            raise violation(
                "pool.share-without-standby",
                f"pool '{self.name}' sets placement.share_with_served {str(self.placement.share_with_served).lower()}, "
                "but it serves no pool: the setting is for hot spares (standby_for)",
                "drop placement.share_with_served, or set standby_for to the pool these hosts stand in for",
                field="placement.share_with_served",
            )
        return self

    @model_validator(mode="after")
    def _replace_needs_an_auto_scaling_group(self) -> Self:
        # Karpenter launches its nodes with EC2 CreateFleet (its controller policy, components/karpenter.py, grants
        # ec2:CreateFleet and no autoscaling action): no Auto Scaling group holds them, so SetInstanceHealth has no group
        # to replace them in ("not part of any Autoscaling Group or Managed Node Group":
        # https://repost.aws/questions/QUkSinVy1dSMa2IbkFOAbsrg/eks-node-capacity-settings-with-karpenter).
        if self.acceptance is not None and self.acceptance.on_failure == "replace" and self.provisioner == "karpenter":
            raise violation(
                "pool.acceptance-replace-karpenter",
                f"pool '{self.name}' sets acceptance.on_failure: replace, but its nodes are launched by Karpenter, which puts them "
                "in no Auto Scaling group: there is no group to mark the instance Unhealthy in",
                "use on_failure: taint on this pool (a failed node stays tainted for an operator), or provisioner: managed_node_group",
                field="acceptance.on_failure",
            )
        return self

    @property
    def max_nodes(self) -> int:
        """The most nodes the pool can have (fixed count or range max)."""
        return self.nodes if isinstance(self.nodes, int) else self.nodes.max

    @property
    def min_nodes(self) -> int:
        """The fewest nodes the pool can have."""
        return self.nodes if isinstance(self.nodes, int) else self.nodes.min

    @property
    def desired_nodes(self) -> int:
        """The nodes the pool starts with."""
        if isinstance(self.nodes, int):
            return self.nodes
        return self.nodes.min if self.nodes.desired is None else self.nodes.desired
