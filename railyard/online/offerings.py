"""Instance types offered in each zone, as the account sees them.

Zone names map to different physical zones in different accounts, and AWS
offers a new type in some zones first, so the question is asked of the
account: one DescribeInstanceTypeOfferings call (by zone, filtered to the
design's types) answers it for every node group. Node groups on a reservation
or Capacity Block are left to the reservation check: their capacity, not the
zone's offering, decides where they launch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from blueprints.findings import Finding, Path, error
from blueprints.models import Blueprint
from railyard.online.account import Account, AccountError
from railyard.online.findings import account_finding
from topology.cluster.node_groups import NodeGroupPlan

CODES = ("online.type-not-offered",)


def check_offerings(blueprint: Blueprint, account: Account, node_groups: Sequence[NodeGroupPlan]) -> list[Finding]:
    """An error for each (node group, zone) whose instance type the account isn't offered in that zone."""
    wanted = [group for group in node_groups if not group.targets_reservation]
    types = sorted({group.instance_type for group in wanted})
    if not types:
        return []
    try:
        offered = _offered(account, types, blueprint.cloud.zones_by_id)
    except AccountError as exc:
        return [account_finding(exc, ("pools",), "instance type offerings were not checked")]
    pool_index = {pool.name: index for index, pool in enumerate(blueprint.pools)}
    findings = []
    reported: set[tuple[str, str]] = set()
    for group in wanted:
        for zone in group.availability_zones:
            if zone in offered.get(group.instance_type, set()) or (group.instance_type, zone) in reported:
                continue
            reported.add((group.instance_type, zone))
            findings.append(_not_offered(group, zone, offered.get(group.instance_type, set()), pool_index, account.region))
    return findings


def _offered(account: Account, types: list[str], by_id: bool) -> dict[str, set[str]]:
    """instance type -> the zones that offer it to this account, by name or by id as the blueprint writes them."""
    offered: dict[str, set[str]] = {name: set() for name in types}
    location = "availability-zone-id" if by_id else "availability-zone"
    params: dict[str, Any] = {"LocationType": location, "Filters": [{"Name": "instance-type", "Values": types}]}
    while True:
        answer = account.call("ec2", "DescribeInstanceTypeOfferings", **params)
        for offering in answer.get("InstanceTypeOfferings", []):
            offered.setdefault(offering["InstanceType"], set()).add(offering["Location"])
        token = answer.get("NextToken")
        if not token:
            return offered
        params["NextToken"] = token


def _not_offered(group: NodeGroupPlan, zone: str, zones: set[str], pool_index: dict[str, int], region: str) -> Finding:
    where = f"offered in {', '.join(sorted(zones))}" if zones else f"offered in no zone of {region}"
    if group.system:
        path: Path = ("cloud", "availability_zones")
        subject = f"the system node group's {group.instance_type}"
        hint = "choose availability_zones where it is offered"
    else:
        path = ("pools", pool_index[group.pool], "instance_type")
        subject = f"pool '{group.pool}': {group.instance_type}"
        hint = "place the pool in a zone that offers it, or choose an instance type offered there"
    return error(
        "online.type-not-offered",
        path,
        f"{subject} is not offered in {zone} to this account ({where})",
        hint,
        instance_type=group.instance_type,
        zone=zone,
    )
