"""Subnets in a Local Zone: the zone group the account opts into, and the route table their traffic leaves by.

A failure domain in a Local Zone (`us-east-1-dfw-2a`) gets its subnets there (the EFA subnet of its fabric,
or a private one), and its node groups with them; the cluster's own subnets, the public subnets and the NAT
gateways stay in `cloud.availability_zones`, since EKS "can't place network interfaces into your Local Zone
subnets" (EKS user guide, local-zones.adoc @c615f00a). Two things follow:

* **The opt-in.** "To use a Local Zone, you must first enable it" (AWS Local Zones User Guide, How Local Zones
  work); AWS enables a zone group, and EC2's ModifyAvailabilityZoneGroup does it (`GroupName`, `OptInStatus:
  opted-in`, botocore's ec2 model). The network states it as an `aws.ec2.AvailabilityZoneGroup` per group, and the
  group's subnets wait for it.
* **The route out.** "Local Zone subnets follow the same routing rules as Availability Zone subnets, including the
  use of route tables" (same guide), so a Local Zone subnet takes the private route table of an Availability
  Zone, whose default route is that zone's NAT gateway: its parent zone's where the blueprint names zones by id
  and lists the parent in `cloud.availability_zones` (the table gives the parent by id), else the first zone's.
  railyard puts no NAT gateway in a Local Zone: which zones offer one is on AWS's Local Zones features page,
  which was not read here (blueprints/catalog/local_zones.yaml), so the egress stays where NAT gateways surely are.
"""

from __future__ import annotations

from collections.abc import Sequence

from blueprints.catalog.local_zones import load_local_zones
from blueprints.models.base import is_local_zone
from topology.cluster.subnets import SubnetPlan


def zone_groups(subnets: Sequence[SubnetPlan]) -> dict[str, str]:
    """The zone group of each Local Zone a subnet is planned in, by zone as written, in subnet order."""
    table = load_local_zones()
    found: dict[str, str] = {}
    for plan in subnets:
        local = table.find(plan.availability_zone) if is_local_zone(plan.availability_zone) else None
        if local is not None:
            found.setdefault(plan.availability_zone, local.group)
    return found


def route_zones(availability_zones: Sequence[str], subnets: Sequence[SubnetPlan]) -> dict[str, str]:
    """For each Local Zone a subnet is planned in, the Availability Zone whose private route table its subnets use."""
    table = load_local_zones()
    routes: dict[str, str] = {}
    for zone in zone_groups(subnets):
        local = table.find(zone)
        routes[zone] = local.parent_zone_id if local is not None and local.parent_zone_id in availability_zones else availability_zones[0]
    return routes
