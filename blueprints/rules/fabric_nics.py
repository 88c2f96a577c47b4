"""A fabric that wires fewer EFA interfaces than its hosts have leaves scale-out bandwidth idle.

railyard gives each node as many EFA interfaces as the fabric declares
(`nics_per_accelerator` x accelerators), so a p5.48xlarge on a fabric of 2 NICs
per GPU gets 16 of its 32 EFA-capable network cards: half the bandwidth a
collective could use, paid for. The type's count is the EFA devices its full
layout gives (`InstanceType.efa_devices`): 4 on p6e-gb200, whose 16 EFA cards
share four GPUs' 400 Gbps each. Sometimes that is the design (a fabric with
fewer ports), so it is a warning (ParallelCluster warns the same way when a
queue uses fewer network cards than the type has).
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, warning
from blueprints.models.fabrics import AwsEfa
from blueprints.rules.context import Context

CODES = ("fabric.unused-nics",)


def check(ctx: Context) -> Iterable[Finding]:
    """A warning per (fabric, instance type) that wires fewer EFA interfaces than the type offers."""
    for fabric_index, fabric in enumerate(ctx.blueprint.fabrics):
        if isinstance(fabric, AwsEfa) or fabric.transport != "efa":
            continue  # AWS's network gives every node all the EFA interfaces its type has
        said: set[str] = set()
        for pool in ctx.blueprint.pools:
            spec = ctx.catalog.get(pool.instance_type)
            if pool.fabric != fabric.name or spec is None or not spec.efa_supported or pool.instance_type in said:
                continue
            nics = spec.accelerator_count * fabric.nics_per_accelerator
            if nics != int(nics) or not 1 <= nics < spec.efa_devices:
                continue  # fractional or too many: fabric_ports reports those
            said.add(pool.instance_type)
            whole = spec.efa_devices / max(1, spec.accelerator_count)
            yield warning(
                "fabric.unused-nics",
                ("fabrics", fabric_index, "nics_per_accelerator"),
                f"fabric '{fabric.name}' gives each {pool.instance_type} node {int(nics)} EFA interfaces, "
                f"but the type has {spec.efa_devices}: {spec.efa_devices - int(nics)} stay idle",
                f"set nics_per_accelerator to {whole:g} if the fabric has the ports for them",
                pool=pool.name,
                wired=int(nics),
                available=spec.efa_devices,
            )
