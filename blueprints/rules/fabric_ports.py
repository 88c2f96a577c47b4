"""Pools must fit their fabric: NIC counts must be whole and the switches must have the ports.

Uses the closed formulas of `blueprints.fabric_math`; the topology checker
builds the real graph and reports the detailed sizing.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.fabric_math import default_rails, fabric_max_endpoints
from blueprints.findings import Finding, error
from blueprints.models.fabrics import AwsEfa, DesignedFabric
from blueprints.rules.context import Context

CODES = ("fabric.fractional-nics", "fabric.rails-mismatch", "fabric.too-few-nics", "fabric.too-small", "fabric.scale-up-size")
_MAX_TIERS = {"rail_optimized_clos": 3, "tor_clos": 3, "rail_only": 2, "fat_tree": 3}


def _scale_up_findings(ctx: Context, fabric: DesignedFabric, fabric_index: int) -> Iterable[Finding]:
    """A declared scale-up domain must split a host evenly or span whole hosts: NVLink and NeuronLink join whole devices."""
    size = fabric.scale_up.domain_size if fabric.scale_up else None
    if size is None:
        return
    for pool in ctx.blueprint.pools:
        spec = ctx.catalog.get(pool.instance_type)
        if pool.fabric != fabric.name or spec is None or not spec.accelerator_count:
            continue
        per_host = spec.accelerator_count
        if per_host % size and size % per_host:
            whole = sorted({divisor for divisor in range(1, per_host + 1) if per_host % divisor == 0} | {per_host * 2, per_host * 4})
            yield error(
                "fabric.scale-up-size",
                ("fabrics", fabric_index, "scale_up", "domain_size"),
                f"a scale-up domain of {size} accelerators is {size / per_host:g} {pool.instance_type} hosts "
                f"({per_host} accelerators each): neither a part of one host nor a whole number of hosts",
                f"use a size that divides {per_host} or is a multiple of it, such as {', '.join(map(str, whole))}",
                pool=pool.name,
                domain_size=size,
                accelerators_per_host=per_host,
            )


def _nic_findings(ctx: Context, fabric: DesignedFabric, fabric_index: int) -> Iterable[Finding]:
    yield from _scale_up_findings(ctx, fabric, fabric_index)
    for pool in ctx.blueprint.pools:
        spec = ctx.catalog.get(pool.instance_type)
        if pool.fabric != fabric.name or spec is None:
            continue
        nics = spec.accelerator_count * fabric.nics_per_accelerator
        where = ("fabrics", fabric_index, "nics_per_accelerator")
        if nics != int(nics) or nics < 1:
            yield error(
                "fabric.fractional-nics",
                where,
                f"{spec.accelerator_count} accelerators x {fabric.nics_per_accelerator} NICs each = {nics:g} "
                f"NICs per {pool.instance_type} host, not a whole number",
                "pick nics_per_accelerator so accelerators x NICs is a whole number (p4d: 0.5, p5: 4)",
            )
            continue
        if fabric.transport == "efa" and spec.efa_supported and nics > spec.max_efa_interfaces:
            yield error(
                "fabric.too-few-nics",
                where,
                f"fabric '{fabric.name}' needs {int(nics)} EFA NICs per host, but {pool.instance_type} has at most {spec.max_efa_interfaces}",
                f"set nics_per_accelerator to {spec.max_efa_interfaces / max(1, spec.accelerator_count):g} or less",
            )
        rails = getattr(fabric, "rails", None)
        if rails is not None and int(nics) % rails:
            yield error(
                "fabric.rails-mismatch",
                ("fabrics", fabric_index, "rails"),
                f"{int(nics)} NICs per {pool.instance_type} host can't be split evenly over {rails} rails",
                f"use a divisor of {int(nics)} such as {default_rails(spec.accelerator_count, int(nics))}",
            )


def _demand(ctx: Context, fabric: DesignedFabric) -> tuple[int, int]:
    """(host ports the pools need on this fabric, their NICs' and in-band or storage ports, and rails); rails from the first pool."""
    ports, rails = 0, 1
    for pool in ctx.blueprint.pools:
        spec = ctx.catalog.get(pool.instance_type)
        if pool.fabric != fabric.name or spec is None:
            continue
        nics = int(spec.accelerator_count * fabric.nics_per_accelerator) or 1
        rails = getattr(fabric, "rails", None) or default_rails(spec.accelerator_count, nics)
        ports += pool.max_nodes * (nics * fabric.ports_per_nic + sum(kind.ports for kind in fabric.host_ports))
    return ports, rails


def check(ctx: Context) -> Iterable[Finding]:
    """Whole NICs per host, rails that divide them, and enough switch ports for every pool's hosts."""
    for fi, fabric in enumerate(ctx.blueprint.fabrics):
        if isinstance(fabric, AwsEfa):
            continue  # AWS sizes its own network: there are no ports to count (topology.provider_fabric says what is known)
        yield from _nic_findings(ctx, fabric, fi)
        ports, rails = _demand(ctx, fabric)
        if not ports:
            continue
        tiers = getattr(fabric, "tiers", None) or _MAX_TIERS[fabric.kind]
        over = fabric.oversubscription
        room = fabric_max_endpoints(fabric.kind, fabric.tier_shapes(tiers), fabric.switch_radix, tiers, fabric.top_planes(tiers), rails)
        if ports > room:
            yield error(
                "fabric.too-small",
                ("fabrics", fi, "switch_radix"),
                f"fabric '{fabric.name}' ({fabric.kind}, radix {fabric.switch_radix}, {tiers} tiers, leaf "
                f"oversubscription {over.leaf:g}) holds at most {room} host ports, but its pools need {ports}",
                "raise switch_radix, add a tier, add a plane, or allow more oversubscription",
                needed_ports=ports,
                available_ports=room,
            )
