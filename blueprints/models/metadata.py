"""Who owns a blueprint, and where it is deployed."""

from ipaddress import IPv4Network
from typing import Annotated, Literal, Self

from pydantic import Field, StringConstraints, model_validator

from blueprints.models.base import (
    AvailabilityZone,
    Cidr,
    Model,
    Name,
    check_secondary_blocks,
    from_defaults,
    is_zone_id,
    no_entries,
    no_items,
    violation,
)

TagValue = Annotated[str, StringConstraints(min_length=0, max_length=256)]
# A planned subnet's key: its role, then the zone, fabric domain or node group it serves (`efa-ultra-use1a`).
SubnetKey = Annotated[str, StringConstraints(pattern=r"^(public|private|efa|pods)-[a-z0-9][a-z0-9-]{0,126}$")]

# `railyard explain`: the hint names the region's zones, read when the finding is made.
EXPLAIN = {
    "cloud.zone-outside-region": {"fix": "use zones of the blueprint's region; the hint lists them (moto's zones, blueprints/catalog/regions.py)"},
}


def _region_zones_hint(region: str) -> str:
    """The zones of the blueprint's region, as moto records them (`blueprints/catalog/regions.py`), or their naming form."""
    from blueprints.catalog.regions import load_regions  # the catalog's data, read only when a zone is wrong

    zones = sorted(load_regions().zones.get(region) or ())
    if not zones:
        return f"use zones of {region}, named {region}a, {region}b, ... (railyard's zone table has none listed for it)"
    return f"use zones of {region}: {', '.join(zones)}"


class Metadata(Model):
    """Identity and ownership. Every taggable resource carries these as tags."""

    name: Name = Field(description="The cluster's name; prefixes every resource name.")
    environment: Name = Field(description="The environment this rendering is for (dev, staging, prod, ...).")
    owner: Annotated[str, StringConstraints(min_length=1, max_length=128)] = Field(
        description="The team or person accountable for the cluster (tag `owner`)."
    )
    cost_center: Annotated[str, StringConstraints(min_length=1, max_length=128)] = Field(
        description="The cost center billed for it (tag `cost-center`)."
    )
    tags: dict[Annotated[str, StringConstraints(min_length=1, max_length=128)], TagValue] = Field(
        default_factory=no_entries,
        description="Extra tags put on every taggable resource, after owner, cost-center and environment.",
    )


# The retention periods CloudWatch Logs accepts (botocore logs PutRetentionPolicy `Days` documentation).
RETENTION_DAYS = Literal[1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653]


class FlowLogs(Model):
    """The VPC flow log: every accepted and rejected flow, to a CloudWatch Logs group of the cluster's."""

    enabled: bool = Field(True, description="Record the VPC's traffic (the policy pack's SEC019 refuses a VPC without a flow log).")
    retention_days: RETENTION_DAYS = Field(365, description="Days CloudWatch Logs keeps the records (one of the periods it accepts).")


class ExistingSubnet(Model):
    """A private subnet of an existing VPC that railyard places nodes in."""

    id: Annotated[str, StringConstraints(pattern=r"^subnet-[0-9a-f]{8,17}$")] = Field(
        description="The subnet's id, such as subnet-0123456789abcdef0."
    )
    availability_zone: AvailabilityZone = Field(description="The subnet's zone; one of cloud.availability_zones.")
    cidr: Cidr = Field(description="The subnet's IPv4 block (railyard checks its nodes' addresses fit in it).")


class ExistingVpc(Model):
    """A VPC a team already has: railyard creates no VPC, subnet, gateway, route or flow log, and places nodes in its subnets.

    Egress (NAT or proxy), DNS, the S3 endpoint and flow logs are the VPC owner's; nodes need to reach
    EKS, ECR and S3 from these subnets.
    """

    id: Annotated[str, StringConstraints(pattern=r"^vpc-[0-9a-f]{8,17}$")] = Field(description="The VPC's id, such as vpc-0123456789abcdef0.")
    subnets: list[ExistingSubnet] = Field(
        min_length=2, description="One private subnet per zone of cloud.availability_zones; every node group of a zone uses it."
    )


class SubnetPin(Model):
    """A pinned subnet: its range, and the zone it was deployed in (`railyard lock` writes both)."""

    cidr: Cidr = Field(description="The subnet's IPv4 range, as deployed.")
    availability_zone: AvailabilityZone = Field(
        description="The zone the subnet was deployed in: a pin whose failure domain has moved to another zone is refused "
        "(`compile.pin-zone-moved`), since EC2 can't hold the replacement at the same range beside the old subnet."
    )


class AwsTarget(Model):
    """Where the cluster lives on AWS: a region, its zones and the VPC address space."""

    kind: Literal["aws"] = Field(description="The cloud provider. Only `aws` today.")
    region: Annotated[str, StringConstraints(pattern=r"^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]$")] = Field(
        description="The AWS region, such as us-east-1."
    )
    availability_zones: list[AvailabilityZone] = Field(
        min_length=2,
        description="Zones the VPC spans. EKS needs subnets in at least two, even when all nodes sit in one.",
    )
    vpc_cidr: Cidr = Field(description="The VPC's IPv4 block, /16 to /24; node subnets are carved from it.")
    secondary_cidrs: list[Cidr] = Field(
        default_factory=no_items,
        max_length=49,
        description="More IPv4 blocks for the VPC (/16 to /28 each; 100.64.0.0/10 is the usual choice): node subnets the "
        "primary block can't hold are carved from them, largest first.",
    )
    flow_logs: FlowLogs = Field(default_factory=from_defaults(), description="The VPC flow log (on by default, kept a year).")
    existing_vpc: ExistingVpc | None = Field(
        default=None, description="Use a VPC and subnets that already exist (vpc_cidr is then that VPC's block); none = railyard creates the VPC."
    )
    subnet_cidrs: dict[SubnetKey, Cidr | SubnetPin] = Field(
        default_factory=no_entries,
        description="Pinned subnets by subnet key (`private-us-east-1a`, `efa-ultra-use1a`, `pods-train-use1a`): each a range and the "
        "zone it was deployed in (`{cidr: 10.0.0.0/17, availability_zone: us-east-1a}`), or a range alone (written before pins "
        "knew their zone; still read). A pinned subnet keeps its range whatever else changes, so growth never re-carves a "
        "deployed VPC. `railyard lock` writes the plan's layout here; subnets not listed take free space around the pinned "
        "ones (docs/day2.md).",
    )
    protect_stateful: bool = Field(
        default=True,
        description="Pulumi's `protect` on what holds data or keys: the EKS cluster, FSx file systems, S3 buckets and KMS keys "
        "railyard creates. `pulumi destroy` and a replacing change then stop instead of deleting them; false for "
        "throwaway environments.",
    )

    def _check_pins(self) -> None:
        """A pinned range is a subnet AWS allows (/16 to /28), and only a VPC railyard creates has subnets to pin."""
        if self.subnet_cidrs and self.existing_vpc is not None:
            raise violation(
                "cloud.pins-existing-vpc",
                "subnet_cidrs pins the subnets railyard carves, but existing_vpc places the nodes in subnets the team already has",
                "drop subnet_cidrs: an existing VPC's subnets are listed under existing_vpc.subnets",
                field="subnet_cidrs",
            )
        for key, cidr in self.pinned_ranges.items():
            if not 16 <= cidr.prefixlen <= 28:
                raise violation(
                    "cloud.subnet-pin-size",
                    f"subnet '{key}' is pinned at {cidr}, a /{cidr.prefixlen}; a subnet is /16 to /28 (Amazon VPC User Guide, subnet sizing)",
                    "pin the range the subnet has: `railyard lock` writes the plan's ranges",
                    field=f"subnet_cidrs.{key}",
                )

    @property
    def pinned_ranges(self) -> dict[str, IPv4Network]:
        """Each pinned subnet's range, by subnet key (either form of pin)."""
        return {key: pin.cidr if isinstance(pin, SubnetPin) else pin for key, pin in self.subnet_cidrs.items()}

    @property
    def pinned_zones(self) -> dict[str, str]:
        """The zone each pin records, by subnet key; a pin written as a range alone records none."""
        return {key: pin.availability_zone for key, pin in self.subnet_cidrs.items() if isinstance(pin, SubnetPin)}

    @property
    def zones_by_id(self) -> bool:
        """True when the blueprint names zones by id (`use1-az4`) rather than by name (one form throughout)."""
        return is_zone_id(self.availability_zones[0])

    @model_validator(mode="after")
    def _zones_belong_to_region(self) -> Self:
        for index, zone in enumerate(self.availability_zones):
            if is_zone_id(zone):
                continue  # an id's region is checked against the region's zone ids (blueprints/rules/regions.py)
            if not zone.startswith(self.region) or len(zone) != len(self.region) + 1:
                raise violation(
                    "cloud.zone-outside-region",
                    f"availability zone '{zone}' is not in region '{self.region}'",
                    _region_zones_hint(self.region),
                    field=f"availability_zones.{index}",
                )
        if len(set(self.availability_zones)) != len(self.availability_zones):
            raise violation(
                "cloud.duplicate-zone",
                f"availability_zones lists a zone twice: {self.availability_zones}",
                "list each zone once",
                field="availability_zones",
            )
        check_secondary_blocks(self.secondary_cidrs, "cloud.vpc-cidr-size", "secondary CIDR", "secondary_cidrs")
        self._check_pins()
        if not 16 <= self.vpc_cidr.prefixlen <= 24:
            raise violation(
                "cloud.vpc-cidr-size",
                f"vpc_cidr {self.vpc_cidr} has prefix /{self.vpc_cidr.prefixlen}; AWS allows /16 to /28 and "
                "railyard needs room for one subnet per zone and per EFA domain (/16 to /24)",
                "use a /16 such as 10.0.0.0/16",
                field="vpc_cidr",
            )
        return self
