"""COR007: an FSx file system's throughput covers the demand its pools declare.

FSx for Lustre delivers storage capacity (TiB) x throughput per TiB
(aws-facts.md 3.2): `storageCapacity` GiB / 1024 x `perUnitStorageThroughput`
MB/s/TiB for persistent types, about 200 MB/s/TiB baseline for scratch. The
demand - the sum of every client pool's reads and checkpoint writes, as the
topology checker computes it from the blueprint - reaches the pack through
the compiler's tag `railyard:demand-mbps` (MB/s). Without the tag the file
system declares no demand and the rule does not apply. Advisory: a slow file
system stalls training but breaks nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from policies.resource_types import LUSTRE
from policies.rule import NotApplicable, ResourceRule
from policies.stack import number, value

DEMAND_TAG = "railyard:demand-mbps"
SCRATCH_MBPS_PER_TIB = 200.0
CAPACITY_STEP_GIB = 2400


def throughput_mbps(props: Mapping[str, Any]) -> tuple[float, float, float]:
    """(aggregate MB/s, capacity GiB, MB/s per TiB) of a Lustre file system's props."""
    capacity = number(value(props, "storageCapacity")) or 0.0
    per_tib = number(value(props, "perUnitStorageThroughput"))
    if per_tib is None and str(value(props, "deploymentType", "SCRATCH_1")).startswith("SCRATCH"):
        per_tib = SCRATCH_MBPS_PER_TIB
    return capacity / 1024 * (per_tib or 0.0), capacity, per_tib or 0.0


def check(props: Mapping[str, Any], settings) -> Iterable[str]:
    """The file system's throughput against its declared demand."""
    declared = value(props, "tags", {}).get(DEMAND_TAG)
    if declared is None:
        raise NotApplicable(f"the file system declares no demand (no {DEMAND_TAG} tag)")
    demand = float(declared)
    delivered, capacity, per_tib = throughput_mbps(props)
    if delivered < demand:
        needed = math.ceil(demand / per_tib * 1024 / CAPACITY_STEP_GIB) * CAPACITY_STEP_GIB if per_tib else None
        grow = f"; at {per_tib:g} MB/s/TiB that takes {needed} GiB" if needed else ""
        yield (f"delivers {delivered:,.0f} MB/s ({capacity:g} GiB x {per_tib:g} MB/s/TiB), below the {demand:,.0f} MB/s its pools declare{grow}")


RULE = ResourceRule(
    id="COR007",
    name="fsx-throughput-meets-demand",
    title="FSx throughput covers the demand of the pools that mount it",
    domain="correctness",
    enforcement="advisory",
    severity="medium",
    resource_types=(LUSTRE,),
    check=check,
    fix="raise per_unit_storage_throughput or storage_capacity (in the blueprint: the tier's throughput_mbps_per_tib or capacity_gib)",
)
