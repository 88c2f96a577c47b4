"""What a pool's nodes hold, and the figures of replacing them in waves: shared by node-group and Karpenter impacts."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from blueprints.catalog import load_catalog

if TYPE_CHECKING:
    from blueprints.catalog.model import InstanceType
    from railyard.pipeline import Validation


def instance_spec(validation: Validation, pool: str | None) -> InstanceType | None:
    """The catalog entry of a blueprint pool's instance type, or None when the pool or type is unknown."""
    blueprint = validation.blueprint
    entry = next((item for item in (blueprint.pools if blueprint is not None else ()) if item.name == pool), None)
    return load_catalog().get(entry.instance_type) if entry is not None else None


def wave_figures(nodes: int, per_node: int, per_wave: int) -> dict[str, Any]:
    """Nodes and accelerators replaced, per wave and in all, and how many waves that takes."""
    return {
        "nodes": nodes,
        "accelerators": nodes * per_node,
        "node_groups": 1,
        "nodes_per_wave": per_wave,
        "accelerators_per_wave": per_wave * per_node,
        "waves": math.ceil(nodes / per_wave) if nodes and per_wave else 0,
    }
