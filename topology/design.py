"""The design graph of a blueprint: placement, facility graph, one merged graph per fabric, and the storage network.

`build_design` is the one place that turns a validated blueprint into graphs;
every check reads them and none modifies them. Problems found while building
(hosts without a rack, a misaligned pool, a fabric whose planes can't split)
are kept as findings, and what they concern is left out of the graphs, so the
checks that need it are skipped instead of crashing.
"""

from __future__ import annotations

from dataclasses import field

from blueprints.catalog import Catalog
from blueprints.findings import Finding
from blueprints.models import Blueprint
from blueprints.models.pools import Pool
from blueprints.records import record
from topology.fabric import FabricGraph, build_fabric_graph
from topology.facility import FacilityGraph, build_facility
from topology.layout import FabricPlan, plan_fabric
from topology.placement import Placement, place_pools
from topology.pool_graphs import PoolGraphs
from topology.storage import StorageGraph, storage_network

__all__ = ["Design", "FabricDesign", "build_design"]


@record
class FabricDesign:
    """One fabric: its sizing plan, its merged graph, the (index, pool) pairs on it, and each pool's part of the graph."""

    plan: FabricPlan
    graph: FabricGraph
    pools: tuple[tuple[int, Pool], ...]
    parts: PoolGraphs

    @property
    def index(self) -> int:
        """The fabric's index in `blueprint.fabrics`."""
        return self.plan.index


@record(frozen=False)
class Design:
    """Everything the checks read: the blueprint, the placement and the graphs built from them."""

    blueprint: Blueprint
    catalog: Catalog
    placement: Placement
    facility: FacilityGraph
    fabrics: list[FabricDesign]
    storage: StorageGraph
    findings: list[Finding] = field(default_factory=list)
    _fabric_of: dict[int, FabricDesign] | None = field(default=None, repr=False, compare=False)

    def accelerators_per_host(self, pool_index: int) -> int:
        """Accelerators on one host of a pool (0 for an unknown instance type)."""
        spec = self.catalog.get(self.blueprint.pools[pool_index].instance_type)
        return spec.accelerator_count if spec else 0

    def fabric_of(self, pool_index: int) -> FabricDesign | None:
        """The fabric a pool is on, when that fabric was built and the pool is part of it."""
        if self._fabric_of is None:
            self._fabric_of = {index: fabric for fabric in reversed(self.fabrics) for index, _ in fabric.pools}
        return self._fabric_of.get(pool_index)


def build_design(blueprint: Blueprint, catalog: Catalog) -> Design:
    """Place the pools and build the facility graph, every fabric's graph and the storage network."""
    placement = place_pools(blueprint, catalog)
    findings = list(placement.findings)
    fabrics: list[FabricDesign] = []
    for index in range(len(blueprint.fabrics)):
        plan, problems = plan_fabric(blueprint, catalog, placement, index)
        findings += problems
        if plan is not None:
            pools = tuple((pool_index, blueprint.pools[pool_index]) for pool_index in sorted(plan.shapes))
            graph = build_fabric_graph(plan)
            fabrics.append(FabricDesign(plan, graph, pools, PoolGraphs(graph)))
    facility = build_facility(blueprint, catalog, placement)
    return Design(blueprint, catalog, placement, facility, fabrics, storage_network(blueprint, catalog, placement), findings)
