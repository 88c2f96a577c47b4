"""Lookups rules share: failure domains by name, a pool's zones, tiers and fabrics by name."""

from __future__ import annotations

from functools import cached_property

from blueprints.catalog import Catalog
from blueprints.models import Blueprint
from blueprints.models.domains import Block, Zone
from blueprints.models.fabric_parts import ScaleUp
from blueprints.models.fabrics import AwsEfa, Fabric
from blueprints.models.pools import Pool
from blueprints.models.storage import StorageTier
from blueprints.records import record


@record
class Context:
    """A validated blueprint and the catalog, with indexes built once per run."""

    blueprint: Blueprint
    catalog: Catalog

    @cached_property
    def zones(self) -> dict[str, Zone]:
        """Failure-domain zones by name."""
        return {zone.name: zone for zone in self.blueprint.failure_domains.zones}

    @cached_property
    def blocks(self) -> dict[str, tuple[Zone, Block]]:
        """Blocks by name, with the zone that holds each."""
        return {block.name: (zone, block) for zone in self.blueprint.failure_domains.zones for block in zone.blocks}

    @cached_property
    def fabrics(self) -> dict[str, Fabric]:
        """Fabrics by name."""
        return {fabric.name: fabric for fabric in self.blueprint.fabrics}

    @cached_property
    def tiers(self) -> dict[str, StorageTier]:
        """Storage tiers by name."""
        return {tier.name: tier for tier in self.blueprint.storage}

    def pool_blocks(self, pool: Pool) -> list[tuple[Zone, Block]]:
        """The blocks a pool may use: every block of a named zone (a zone without blocks is one), or the named block."""
        found: list[tuple[Zone, Block]] = []
        for name in pool.placement.domains:
            if name in self.zones:
                found += [(self.zones[name], block) for block in self.zones[name].sites]
            elif name in self.blocks:
                found.append(self.blocks[name])
        unique = {(zone.name, block.name): (zone, block) for zone, block in found}
        return list(unique.values())

    def declared_scale_up(self, pool: Pool) -> ScaleUp | None:
        """The scale-up domain the pool's designed fabric states, if any (AWS's own EFA network states none)."""
        fabric = self.fabrics.get(pool.fabric) if pool.fabric else None
        return fabric.scale_up if fabric is not None and not isinstance(fabric, AwsEfa) else None

    def scale_up_domain(self, pool: Pool) -> tuple[str, int]:
        """(interconnect, hosts) of the pool's scale-up domain: several hosts for an NVL72 rack or a Trn2 UltraServer, else 1.

        A designed fabric's `scale_up.domain_size` decides when it is a whole multiple of the host's accelerators;
        otherwise the catalog's (`instances_per_domain`, from the instance type's UltraServer).
        """
        spec = self.catalog.get(pool.instance_type)
        if spec is None or not spec.accelerator_count:
            return "pcie", 1
        declared = self.declared_scale_up(pool)
        if declared is not None and declared.domain_size is not None:
            size, per_host = declared.domain_size, spec.accelerator_count
            return declared.kind, size // per_host if size > per_host and size % per_host == 0 else 1
        if spec.scale_up is None:
            return "pcie", 1
        return spec.scale_up.kind, spec.scale_up.instances_per_domain

    def pool_zones(self, pool: Pool) -> list[Zone]:
        """The distinct zones a pool is placed in, in blueprint order."""
        names = {zone.name for zone, _ in self.pool_blocks(pool)}
        return [zone for zone in self.blueprint.failure_domains.zones if zone.name in names]
