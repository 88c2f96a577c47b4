"""The policy pack's verdict before preview: what the shipped pack would refuse, said by `railyard validate`.

The pack (`policies/`) reads resources as the engine sees them, so it runs only after a preview. Most of
its rules guard what the compiler itself decides, which no blueprint can get wrong; seven turn on what the
blueprint says, and a blueprint that `validate` passed used to fail them only at `preview --policies`.
This module answers those seven from the blueprint and its planned node groups, with the pack's own
settings (`policies.config`: its defaults, or the `--policy-config` document a team passes to both
commands), and reports each as a finding whose code is the policy's id, at the blueprint line to change:

| policy | the blueprint says | what the pack sees |
| --- | --- | --- |
| SEC003 | a created FSx tier with a SCRATCH deployment type | `kmsKeyId` missing (scratch can't take a customer key) |
| SEC006 | public endpoint CIDRs not all on the allow-list | `publicAccessCidrs` outside `eksPublicAccessCidrs` |
| GOV001 | a node group's instance type not allowed | `instanceTypes` outside `allowedInstanceTypes` |
| GOV002 | spot capacity for a role not allowed spot | `capacityType: SPOT` with that role label |
| GOV004 | node groups' accelerators at max over the ceiling | the sum over `scalingConfig.maxSize` |
| COR006 | a pool mounting an FSx tier from another zone | the file system's subnet zone against its clients' |

(GOV005, the cost ceiling, is the seventh: its default is the accelerator ceiling's in dollars, so GOV004
reaches first; a team that sets its own ceiling sees GOV005 at `preview --policies`, as docs/policies.md says.)

A mandatory policy gives an error, an advisory one a warning, a disabled one nothing: the same verdict the
pack gives under the same document. `tests/policies/test_preflight.py` holds the two verdicts equal over
every example and the fuzz suite's valid documents. Only the CLI asks (`validate`, and `preview` before it
compiles); the Pulumi program does not, because a team that runs without the pack must not be refused by it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from blueprints.catalog import Catalog
from blueprints.findings import Finding, error, warning
from blueprints.models import Blueprint
from policies.config import (
    ALLOWED_INSTANCE_TYPES,
    EKS_PUBLIC_CIDRS,
    MAX_ACCELERATORS,
    SPOT_ALLOWED_ROLES,
    Knob,
    policy_entry,
)
from topology.cluster.node_groups import NodeGroupPlan

DEFAULT_ENFORCEMENT = "mandatory"
"""Each of these rules' own level in the pack (`tests/policies/test_preflight.py` checks it against the registry)."""

Check = Callable[[Blueprint, Sequence[NodeGroupPlan], Catalog, Callable[[Knob], Any]], Iterable[tuple[tuple[str | int, ...], str]]]


def _scratch_file_systems(blueprint, node_groups, catalog, setting):
    for index, tier in enumerate(blueprint.storage):
        if tier.kind == "fsx_lustre" and tier.existing is None and tier.deployment_type.startswith("SCRATCH"):
            yield (
                ("storage", index, "deployment_type"),
                f"storage tier '{tier.name}' is {tier.deployment_type}; scratch file systems can't be encrypted with a "
                "customer-managed KMS key, which the pack requires",
            )


def _public_endpoint(blueprint, node_groups, catalog, setting):
    endpoint = blueprint.kubernetes.endpoint
    if not endpoint.public_access_cidrs:
        return
    allowed = set(setting(EKS_PUBLIC_CIDRS))
    outside = [str(cidr) for cidr in endpoint.public_access_cidrs if str(cidr) not in allowed]
    if outside:
        listed = sorted(allowed) or "none: public endpoints are refused"
        yield (
            ("kubernetes", "endpoint", "public_access_cidrs"),
            f"the public API endpoint admits {outside}, not on the pack's eksPublicAccessCidrs ({listed})",
        )
    if not endpoint.private:
        yield (("kubernetes", "endpoint", "private"), "the API endpoint is public with private access off; the pack requires private access on")


def _instance_types(blueprint, node_groups, catalog, setting):
    allowed = set(setting(ALLOWED_INSTANCE_TYPES))
    pools = {pool.name: index for index, pool in enumerate(blueprint.pools)}
    seen: set[str] = set()
    for group in node_groups:
        if group.provisioner != "managed_node_group" or group.instance_type in allowed or group.instance_type in seen:
            continue
        seen.add(group.instance_type)
        path = ("kubernetes", "system_nodes", "instance_type") if group.system else ("pools", pools[group.pool], "instance_type")
        yield (path, f"{group.instance_type} is not on the pack's allowedInstanceTypes")


def _spot_roles(blueprint, node_groups, catalog, setting):
    allowed = set(setting(SPOT_ALLOWED_ROLES))
    for index, pool in enumerate(blueprint.pools):
        if pool.capacity.kind == "spot" and pool.role not in allowed:
            yield (("pools", index, "capacity"), f"pool '{pool.name}' ({pool.role}) runs on spot; the pack allows spot for {sorted(allowed)}")


def _accelerator_ceiling(blueprint, node_groups, catalog, setting):
    ceiling = setting(MAX_ACCELERATORS)
    total = sum(group.max_size * spec.accelerator_count for group in node_groups if (spec := catalog.get(group.instance_type)) is not None)
    if total > ceiling:
        yield (("pools",), f"the node groups scale to {total:,} accelerators at their largest, over the pack's maxAcceleratorsPerStack ({ceiling:,})")


def _file_system_zones(blueprint, node_groups, catalog, setting):
    # Where the compiler puts a file system (components.plan.storage): an existing one's own zone, else the zone
    # of the first node group that mounts it. Every other client node group must be in that zone.
    pools = {pool.name: (index, pool) for index, pool in enumerate(blueprint.pools)}
    for tier in blueprint.storage:
        if tier.kind != "fsx_lustre":
            continue
        clients = [group for group in node_groups if group.pool in pools and any(use.tier == tier.name for use in pools[group.pool][1].storage)]
        if not clients:
            continue
        zone = tier.existing.availability_zone if tier.existing is not None else clients[0].availability_zones[0]
        for pool in sorted({group.pool for group in clients if zone not in group.availability_zones}):
            yield (("pools", pools[pool][0], "storage"), f"pool '{pool}' mounts '{tier.name}', a file system in {zone}, from another zone")


# (policy id, the pack's name for it, the check, the fix in blueprint terms)
PREFLIGHT: tuple[tuple[str, str, Check, str], ...] = (
    (
        "SEC003",
        "fsx-encrypted-with-kms",
        _scratch_file_systems,
        "use deployment_type: PERSISTENT_2 (railyard encrypts it with the cluster's KMS key)",
    ),
    (
        "SEC006",
        "eks-endpoint-restricted",
        _public_endpoint,
        "drop public_access_cidrs (a private endpoint, the layer applied from inside the VPC: docs/endpoint-access.md), or "
        "allow-list the CIDRs in the pack's config (eks-endpoint-restricted.eksPublicAccessCidrs) and pass it with --policy-config",
    ),
    ("GOV001", "instance-type-allowed", _instance_types, "pick an allow-listed type, or add it to allowedInstanceTypes in the policy config"),
    ("GOV002", "spot-only-for-allowed-roles", _spot_roles, "use on_demand, a reservation or a Capacity Block, or add the role to spotAllowedRoles"),
    ("GOV004", "accelerator-ceiling", _accelerator_ceiling, "lower the pools' maximum nodes, split the cluster, or raise maxAcceleratorsPerStack"),
    ("COR006", "fsx-in-client-zone", _file_system_zones, "place the pool in the file system's zone, or give that zone's pools a tier of their own"),
)


def preflight(blueprint: Blueprint, node_groups: Sequence[NodeGroupPlan], catalog: Catalog, config: Mapping[str, Any] | None = None) -> list[Finding]:
    """The findings the shipped pack would give under `config` (None: its defaults) for what the blueprint decides."""
    findings = []
    for policy_id, name, check, fix in PREFLIGHT:
        level, properties = policy_entry(config, name)
        level = level or DEFAULT_ENFORCEMENT
        if level == "disabled":
            continue
        report = error if level == "mandatory" else warning

        def setting(knob: Knob, properties: Mapping[str, Any] = properties) -> Any:
            return properties.get(knob.key, knob.default)

        for path, message in check(blueprint, node_groups, catalog, setting):
            findings.append(report(policy_id, path, f"{message} (policy {policy_id} {name}, {level} in the pack)", fix))
    return findings
