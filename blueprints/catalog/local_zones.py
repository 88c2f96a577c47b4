"""The AWS Local Zones a failure domain may be placed in (`local_zones.yaml`), each with its zone group and parent.

A Local Zone is an extension of a region: a subnet there extends the VPC, instances and EBS volumes live
there, and the EKS control plane stays in the region's Availability Zones. The table holds each zone's
name and id, the zone group an account opts into, and its parent region and zone, as AWS's "Available
Local Zones" page lists them; the file says where each part was read and what was not (docs/catalog.md).
moto and botocore ship no Local Zones, so this is the one hand-typed zone table.
"""

from __future__ import annotations

import functools
from pathlib import Path

from blueprints.records import record
from blueprints.source import load_data

TABLE = Path(__file__).resolve().parent / "local_zones.yaml"


@record
class LocalZone:
    """One Local Zone: name (`us-east-1-dfw-2a`), id (`use1-dfw2-az1`), zone group, parent region and parent zone id."""

    name: str
    zone_id: str
    group: str
    parent_region: str
    parent_zone_id: str
    # The EBS volume types AWS's Local Zones features page lists for the zone; None where the table hasn't read it.
    ebs_volume_types: tuple[str, ...] | None = None
    # Whether that page lists NAT gateways in the zone; None where the table hasn't read it.
    nat_gateway: bool | None = None


@record
class LocalZones:
    """The Local Zones railyard knows, and what the EKS user guide says EKS supports in one."""

    zones: tuple[LocalZone, ...]
    eks_supported: tuple[str, ...]
    source: str

    def find(self, zone: str) -> LocalZone | None:
        """The Local Zone written as `zone` (its name or its id); None when the table has no such zone."""
        return next((local for local in self.zones if zone in (local.name, local.zone_id)), None)

    def canonical(self, zone: str) -> str:
        """A Local Zone by its name whichever form it is written in; any other zone as written."""
        local = self.find(zone)
        return local.name if local is not None else zone

    def in_region(self, region: str) -> list[LocalZone]:
        """The Local Zones whose parent is `region`, in table order."""
        return [local for local in self.zones if local.parent_region == region]


@functools.cache
def load_local_zones() -> LocalZones:
    """The committed table (read once per process)."""
    data = load_data(TABLE.read_text("utf-8"))
    zones = tuple(
        LocalZone(
            row["name"],
            row["id"],
            row["group"],
            row["parent_region"],
            row["parent_zone_id"],
            tuple(row["ebs_volume_types"]) if row.get("ebs_volume_types") is not None else None,
            row.get("nat_gateway"),
        )
        for row in data["zones"]
    )
    return LocalZones(zones, tuple(data["eks"]["supported"]), data["source"])
