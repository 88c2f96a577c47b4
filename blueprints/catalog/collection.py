"""The catalog as a collection: instance types by name, with lookups, "did you mean", provenance and table rows.

The records it holds (`InstanceType` and its parts) are in `blueprints.catalog.model`; `blueprints.catalog` builds one.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from blueprints.catalog.model import InstanceType, plain


def _gib(mib: int) -> str:
    """`81920` -> `80GiB`, `22888` -> `22.4GiB`."""
    gib = mib / 1024
    return f"{gib:.0f}GiB" if gib == int(gib) else f"{gib:.1f}GiB"


class Catalog:
    """Read-only collection of instance types, keyed by name."""

    def __init__(self, instance_types: Mapping[str, InstanceType], provenance: Mapping[str, Any]):
        self._types = MappingProxyType(dict(sorted(instance_types.items())))
        self._provenance = dict(provenance)
        records = self._provenance.get("documented", ())
        names = {name for record in records for name in record.get("instance_types", "").split(", ")}
        self._documented = sorted(names & set(self._types))

    def __len__(self) -> int:
        return len(self._types)

    def __contains__(self, name: object) -> bool:
        return name in self._types

    def get(self, name: str) -> InstanceType | None:
        """The instance type called `name`, or None when it is not in the catalog."""
        return self._types.get(name)

    def names(self) -> list[str]:
        """Every instance type name, sorted."""
        return list(self._types)

    def items(self) -> list[tuple[str, InstanceType]]:
        """Every instance type with its name, sorted by name."""
        return list(self._types.items())

    def closest(self, name: str, n: int = 3) -> list[str]:
        """Up to `n` catalog names that look like `name`, best first (for "did you mean")."""
        return difflib.get_close_matches(name, self.names(), n=n, cutoff=0.5)

    def families(self) -> list[str]:
        """Every family present, sorted."""
        return sorted({instance.family for instance in self._types.values()})

    def in_family(self, family: str) -> list[InstanceType]:
        """The sizes of one family, in name order."""
        return [instance for instance in self._types.values() if instance.family == family]

    @property
    def provenance(self) -> dict[str, Any]:
        """Where the API data came from (source, SHA-256, command, families); a copy."""
        return dict(self._provenance)

    def documented(self) -> list[str]:
        """The types whose entry is assembled from AWS's documentation rather than an API answer (provenance `documented`)."""
        return list(self._documented)

    def as_json(self) -> dict[str, Any]:
        """Deterministic JSON-ready dict of the whole catalog (`railyard catalog --json`)."""
        return {
            "provenance": plain(self._provenance),
            "instance_types": {name: it.as_dict() for name, it in self._types.items()},
        }

    def rows(self) -> list[dict[str, Any]]:
        """One flat dict per instance type for a human table; None marks "none"."""
        return [_row(instance) for instance in self._types.values()]


def _row(instance: InstanceType) -> dict[str, Any]:
    """The table row for one instance type."""
    accelerator = instance.accelerator
    scale_up = instance.scale_up
    return {
        "name": instance.name,
        "accelerators": (f"{accelerator.count}x {accelerator.model} {_gib(accelerator.memory_mib)}" if accelerator else None),
        "vcpus": instance.vcpus,
        "memory_gib": round(instance.memory_mib / 1024, 1),
        "network_cards": len(instance.network_cards),
        "efa_max": instance.max_efa_interfaces,
        "network_gbps": instance.network_gbps,
        "nvme_gb": instance.instance_store.total_gb if instance.instance_store else None,
        "scale_up": (f"{scale_up.kind} x{scale_up.domain_size} {scale_up.bandwidth_gbps_per_accelerator:g} Gbps" if scale_up else None),
        "node_kw": instance.typical_node_kw,
    }
