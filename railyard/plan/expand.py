"""Needs into what to search for: instance types from the catalog, nodes per type, and the block duration.

Pure: a needs model and the catalog in, `TypeNeed`s and the reasons others were left out. A type is a
candidate when it is sold as Capacity Blocks and meets every need: its accelerator kind (or it is named),
memory per accelerator, scale-out bandwidth per accelerator (the type's network Gbps over its
accelerators, both from DescribeInstanceTypes), and a scale-up domain at least the size asked. Nodes are
⌈count ÷ accelerators per node⌉; where the domain spans hosts (an UltraServer), whole UltraServers.
"""

from __future__ import annotations

import math

from blueprints.catalog import Catalog
from blueprints.catalog.model import InstanceType
from blueprints.models.capacity import CAPACITY_BLOCK_MAX_DAYS, CAPACITY_BLOCK_MAX_INSTANCES
from blueprints.models.needs import Needs
from blueprints.records import record

# The UltraServer type DescribeCapacityBlockOfferings' UltraserverType takes for each instance type sold as UltraServers:
# the EKS user guide's ml-eks-nvidia-ultraserver (awsdocs/amazon-eks-user-guide@00e3293d: "the `u-p6e-gb200x72`
# UltraServer has 18 `p6e-gb200.36xlarge` instances") and aws-neuron-sdk trn2-arch.rst (2086a70a: "u-trn2x64 = four
# 16-device Trn2 instances"); the instances of one come from the catalog's scale-up domain.
ULTRASERVER_TYPES = {"p6e-gb200.36xlarge": "u-p6e-gb200x72", "trn2u.48xlarge": "u-trn2x64"}


@record
class TypeNeed:
    """One instance type to search: how many nodes the job needs of it, and in what unit they are sold."""

    instance_type: str
    accelerators_per_node: int
    nodes: int
    ultraserver_type: str | None = None
    instances_per_ultraserver: int = 1

    @property
    def ultraservers(self) -> int:
        """Whole UltraServers the nodes fill (0 for a type not sold as UltraServers)."""
        return self.nodes // self.instances_per_ultraserver if self.ultraserver_type else 0

    def queries(self) -> tuple[dict[str, str | int], ...]:
        """What to ask DescribeCapacityBlockOfferings for: blocks of 64 and the remainder; UltraServers all at once and one at a time.

        InstanceType goes with every query: botocore 1.44.5's model says "Either this or the legacy InstanceType parameter
        is required" (of InstanceTypePreferences), and UltraServers are asked by UltraserverType and UltraserverCount.
        """
        if self.ultraserver_type:
            counts = sorted({self.ultraservers, 1}, reverse=True)
            return tuple(
                {"InstanceType": self.instance_type, "UltraserverType": self.ultraserver_type, "UltraserverCount": count} for count in counts
            )
        whole, rest = divmod(self.nodes, CAPACITY_BLOCK_MAX_INSTANCES)
        sizes = ({CAPACITY_BLOCK_MAX_INSTANCES} if whole else set()) | ({rest} if rest else set())
        return tuple({"InstanceType": self.instance_type, "InstanceCount": size} for size in sorted(sizes, reverse=True))


@record
class Expansion:
    """What to search: the types and their nodes, the block duration, and why each other type was left out."""

    types: tuple[TypeNeed, ...]
    hours: int
    left_out: tuple[tuple[str, str, str], ...]  # (instance type, code, why)
    notes: tuple[str, ...]
    infeasible: tuple[tuple[str, str], ...]


def legal_days(days: int) -> int:
    """The shortest Capacity Block duration of at least `days`: 1 to 14 days in 1-day steps, then 7-day steps to 182."""
    return days if days <= 14 else min(CAPACITY_BLOCK_MAX_DAYS, math.ceil(days / 7) * 7)


def _why_not(spec: InstanceType, needs: Needs) -> str | None:
    """Why a type can't serve the needs, or None when it can."""
    accelerator = spec.accelerator
    wanted = needs.accelerators
    if accelerator is None or not spec.supports_capacity_blocks:
        return "not sold as Capacity Blocks for ML"
    if wanted.instance_types and spec.name not in wanted.instance_types:
        return "not in accelerators.instance_types"
    if wanted.kinds and accelerator.model.lower() not in wanted.kinds:
        return f"its accelerator {accelerator.model} is not in accelerators.kinds"
    memory = accelerator.memory_mib / 1024
    if wanted.min_memory_gib is not None and memory < wanted.min_memory_gib:
        return f"{memory:g} GiB per {accelerator.model} < min_memory_gib {wanted.min_memory_gib:g}"
    per_accelerator = spec.network_gbps / accelerator.count
    floor = needs.interconnect.min_network_gbps_per_accelerator
    if floor is not None and per_accelerator < floor:
        return f"{per_accelerator:g} Gbps per accelerator < min_network_gbps_per_accelerator {floor:g}"
    domain = spec.scale_up.domain_size if spec.scale_up else 1
    if needs.interconnect.scale_up_accelerators is not None and domain < needs.interconnect.scale_up_accelerators:
        return f"its scale-up domain holds {domain} accelerators < scale_up_accelerators {needs.interconnect.scale_up_accelerators}"
    return None


def type_need(spec: InstanceType, count: int) -> TypeNeed:
    """The nodes of `spec` that hold `count` accelerators: ⌈count ÷ per node⌉, rounded up to whole UltraServers."""
    per_node = spec.accelerator_count
    nodes = math.ceil(count / per_node)
    ultraserver = ULTRASERVER_TYPES.get(spec.name)
    per_server = spec.scale_up.instances_per_domain if spec.scale_up and ultraserver else 1
    if ultraserver:
        nodes = math.ceil(nodes / per_server) * per_server
    return TypeNeed(spec.name, per_node, nodes, ultraserver, per_server)


def expand(needs: Needs, catalog: Catalog) -> Expansion:
    """The types to search, the block duration in hours, and what was left out or can't be met (with why)."""
    types, left_out, infeasible = [], [], []
    unknown = sorted(set(needs.accelerators.instance_types) - set(catalog.names()))
    for name in unknown:
        left_out.append((name, "plan.excluded", "not in railyard's catalog (`railyard catalog` lists the types)"))
    for name in sorted(catalog.names()):
        spec = catalog.get(name)
        if spec is None or spec.accelerator is None:
            continue
        why = _why_not(spec, needs)
        if why is not None:
            if (needs.accelerators.kinds and spec.accelerator.model.lower() in needs.accelerators.kinds) or name in needs.accelerators.instance_types:
                left_out.append((name, "plan.excluded", why))
            continue
        need = type_need(spec, needs.accelerators.count)
        if need.nodes > needs.block_instance_limit:
            left_out.append(
                (
                    name,
                    "plan.instance-limit",
                    f"{need.nodes} nodes exceed the {needs.block_instance_limit} instances an account may hold across Capacity Blocks",
                )
            )
            continue
        types.append(need)
    days = legal_days(needs.window.duration_days)
    notes = []
    if days != needs.window.duration_days:
        notes.append(f"plan.duration-rounded: {needs.window.duration_days} days is not a Capacity Block duration; searched {days} days")
    window_days = (needs.window.latest_end - needs.window.earliest_start).days + 1
    if window_days < days:
        infeasible.append(("plan.infeasible", f"the window holds {window_days} days, shorter than the {days}-day block the job needs"))
    if not types:
        reasons = "; ".join(f"{name}: {why}" for name, _, why in left_out) or "no type in the catalog matches accelerators.kinds"
        infeasible.append(("plan.infeasible", f"no instance type meets the needs ({reasons})"))
    return Expansion(tuple(types), days * 24, tuple(left_out), tuple(notes), tuple(infeasible))
