"""An EFA-enabled FSx for Lustre tier needs clients that can run LNet over EFA.

The FSx for Lustre user guide ("Configuring EFA clients") lists the clients:
instances that support EFA, except the trn2 family; LNet then uses 8 EFA
devices on p5, p5e, p5en, p6-b200 and p6e-gb200, 2 on other instances with
several network cards, 1 with one. railyard sets LNet up on every node of an
EFA pool that mounts such a tier (`components.plan.lustre_efa`). A pool that
can't (no EFA fabric, or trn2) mounts over TCP on its ENA interface, and a
tier none of whose pools can use EFA claims a speed nobody gets.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.catalog import InstanceType
from blueprints.findings import Finding, error, warning
from blueprints.models.pools import Pool
from blueprints.rules.context import Context

CODES = ("fsx.efa-client-over-tcp", "fsx.efa-without-efa-clients")

EIGHT_INTERFACE_FAMILIES = ("p5", "p5e", "p5en", "p6-b200", "p6e-gb200")
UNSUPPORTED_FAMILIES = ("trn2",)


def lnet_interfaces(spec: InstanceType) -> int:
    """How many EFA devices LNet uses on one instance of `spec` (FSx guide)."""
    if spec.name.split(".")[0] in EIGHT_INTERFACE_FAMILIES:
        return 8
    return 2 if len(spec.network_cards) > 1 else 1


def supports_lustre_efa(spec: InstanceType) -> bool:
    """True when the FSx guide lists `spec` among EFA clients: EFA-capable and not trn2."""
    return spec.efa_supported and spec.name.split(".")[0] not in UNSUPPORTED_FAMILIES


def _why_not(pool: Pool, spec: InstanceType, ctx: Context) -> str | None:
    """Why a pool's nodes can't reach an EFA tier over EFA, or None when they can."""
    fabric = ctx.fabrics.get(pool.fabric) if pool.fabric else None
    if fabric is None or fabric.transport != "efa" or not spec.efa_supported:
        return "it has no EFA interfaces (no EFA fabric)"
    if not supports_lustre_efa(spec):
        return f"the FSx for Lustre guide does not list {spec.name.split('.')[0]} among EFA clients"
    return None


def check(ctx: Context) -> Iterable[Finding]:
    """Pools that would mount an EFA tier over TCP; EFA tiers no pool can use over EFA."""
    for index, tier in enumerate(ctx.blueprint.storage):
        if tier.kind not in ("fsx_lustre", "fsx_lustre_class") or not tier.efa:
            continue
        clients, any_over_efa = 0, False
        for pi, pool in enumerate(ctx.blueprint.pools):
            spec = ctx.catalog.get(pool.instance_type)
            if spec is None or not any(use.tier == tier.name for use in pool.storage):
                continue
            clients += 1
            reason = _why_not(pool, spec, ctx)
            if reason is None:
                any_over_efa = True
                continue
            yield warning(
                "fsx.efa-client-over-tcp",
                ("pools", pi, "storage"),
                f"pool '{pool.name}' mounts EFA-enabled FSx tier '{tier.name}', but {reason}, so its nodes mount over TCP at ENA speed",
                "mount the tier from EFA pools only, or accept TCP for this pool",
            )
        if clients and not any_over_efa:
            yield error(
                "fsx.efa-without-efa-clients",
                ("storage", index, "efa"),
                f"FSx tier '{tier.name}' is EFA-enabled, but none of the {clients} pool(s) that mount it can use EFA",
                "set efa: false on the tier, or mount it from a pool on an EFA fabric",
            )
