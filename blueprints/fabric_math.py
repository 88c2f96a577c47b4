"""Closed formulas for fabric sizing, shared by the blueprint rules and the topology checker.

These are the sizing rules real designs use: a switch of radix k splits its
ports between downlinks and uplinks by the tier's oversubscription o
(down = floor(k * o / (1 + o)), up = k - down); a spine can reach at most k
leaves (one port each), a core at most k pods. So a two-tier Clos holds at most
k * down_leaf endpoints and a three-tier one k * down_spine * down_leaf; the
classic k-ary fat tree holds k^3/4. The topology checker builds the actual
graph and its tests check these formulas against it.
"""

from __future__ import annotations

import math


def port_split(radix: int, oversubscription: float) -> tuple[int, int]:
    """Split a switch's ports into (downlinks, uplinks) for a down:up ratio.

    Non-blocking (1.0) gives an even split; 3.0 gives three downlinks per uplink.
    Always leaves at least one uplink.
    """
    down = math.floor(radix * oversubscription / (1.0 + oversubscription) + 1e-9)
    down = min(down, radix - 1)
    return down, radix - down


def host_nic_count(accelerators: int, nics_per_accelerator: float) -> float:
    """Fabric NICs per host: accelerators x NICs per accelerator (may be fractional if misdeclared)."""
    return accelerators * nics_per_accelerator


def default_rails(accelerators: int, nics: int) -> int:
    """Rails when the blueprint names none: one per accelerator, or one per NIC if there are fewer NICs."""
    return max(1, min(accelerators, nics))


def clos_max_endpoints(radix: int, tiers: int, leaf_oversubscription: float, spine_oversubscription: float) -> int:
    """The most endpoints (host ports) a Clos of this radix and tier count can hold, per plane."""
    leaf_down, _ = port_split(radix, leaf_oversubscription)
    if tiers == 1:
        return radix
    if tiers == 2:
        return radix * leaf_down
    spine_down, _ = port_split(radix, spine_oversubscription)
    return radix * spine_down * leaf_down


def fat_tree_endpoints(radix: int) -> int:
    """Endpoints of a classic k-ary fat tree: k^3 / 4."""
    return radix**3 // 4


def fat_tree_switches(radix: int) -> int:
    """Switches of a classic k-ary fat tree: k^2 edge+aggregation, k^2/4 core = 5k^2/4."""
    return 5 * radix**2 // 4


def fabric_max_endpoints(kind: str, radix: int, tiers: int, leaf_over: float, spine_over: float, planes: int, rails: int) -> int:
    """The most host ports a fabric of this kind can hold, across planes (and rails for rail-only)."""
    if kind == "fat_tree":
        return fat_tree_endpoints(radix) * planes
    if kind == "rail_only":
        return clos_max_endpoints(radix, tiers, leaf_over, spine_over) * rails * planes
    return clos_max_endpoints(radix, tiers, leaf_over, spine_over) * planes
