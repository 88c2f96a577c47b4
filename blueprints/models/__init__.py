"""The blueprint language: strict, documented Pydantic v2 models. See `Blueprint`."""

from blueprints.models.blueprint import Blueprint
from blueprints.models.capacity import CapacityBlock, CapacityReservation, OnDemand, ReservationGroup, Spot
from blueprints.models.domains import Block, FailureDomains, Zone
from blueprints.models.fabrics import FatTree, RailOnly, RailOptimizedClos, TorClos
from blueprints.models.kubernetes import EfaDevicePlugin, GpuOperator, Kubernetes, NeuronDevicePlugin, NvidiaDevicePlugin
from blueprints.models.metadata import AwsTarget, Metadata
from blueprints.models.pools import Pool
from blueprints.models.power import Power
from blueprints.models.storage import FsxLustre, LocalNvme, S3Bucket

# Invariants inside one object, raised by model validators and reported with the schema errors.
MODEL_CODES: tuple[str, ...] = (
    "cloud.zone-outside-region",
    "cloud.duplicate-zone",
    "cloud.vpc-cidr-size",
    "cloud.pins-existing-vpc",
    "cloud.subnet-pin-size",
    "capacity.block-too-large",
    "capacity.block-window",
    "capacity.block-id",
    "capacity.block-duration",
    "capacity.group-members",
    "cost.declared-price",
    "domain.feeds-per-rack",
    "domain.service-rack-budget",
    "domain.service-serves-unknown",
    "domain.racks-half-stated",
    "domain.rack-budget-without-racks",
    "domain.feed-budget-without-racks",
    "power.pue-unstated",
    "fabric.odd-radix",
    "fabric.breakout",
    "fabric.uplinks",
    "fabric.uplinks-and-ratio",
    "fabric.core-uplinks",
    "fabric.cable-split",
    "fabric.scale-up-switches",
    "fabric.scale-up-links",
    "fabric.fat-tree-uniform",
    "fabric.tier-planes",
    "fabric.blocks-per-pod",
    "pool.node-range",
    "pool.node-count",
    "pool.share-without-standby",
    "pool.acceptance-burn-in",
    "pool.acceptance-replace-karpenter",
    "pool.root-volume-iops",
    "pool.root-volume-throughput",
    "k8s.duplicate-plugin",
    "k8s.plugin-conflict",
    "k8s.topology-levels",
    "k8s.duplicate-flavor",
    "k8s.toleration-value",
    "k8s.kueue-disabled",
    "k8s.system-node-range",
    "network.pod-cidrs-unused",
    "network.pod-cidrs-missing",
    "network.pod-cidr-size",
)

__all__ = [
    "AwsTarget",
    "Block",
    "Blueprint",
    "CapacityBlock",
    "CapacityReservation",
    "ReservationGroup",
    "EfaDevicePlugin",
    "FailureDomains",
    "FatTree",
    "FsxLustre",
    "GpuOperator",
    "Kubernetes",
    "LocalNvme",
    "Metadata",
    "NeuronDevicePlugin",
    "NvidiaDevicePlugin",
    "OnDemand",
    "Pool",
    "Power",
    "RailOnly",
    "RailOptimizedClos",
    "S3Bucket",
    "Spot",
    "TorClos",
    "Zone",
    "MODEL_CODES",
]
