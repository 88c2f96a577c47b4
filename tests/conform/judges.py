"""Judges built in memory, for conform's unit tests: an example's expectation planned once, its node groups
resized to a handful of nodes, and evidence documents in the shapes the AWS CLI and kubectl print, typed here.

A test states the whole cluster it judges (two or three instances and nodes) instead of changing a recorded
folder of 64, so it runs in milliseconds and every value its assertions hold is in the test. The expectation
itself is the planner's (`topology.cluster.plan_cluster` on an example), never a hand-made one.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any

from blueprints.catalog import load_catalog
from railyard.conform.base import Judge
from railyard.conform.expected import Expectation, expect
from railyard.online.evidence import INSTANCES, NODES, Evidence
from railyard.pipeline import validate
from topology.cluster import plan_cluster
from topology.cluster.node_groups import NodeGroupPlan

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
FOLDER = "evidence"


@functools.cache
def planned(blueprint: str) -> Expectation:
    """The expectation of an example blueprint's plan, as `railyard conform` builds it."""
    validation = validate(str(EXAMPLES / blueprint))
    assert validation.blueprint is not None and validation.ok, validation.findings
    catalog = load_catalog()
    return expect(validation.blueprint, catalog, plan_cluster(validation.blueprint, catalog))


def with_groups(expected: Expectation, *groups: NodeGroupPlan) -> Expectation:
    """The expectation with these node groups in place of the plan's."""
    return dataclasses.replace(expected, plan=dataclasses.replace(expected.plan, node_groups=groups))


def resized(group: NodeGroupPlan, **changes: Any) -> NodeGroupPlan:
    """A planned node group with some of its fields changed (its size, mostly)."""
    return dataclasses.replace(group, **changes)


def interface(card: int, kind: str, device: int = 0) -> dict[str, Any]:
    """One of DescribeInstances' NetworkInterfaces."""
    return {"InterfaceType": kind, "Attachment": {"DeviceIndex": device, "NetworkCardIndex": card, "Status": "attached"}}


def instance(
    instance_id: str,
    group: NodeGroupPlan,
    *,
    instance_type: str | None = None,
    zone: tuple[str, str] = ("us-east-1a", "use1-az4"),
    state: str = "running",
    lifecycle: str | None = None,
    reservation: str | None = None,
    interfaces: list[dict[str, Any]] | None = None,
    tagged: bool = True,
) -> dict[str, Any]:
    """One instance of DescribeInstances, of `group` (its `eks:nodegroup-name` tag unless `tagged` is False)."""
    found: dict[str, Any] = {
        "InstanceId": instance_id,
        "InstanceType": instance_type or group.instance_type,
        "Placement": {"AvailabilityZone": zone[0], "AvailabilityZoneId": zone[1]},
        "State": {"Name": state},
        "NetworkInterfaces": interfaces if interfaces is not None else [interface(0, "interface")],
        "Tags": [{"Key": "eks:nodegroup-name", "Value": group.name}] if tagged else [],
    }
    if lifecycle is not None:
        found["InstanceLifecycle"] = lifecycle
    if reservation is not None:
        found["CapacityReservationId"] = reservation
    return found


def node(
    name: str,
    instance_id: str | None,
    group: NodeGroupPlan | None,
    *,
    ready: bool = True,
    allocatable: dict[str, str] | None = None,
    labels: dict[str, str] | None = None,
    taints: tuple[str, ...] = (),
) -> dict[str, Any]:
    """One node of `kubectl get nodes -o json`, labelled with its EKS node group (none when `group` is None)."""
    found_labels = {"eks.amazonaws.com/nodegroup": group.name} if group is not None else {}
    found_labels.update(labels or {})
    spec: dict[str, Any] = {"taints": [{"key": key, "effect": "NoSchedule"} for key in taints]}
    if instance_id is not None:
        spec["providerID"] = f"aws:///us-east-1a/{instance_id}"
    return {
        "metadata": {"name": name, "labels": found_labels},
        "spec": spec,
        "status": {"allocatable": dict(allocatable or {}), "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }


def judge(expected: Expectation, documents: dict[str, dict[str, Any]]) -> Judge:
    """A judge of `documents` (file name -> document) against `expected`."""
    return Judge(expected, Evidence(FOLDER, documents))


def fleet(instances: list[dict[str, Any]], nodes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The two documents most checks read: DescribeInstances' and the node list's."""
    return {INSTANCES: {"Reservations": [{"Instances": instances}]}, NODES: {"items": nodes}}


def topology(*placed: tuple[str, list[str], str | None]) -> dict[str, Any]:
    """DescribeInstanceTopology's answer: (instance id, network nodes top layer first, CapacityBlockId or None) each."""
    instances = []
    for instance_id, network_nodes, block in placed:
        item: dict[str, Any] = {"InstanceId": instance_id, "NetworkNodes": network_nodes}
        if block is not None:
            item["CapacityBlockId"] = block
        instances.append(item)
    return {"Instances": instances}


NOT_CHECKED_HINT = "record the folder again with `railyard conform --record DIR` (docs/conform.md lists each file and the command that prints it)"


def finding_json(code: str, severity: str, path: str, message: str, hint: str = "", **certificate: Any) -> dict[str, Any]:
    """A finding as `Finding.as_json` gives it, not yet placed at a line."""
    found = {"code": code, "severity": severity, "path": path, "file": None, "line": None, "column": None, "message": message, "hint": hint}
    if certificate:
        found["certificate"] = certificate
    return found


def not_checked_json(what: str, path: str, *files: str) -> dict[str, Any]:
    """The `conform.not-checked` error of a check lacking `files` in the folder FOLDER (each missing)."""
    missing = "; ".join(f"{name} is missing" for name in files)
    return finding_json(
        "conform.not-checked", "error", path, f"could not check {what}: {missing} in {FOLDER}", NOT_CHECKED_HINT, check=what, files=list(files)
    )
