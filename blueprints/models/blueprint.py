"""The top-level blueprint: one document describes a whole accelerator cluster."""

from typing import Literal

from pydantic import Field

from blueprints.models.base import Model, from_defaults, no_entries, no_items
from blueprints.models.cost import Cost
from blueprints.models.domains import FailureDomains
from blueprints.models.fabrics import Fabric
from blueprints.models.kubernetes import Kubernetes
from blueprints.models.metadata import AwsTarget, Metadata
from blueprints.models.pools import Pool
from blueprints.models.power import Power
from blueprints.models.quotas import Quotas
from blueprints.models.storage import StorageTier


class Blueprint(Model):
    """An accelerator cluster: pools, failure domains, fabrics, storage, power and Kubernetes."""

    version: Literal[1] = Field(description="The blueprint language version. Always 1.")
    metadata: Metadata = Field(description="Name, environment and ownership.")
    cloud: AwsTarget = Field(description="Where the cluster is deployed.")
    failure_domains: FailureDomains = Field(description="Zones, blocks and racks, with their power feeds.")
    fabrics: list[Fabric] = Field(default_factory=no_items, description="Scale-out fabrics pools join.")
    pools: list[Pool] = Field(min_length=1, description="Accelerator pools.")
    storage: list[StorageTier] = Field(default_factory=no_items, description="Storage tiers.")
    power: Power = Field(default_factory=from_defaults(), description="Site power budgets, PUE and cooling.")
    kubernetes: Kubernetes = Field(default_factory=from_defaults(), description="The Kubernetes layer.")
    quotas: Quotas = Field(default_factory=no_entries)
    cost: Cost = Field(default_factory=from_defaults(), description="The account's discounts and the prices railyard's tables lack.")

    def endpoint_runner_cidrs(self) -> tuple[str, ...]:
        """The networks the cluster security group admits to the private API endpoint on 443: the blueprint's
        `private_access_cidrs`, or, when a separate layer stack with no public endpoint leaves them out, the VPC's
        own block (the layer's runner sits in this VPC; docs/endpoint-access.md)."""
        endpoint = self.kubernetes.endpoint
        if "private_access_cidrs" in endpoint.model_fields_set or not endpoint.private:
            return tuple(str(cidr) for cidr in endpoint.private_access_cidrs)
        if self.kubernetes.layer_stack == "separate" and not endpoint.public_access_cidrs:
            return (str(self.cloud.vpc_cidr),)
        return ()
