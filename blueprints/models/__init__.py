"""The blueprint language: strict, documented Pydantic v2 models. See `Blueprint`."""

from blueprints.models.blueprint import Blueprint
from blueprints.models.capacity import CapacityBlock, CapacityReservation, OnDemand, Spot
from blueprints.models.domains import Block, FailureDomains, Zone
from blueprints.models.fabrics import FatTree, RailOnly, RailOptimizedClos, TorClos
from blueprints.models.kubernetes import EfaDevicePlugin, GpuOperator, Kubernetes, NeuronDevicePlugin, NvidiaDevicePlugin
from blueprints.models.metadata import AwsTarget, Metadata
from blueprints.models.pools import Pool
from blueprints.models.power import Power
from blueprints.models.storage import FsxLustre, LocalNvme, S3Bucket

__all__ = [
    "AwsTarget", "Block", "Blueprint", "CapacityBlock", "CapacityReservation", "EfaDevicePlugin", "FailureDomains",
    "FatTree", "FsxLustre", "GpuOperator", "Kubernetes", "LocalNvme", "Metadata", "NeuronDevicePlugin",
    "NvidiaDevicePlugin", "OnDemand", "Pool", "Power", "RailOnly", "RailOptimizedClos", "S3Bucket", "Spot",
    "TorClos", "Zone",
]
