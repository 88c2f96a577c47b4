"""Closed formulas for fabric sizing, shared by the blueprint rules and the topology checker.

These are the sizing rules real designs use, written once:

* **Port split.** A switch of radix k splits its ports between downlinks and
  uplinks by the tier's oversubscription o: down = floor(k * o / (1 + o)),
  up = k - down (`port_split`), unless the tier states its uplinks.
* **Per-tier speeds.** A tier's ports run at its uplink speed; when that is b
  times the speed of the links below, each down port breaks out into b links,
  so a leaf of 128 x 400G ports with 60 uplinks takes 68 x 2 = 136 host links
  of 200G, and its oversubscription (bandwidth down over up) is 68 / 60
  (`TierShape`, `tier_shapes`).
* **Even striping.** Every leaf has the same number of links to every spine of
  its group, so the spine count S divides the leaf's uplinks; S is the smallest
  such divisor that gives the spines enough ports (`spine_count`,
  `pod_spine_count`). The third tier is striped the same way: spine j of every
  pod goes to core group j, whose size is the smallest divisor of the spine's
  uplinks that gives the cores enough ports (`core_group_size`).
* **Capacity.** A spine has one port per leaf at most, a core one port per pod,
  so a two-tier Clos holds at most k * down_leaf host links per plane of its
  top tier and a three-tier one k * down_spine * down_leaf (`clos_max_endpoints`); the classic
  k-ary fat tree holds k^3/4 hosts on 5k^2/4 switches.
* **Rails.** NIC n of a host with N NICs sits on rail floor(n * R / N) and serves
  accelerator floor(n * A / N); with fewer NICs than accelerators, A / N
  accelerators share one (`nic_rail`, `nic_accelerators`, `accelerator_rails`).

The topology checker builds the actual graph from these rules; its tests
(tests/topology/test_sizing.py) check every formula here against that graph.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from blueprints.records import record


def port_split(radix: int, oversubscription: float) -> tuple[int, int]:
    """Split a switch's ports into (downlinks, uplinks) for a down:up ratio.

    Non-blocking (1.0) gives an even split; 3.0 gives three downlinks per uplink.
    Always leaves at least one uplink.
    """
    down = math.floor(radix * oversubscription / (1.0 + oversubscription) + 1e-9)
    down = min(down, radix - 1)
    return down, radix - down


@record
class TierShape:
    """One switch tier as built: its radix (ports at `up_gbps`), the split, and the links each side carries.

    `breakout` links of `down_gbps` leave each down port; `down_links` = down ports x breakout, `up_links` = up ports.
    A top tier (no uplinks) has every port down.
    """

    radix: int
    down_ports: int
    up_ports: int
    breakout: int
    down_gbps: int
    up_gbps: int

    @property
    def down_links(self) -> int:
        """Links towards the tier below (hosts, for a leaf)."""
        return self.down_ports * self.breakout

    @property
    def up_links(self) -> int:
        """Links towards the tier above."""
        return self.up_ports

    def as_top(self) -> TierShape:
        """The same switch as the fabric's top tier: every port faces down."""
        return TierShape(self.radix, self.radix, 0, self.breakout, self.down_gbps, self.up_gbps)


def tier_shape(radix: int, oversubscription: float, uplinks: int | None, down_gbps: int, up_gbps: int) -> TierShape:
    """A tier's shape: its stated uplinks, else the split of `port_split`; ports at `up_gbps`, broken out to `down_gbps`."""
    down, up = (radix - uplinks, uplinks) if uplinks is not None else port_split(radix, oversubscription)
    return TierShape(radix, down, up, max(1, up_gbps // down_gbps), down_gbps, up_gbps)


def host_nic_count(accelerators: int, nics_per_accelerator: float) -> float:
    """Fabric NICs per host: accelerators x NICs per accelerator (may be fractional if misdeclared)."""
    return accelerators * nics_per_accelerator


def default_rails(accelerators: int, nics: int) -> int:
    """Rails when the blueprint names none: one per accelerator, or one per NIC if there are fewer NICs."""
    return max(1, min(accelerators, nics))


def clos_max_endpoints(shapes: Mapping[str, TierShape], tiers: int) -> int:
    """The most endpoints (host links) a Clos holds per plane, with its tiers shaped as built for `tiers` tiers.

    The top tier has a port for every switch below it at most, so one tier holds the leaf's links, two the
    spine's times the leaf's down links, three the core's times the spine's times the leaf's.
    """
    room = shapes["leaf"].down_links
    for tier in ("spine", "core")[: tiers - 1]:
        room *= shapes[tier].down_links
    return room


def built_shapes(leaf: TierShape, spine: TierShape, core: TierShape, tiers: int) -> dict[str, TierShape]:
    """The tiers of a `tiers`-tier fabric by name; its top tier has every port down (the core always does)."""
    shapes = {"leaf": leaf, "spine": spine, "core": core.as_top()}
    top = ("leaf", "spine", "core")[tiers - 1]
    shapes[top] = shapes[top].as_top()
    return shapes


def uniform_tier_shapes(radix: int, tiers: int, leaf_over: float = 1.0, spine_over: float = 1.0, gbps: int = 100) -> dict[str, TierShape]:
    """Every tier of one radix and one link speed (the fabric's shorthand), as built for `tiers` tiers."""
    return built_shapes(
        tier_shape(radix, leaf_over, None, gbps, gbps),
        tier_shape(radix, spine_over, None, gbps, gbps),
        tier_shape(radix, 1.0, None, gbps, gbps),
        tiers,
    )


def fat_tree_endpoints(radix: int) -> int:
    """Endpoints of a classic k-ary fat tree: k^3 / 4."""
    return radix**3 // 4


def fat_tree_switches(radix: int) -> int:
    """Switches of a classic k-ary fat tree: k^2 edge+aggregation, k^2/4 core = 5k^2/4."""
    return 5 * radix**2 // 4


def fabric_max_endpoints(kind: str, shapes: Mapping[str, TierShape], radix: int, tiers: int, planes: int, rails: int) -> int:
    """The most host links a fabric of this kind can hold, across planes (and rails for rail-only).

    `planes` are the top tier's: a spine plane that joins two leaf planes shares its ports among their
    leaves, so the fabric holds one plane's worth per plane of its top tier.
    """
    if kind == "fat_tree":
        return fat_tree_endpoints(radix) * planes
    if kind == "rail_only":
        return clos_max_endpoints(shapes, tiers) * rails * planes
    return clos_max_endpoints(shapes, tiers) * planes


def striping_divisor(uplinks: int, minimum: int) -> int | None:
    """The smallest divisor of `uplinks` that is at least `minimum`, or None when there is none.

    A switch group striped evenly needs a member count that divides the
    uplinks of the tier below (each lower switch sends uplinks / members links
    to every member).
    """
    for members in range(max(1, minimum), uplinks + 1):
        if uplinks % members == 0:
            return members
    return None


def spine_count(leaves: int, leaf_uplinks: int, radix: int) -> int:
    """Spines of a two-tier group: the smallest even striping whose spines have the ports.

    Each of the `leaves` leaves sends leaf_uplinks / S links to each of the S
    spines, so a spine uses leaves * leaf_uplinks / S ports; S is the smallest
    divisor of leaf_uplinks keeping that within `radix`. When no divisor does
    (more leaves than the radix), every uplink goes to its own spine and the
    spines overflow: the checker reports that as a port-budget finding.
    """
    needed = math.ceil(leaves * leaf_uplinks / radix)
    return striping_divisor(leaf_uplinks, needed) or leaf_uplinks


def pod_spine_count(leaves_per_pod: int, leaf_uplinks: int, spine_downlinks: int) -> int:
    """Spines per pod of a three-tier Clos: as `spine_count`, within the spines' downlinks."""
    needed = math.ceil(leaves_per_pod * leaf_uplinks / spine_downlinks)
    return striping_divisor(leaf_uplinks, needed) or leaf_uplinks


def core_group_size(pods: int, spine_uplinks: int, radix: int) -> int:
    """Cores per core group (one group per spine index) of a three-tier Clos.

    Spine j of every pod sends spine_uplinks / C links to each of the C cores of
    group j, so a core uses pods * spine_uplinks / C ports; C is the smallest
    divisor of spine_uplinks keeping that within `radix` (one port per pod at
    most, so at most `radix` pods).
    """
    needed = math.ceil(pods * spine_uplinks / radix)
    return striping_divisor(spine_uplinks, needed) or spine_uplinks


def positions_per_pod(spine_downlinks: int, leaves_per_position: int) -> int:
    """Leaf positions (one leaf per rail each) a pod holds: a spine reaches every leaf of its pod."""
    return max(1, spine_downlinks // max(1, leaves_per_position))


def nic_rail(nic: int, nics: int, rails: int) -> int:
    """The rail of NIC `nic` of a host with `nics` NICs on a fabric of `rails` rails."""
    return nic * rails // nics


def nic_accelerators(nic: int, nics: int, accelerators: int) -> range:
    """The accelerators NIC `nic` serves: floor(n * A / N) alone, or the A / N that share it when N < A."""
    if nics >= accelerators:
        first = nic * accelerators // nics
        return range(first, first + 1)
    return range(-(-nic * accelerators // nics), -(-(nic + 1) * accelerators // nics))


def accelerator_rails(accelerators: int, nics: int, rails: int) -> list[frozenset[int]]:
    """For each accelerator of a host, the rails of the NICs it sends through (see `nic_accelerators`)."""
    served: list[set[int]] = [set() for _ in range(accelerators)]
    for nic in range(nics):
        for accelerator in nic_accelerators(nic, nics, accelerators):
            served[accelerator].add(nic_rail(nic, nics, rails))
    return [frozenset(rails_of) for rails_of in served]


def clos_diameter_hops(tiers: int) -> int:
    """Switches on the longest shortest path between two hosts of a full Clos: 2 * tiers - 1."""
    return 2 * tiers - 1
