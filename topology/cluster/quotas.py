"""The quota plan: every AWS service quota a design needs, against what the account has.

Computed from the cluster plan (the node groups and subnets railyard would
create) and the blueprint's file systems, so it counts exactly what
`pulumi up` would ask for:

* EKS: nodes in the largest managed node group, managed node groups in the
  cluster (the system group included);
* EC2 vCPUs per quota family (P, G and VT, Trn, Inf, Standard) and market:
  on-demand and capacity-reservation nodes count against On-Demand quotas,
  spot against Spot; Capacity Block instances are left out (they are bought
  as reservations, not drawn from the vCPU quotas);
* network interfaces in the Region: every interface the launch templates
  give a node, plus the ones the VPC CNI may attach on network card 0;
* VPCs and Elastic IPs per Region, subnets and IPv4 CIDR blocks per VPC,
  NAT gateways per zone;
* FSx for Lustre storage per deployment family.

`available` is the value the blueprint declares under `quotas:` (what the
account has after an increase), else AWS's default; None where AWS sets the
default per account. A need above what is available is an error naming the
quota, its code, the value needed and the request that raises it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from blueprints.catalog import Catalog
from blueprints.catalog.quotas import (
    LUSTRE_PERSISTENT_2,
    LUSTRE_SCRATCH,
    NETWORK_INTERFACES,
    NODE_GROUPS_PER_CLUSTER,
    NODES_PER_NODE_GROUP,
    SUBNETS_PER_VPC,
    load_quotas,
    vcpu_family,
)
from blueprints.catalog.system_types import load_system_types
from blueprints.findings import Finding, Path, error, info, warning
from blueprints.models import Blueprint
from blueprints.models.storage import FsxLustre
from blueprints.records import record
from topology.cluster.plan import ClusterPlan

CODES = ("quota.exceeded", "quota.per-account", "quota.unknown-code")
IPV4_BLOCKS_PER_VPC = "L-83CA0A9D"
NAT_GATEWAYS_PER_ZONE = "L-FE5A380F"
VPCS_PER_REGION = "L-F678F1CE"
ELASTIC_IPS = "L-0263D0A3"
MARKETS = {"ON_DEMAND": "on_demand", "SPOT": "spot"}


@record
class QuotaNeed:
    """One quota the design needs: how much, why, what the account has, and where in the blueprint it comes from."""

    code: str
    service: str
    name: str
    needed: int
    why: str
    default: int | None
    declared: int | None
    source: str
    path: Path

    @property
    def available(self) -> int | None:
        """What the account has: the declared value, else AWS's default (None: set per account, not declared)."""
        return self.declared if self.declared is not None else self.default

    @property
    def ok(self) -> bool | None:
        """True when the need fits, False when it doesn't, None when the account's value is unknown."""
        return None if self.available is None else self.needed <= self.available

    def as_json(self) -> dict[str, Any]:
        """The `validate --json` `quotas` entry."""
        return {
            "code": self.code,
            "service": self.service,
            "name": self.name,
            "needed": self.needed,
            "why": self.why,
            "default": self.default,
            "declared": self.declared,
            "available": self.available,
            "ok": self.ok,
            "source": self.source,
        }


def _pool_index(blueprint: Blueprint, pool: str) -> Path:
    names = [item.name for item in blueprint.pools]
    return ("pools", names.index(pool), "nodes") if pool in names else ("pools",)


def _counts(blueprint: Blueprint, catalog: Catalog, plan: ClusterPlan) -> Iterable[tuple[str, int, str, Path]]:
    """(code, needed, why, path) for every quota the plan touches."""
    groups = list(plan.node_groups)
    managed = [group for group in groups if group.managed]  # Karpenter's nodes belong to no managed node group
    largest = max(managed, key=lambda group: group.max_size)
    yield (
        NODES_PER_NODE_GROUP,
        largest.max_size,
        f"node group {largest.name} scales to {largest.max_size} nodes",
        _pool_index(blueprint, largest.pool),
    )
    yield (
        NODE_GROUPS_PER_CLUSTER,
        len(managed),
        f"{len(managed)} managed node groups (the system group included)",
        _pool_index(blueprint, managed[-1].pool),
    )
    vcpus: dict[tuple[str, str], tuple[int, str]] = {}
    interfaces = 0
    for group in groups:
        spec = catalog.get(group.instance_type)
        system = load_system_types().get(group.instance_type)
        card_zero = system.card_zero_interfaces if system else 0
        cpus = spec.vcpus if spec else system.vcpus if system else 0
        market = MARKETS.get(group.capacity_type)
        if market is not None:
            key = (vcpu_family(group.instance_type), market)
            total, pool = vcpus.get(key, (0, group.pool))
            vcpus[key] = (total + group.max_size * cpus, pool)
        card_zero = spec.network_cards[0].max_interfaces if spec else card_zero
        on_card_zero = sum(1 for interface in group.interfaces if interface.network_card_index == 0)
        interfaces += group.max_size * (len(group.interfaces) + max(0, card_zero - on_card_zero))
    by_family = {(quota.family, quota.market): code for code, quota in load_quotas().items() if quota.family}
    for (family, market), (total, pool) in sorted(vcpus.items()):
        yield by_family[(family, market)], total, f"{family} {market.replace('_', '-')} nodes at their largest", _pool_index(blueprint, pool)
    yield (NETWORK_INTERFACES, interfaces, "every node's launch-template interfaces, plus those the VPC CNI may attach on card 0", ("pools",))
    if blueprint.cloud.existing_vpc is None:  # an existing VPC's subnets, blocks and gateways are already counted
        yield from _network_counts(blueprint, plan)
    yield from _lustre_counts(blueprint)


def _network_counts(blueprint: Blueprint, plan: ClusterPlan) -> Iterable[tuple[str, int, str, Path]]:
    """The VPC, its subnets, CIDR blocks, NAT gateways and their Elastic IPs, when railyard creates them."""
    yield VPCS_PER_REGION, 1, "the cluster's VPC", ("cloud", "vpc_cidr")
    zones = len(plan.availability_zones)
    yield ELASTIC_IPS, zones, f"one Elastic IP per NAT gateway, one NAT gateway per zone ({zones})", ("cloud", "availability_zones")
    yield SUBNETS_PER_VPC, len(plan.subnets), f"{len(plan.subnets)} subnets", ("cloud", "vpc_cidr")
    blocks = 1 + len(plan.secondary_cidrs) + len(plan.pod_cidrs)
    why = f"the VPC's own CIDR block, {len(plan.secondary_cidrs)} more for nodes and {len(plan.pod_cidrs)} for pods"
    yield IPV4_BLOCKS_PER_VPC, blocks, why, ("cloud", "vpc_cidr")
    yield NAT_GATEWAYS_PER_ZONE, 1, "one NAT gateway per zone", ("cloud", "availability_zones")


def _lustre_counts(blueprint: Blueprint) -> Iterable[tuple[str, int, str, Path]]:
    """FSx for Lustre storage per deployment family, for the file systems railyard creates."""
    for code, family in ((LUSTRE_PERSISTENT_2, "PERSISTENT_2"), (LUSTRE_SCRATCH, "SCRATCH")):
        tiers = [
            (index, tier)
            for index, tier in enumerate(blueprint.storage)
            if isinstance(tier, FsxLustre) and tier.existing is None and tier.deployment_type.startswith(family)
        ]
        if tiers:
            yield (
                code,
                sum(tier.capacity_gib for _, tier in tiers),
                f"{family} file systems' capacity (GiB)",
                ("storage", tiers[0][0], "capacity_gib"),
            )


def quota_plan(blueprint: Blueprint, catalog: Catalog, plan: ClusterPlan) -> list[QuotaNeed]:
    """Every quota the design needs, in a stable order (EKS, EC2, VPC, FSx)."""
    quotas = load_quotas()
    needs = []
    for code, needed, why, path in _counts(blueprint, catalog, plan):
        quota = quotas[code]
        needs.append(
            QuotaNeed(
                code,
                quota.service,
                quota.name,
                needed,
                why,
                quota.default,
                blueprint.quotas.get(code),
                quota.source,
                ("quotas", code) if code in blueprint.quotas else path,
            )
        )
    return needs


def quota_findings(blueprint: Blueprint, needs: list[QuotaNeed]) -> list[Finding]:
    """Needs over what the account has (errors), per-account quotas left undeclared (notes), unknown declared codes."""
    findings = []
    for need in needs:
        command = (
            f"aws service-quotas request-service-quota-increase --service-code {need.service} --quota-code {need.code} --desired-value {need.needed}"
        )
        if need.ok is False:
            has = f"declares {need.declared}" if need.declared is not None else f"has AWS's default of {need.default}"
            findings.append(
                error(
                    "quota.exceeded",
                    need.path,
                    f"{need.name} ({need.code}): the design needs {need.needed} ({need.why}), but the account {has}",
                    f"raise it ({command}), then declare it: quotas: {{{need.code}: {need.needed}}}",
                    quota=need.code,
                    needed=need.needed,
                    available=need.available,
                )
            )
        elif need.ok is None and need.needed:
            findings.append(
                info(
                    "quota.per-account",
                    need.path,
                    f"{need.name} ({need.code}): the design needs {need.needed} ({need.why}); AWS sets this quota per account",
                    f"check it in Service Quotas and declare it (quotas: {{{need.code}: <value>}}) so railyard can "
                    f"hold the design to it; to raise it: {command}",
                    quota=need.code,
                    needed=need.needed,
                )
            )
    known = load_quotas()
    for code in blueprint.quotas:
        if code not in known:
            findings.append(
                warning(
                    "quota.unknown-code",
                    ("quotas", code),
                    f"quota {code} is not one railyard plans (known: {', '.join(sorted(known))})",
                    "check the code in Service Quotas, or remove it",
                )
            )
    return findings
