"""The nodes and instances of each node group against the plan: how many are Ready, what they run on, the
EFA interfaces they launched with, and the devices they advertise."""

from __future__ import annotations

from blueprints.findings import Finding, error, info, warning
from railyard.conform.base import Judge, listed, where
from railyard.conform.observed import Node
from railyard.online.evidence import INSTANCES, NODES, RESERVATIONS
from topology.cluster.node_groups import NodeGroupPlan

CODES = ("conform.node-count", "conform.instance-type", "conform.capacity", "conform.market", "conform.efa-interfaces", "conform.allocatable")
# The InstanceLifecycle DescribeInstances gives an instance of each capacity type (absent: On-Demand).
LIFECYCLE = {"ON_DEMAND": None, "SPOT": "spot", "CAPACITY_BLOCK": "capacity-block"}


def _inactive_reservation(judge: Judge, group: NodeGroupPlan) -> str | None:
    """The state of the group's reservation when the account says it isn't active (nothing can run in it yet)."""
    if group.reservation_id is None:
        return None
    for reservation in (judge.evidence.get(RESERVATIONS) or {}).get("CapacityReservations") or []:
        if reservation.get("CapacityReservationId") == group.reservation_id and reservation.get("State") != "active":
            return str(reservation.get("State"))
    return None


def check_counts(judge: Judge) -> list[Finding]:
    """Ready nodes per node group (a pool in one zone) against the plan's desired size; the instances without a Ready node named."""
    found = judge.not_checked("the node count", [NODES])
    if found:
        return found
    for group in judge.expected.groups:
        path = judge.expected.path(group.pool)
        ready = judge.ready_nodes(group)
        state = _inactive_reservation(judge, group)
        if state is not None:
            found.append(
                info(
                    "conform.node-count", path, f"{where(group)}: its reservation {group.reservation_id} is {state}, so its node count was not judged"
                )
            )
            continue
        # Karpenter launches a pool's nodes as pods ask for them: only a managed group has a size to fall short of.
        if group.managed and len(ready) < group.desired_size:
            found.append(_short(judge, group, ready))
        elif len(ready) > group.max_size:
            found.append(
                warning(
                    "conform.node-count",
                    path,
                    f"{where(group)} has {len(ready)} Ready nodes, above the design's most ({group.max_size})",
                    "someone scaled the node group outside the blueprint; scale it back or raise the pool's nodes",
                    pool=group.pool,
                    node_group=group.name,
                    expected=group.max_size,
                    observed=len(ready),
                )
            )
    return found


def _short(judge: Judge, group: NodeGroupPlan, ready: list[Node]) -> Finding:
    """The error for a node group with fewer Ready nodes than planned, naming its instances without one and its nodes not Ready."""
    joined = {node.instance_id for node in ready}
    unjoined = [item.instance_id for item in judge.group_instances(group) if item.instance_id not in joined]
    not_ready = [node.name for node in judge.nodes.values() if not node.ready and judge.group_of_node(node) == group]
    detail = (f"; instances without a Ready node: {listed(unjoined)}" if unjoined else "") + (
        f"; not Ready: {listed(not_ready)}" if not_ready else ""
    )
    return error(
        "conform.node-count",
        judge.expected.path(group.pool),
        f"{where(group)} has {len(ready)} Ready nodes, the design plans {group.desired_size}{detail}",
        "look at the node group's health and the instances' console output; a Capacity Block may be short of instances",
        pool=group.pool,
        node_group=group.name,
        zone=group.availability_zones[0],
        expected=group.desired_size,
        observed=len(ready),
        instances=sorted(unjoined),
        not_ready=sorted(not_ready),
    )


def check_instances(judge: Judge) -> list[Finding]:
    """Each running instance's type, zone, capacity source and market against its node group's plan."""
    found = judge.not_checked("the instances' type, capacity and market", [INSTANCES])
    if found:
        return found
    for instance, group in judge.running():
        path, name = judge.expected.path(group.pool), f"instance {instance.instance_id} of {where(group)}"
        facts = {"pool": group.pool, "node_group": group.name, "instance": instance.instance_id}
        if instance.instance_type != group.instance_type:
            found.append(
                error("conform.instance-type", path, f"{name} is a {instance.instance_type}, the design says {group.instance_type}", **facts)
            )
        if group.availability_zones[0] not in (instance.zone, instance.zone_id):
            found.append(
                error("conform.instance-type", path, f"{name} runs in {instance.zone}, the design says {group.availability_zones[0]}", **facts)
            )
        allowed = {group.reservation_id} if group.reservation_id else set(group.reservation_members)
        if allowed and instance.reservation_id not in allowed:
            found.append(
                error(
                    "conform.capacity",
                    path,
                    f"{name} runs outside its reservation: it is in {instance.reservation_id or 'no reservation'}, "
                    f"the design names {', '.join(sorted(allowed))}",
                    "the instance is billed outside the block; find who launched it (its launch template) and move it into the reservation",
                    expected=sorted(allowed),
                    observed=instance.reservation_id,
                    **facts,
                )
            )
        lifecycle = LIFECYCLE[group.capacity_type]
        if instance.lifecycle != lifecycle:
            found.append(
                error(
                    "conform.market",
                    path,
                    f"{name} is bought as {instance.lifecycle or 'on-demand'}, the design says {lifecycle or 'on-demand'} ({group.capacity_type})",
                    expected=lifecycle,
                    observed=instance.lifecycle,
                    **facts,
                )
            )
    return found


def check_efa(judge: Judge) -> list[Finding]:
    """Each running instance's EFA interfaces (type and network card) against the launch template's layout."""
    found = judge.not_checked("the EFA interfaces", [INSTANCES])
    if found:
        return found
    for instance, group in judge.running():
        planned = sorted((spec.network_card_index, spec.interface_type) for spec in group.interfaces if spec.is_efa)
        seen = sorted((item.network_card_index, item.interface_type) for item in instance.interfaces if item.interface_type in ("efa", "efa-only"))
        if planned == seen:
            continue
        lacking = sorted(set(planned) - set(seen))
        extra = sorted(set(seen) - set(planned))
        detail = (f"; missing on network cards {', '.join(f'{card} ({kind})' for card, kind in lacking)}" if lacking else "") + (
            f"; unplanned on network cards {', '.join(f'{card} ({kind})' for card, kind in extra)}" if extra else ""
        )
        found.append(
            error(
                "conform.efa-interfaces",
                judge.expected.path(group.pool),
                f"instance {instance.instance_id} of {where(group)} has {len(seen)} EFA interfaces, the launch template gives {len(planned)}{detail}",
                "replace the instance (its interfaces are fixed at launch); if every instance shows it, compare the launch template with the plan",
                pool=group.pool,
                instance=instance.instance_id,
                expected=len(planned),
                observed=len(seen),
                missing_cards=[card for card, _ in lacking],
            )
        )
    return found


def check_allocatable(judge: Judge) -> list[Finding]:
    """Each Ready node's allocatable accelerators and EFA devices against the catalog and the launch template."""
    found = judge.not_checked("the nodes' allocatable devices", [NODES])
    if found:
        return found
    for group in judge.expected.groups:
        wanted = judge.expected.allocatable(group)
        for node in judge.ready_nodes(group):
            for resource, amount in wanted.items():
                observed = node.allocatable.get(resource, "0")
                if str(observed) == str(amount):
                    continue
                found.append(
                    error(
                        "conform.allocatable",
                        judge.expected.path(group.pool),
                        f"node {node.name} ({node.instance_id}) of {where(group)} advertises {resource}={observed}, the design expects {amount}",
                        "a device or its plugin is failing on this node: see the device plugin's pod log there; "
                        "replace the node if the devices are gone",
                        pool=group.pool,
                        node=node.name,
                        resource=resource,
                        expected=amount,
                        observed=str(observed),
                    )
                )
    return found
