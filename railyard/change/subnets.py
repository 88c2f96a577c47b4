"""A subnet that moves: replaced with every node group, NAT gateway and file system in it.

A subnet's range can't change in place (`cidrBlock` forces a new subnet), and
EKS can't move a node group or an FSx file system to another subnet, so a
moved subnet takes everything in it down with it. The planner never moves a
pinned subnet (`cloud.subnet_cidrs`); a move in a diff therefore comes either
from a plan with no pins (the old side was never locked) or from a pin the new
blueprint changed on purpose. The first is an error that says how to lock the
deployed layout; the second is a warning that says what goes with it.

A subnet that keeps its range but changes zone (a failure domain moved, under
a pin written before pins recorded their zone) is replaced too, and the
replacement can't be made: Pulumi creates it before deleting the old subnet,
and EC2 refuses a range another subnet of the VPC holds ("A subnet CIDR block
must not overlap the CIDR block of an existing subnet in the VPC", CreateSubnet).
That is an error, `change.subnet-zone-moved`. A pin that records its zone is
refused earlier, by `validate` (`compile.pin-zone-moved`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from blueprints.findings import Finding, error, warning
from railyard.change.compare import ResourceChange
from railyard.change.terraform_source import REPLACE

if TYPE_CHECKING:
    from railyard.pipeline import Validation

SUBNET = "aws:ec2/subnet:Subnet"
NETWORK_INFIX = "-network-"  # components.network names each subnet <network>-<subnet key>
CODES = ("change.subnet-moved", "change.subnet-zone-moved")


def subnet_key(change: ResourceChange) -> str:
    """The planned subnet key a subnet resource was made from (`efa-ultra-use1a`)."""
    return change.name.partition(NETWORK_INFIX)[2] or change.name


def moved_subnets(changes: list[ResourceChange], old: Validation, new: Validation) -> list[Finding]:
    """A finding for each subnet whose range changes: an error unless the new blueprint pins the new range."""
    findings = []
    for change in changes:
        if change.type != SUBNET or change.action != REPLACE or change.old is None or change.new is None:
            continue
        before, after = change.old.inputs.get("cidrBlock"), change.new.inputs.get("cidrBlock")
        if before == after:
            findings += _zone_moved(change, new)
            continue
        key = subnet_key(change)
        blueprint = new.blueprint
        pinned = blueprint is not None and key in blueprint.cloud.subnet_cidrs
        message = f"subnet {key} moves from {before} to {after}: it is replaced, and with it every node group, NAT gateway and file system in it"
        path = ("cloud", "subnet_cidrs", key) if pinned else ("cloud", "vpc_cidr")
        if pinned:
            findings.append(
                new.load.source_map.place(warning("change.subnet-moved", path, message, "the new blueprint pins the new range on purpose"))
            )
            continue
        old_pinned = old.blueprint is not None and bool(old.blueprint.cloud.subnet_cidrs)
        hint = (
            "pin the deployed layout before the change: `railyard lock OLD --write` (a cluster deployed before railyard "
            "pinned subnets: `--layout legacy`), then make the change; docs/day2.md"
            if not old_pinned
            else f"pin {key} at {before} (`railyard lock --write` on the old blueprint pins every deployed subnet)"
        )
        findings.append(new.load.source_map.place(error("change.subnet-moved", path, message, hint)))
    return findings


def _zone_moved(change: ResourceChange, new: Validation) -> list[Finding]:
    """An error when a subnet replaced at its own range moves zone: EC2 refuses the overlapping replacement."""
    assert change.old is not None and change.new is not None
    was, now = change.old.inputs.get("availabilityZone"), change.new.inputs.get("availabilityZone")
    if was == now:
        return []
    key = subnet_key(change)
    message = (
        f"subnet {key} moves from {was} to {now} at the same range {change.new.inputs.get('cidrBlock')}: Pulumi creates the "
        "replacement before deleting the old subnet, and EC2 refuses a range another subnet of the VPC holds, so `pulumi up` stops there"
    )
    hint = (
        f"keep the failure domain in {was}; to use {now}, add a failure domain of its own there, move the pools, then retire the old "
        "one; run `railyard lock --write` on the deployed blueprint first so its pins record their zones"
    )
    return [new.load.source_map.place(error("change.subnet-zone-moved", ("cloud", "subnet_cidrs", key), message, hint))]
