"""Small named fabrics, one or more of every kind, each drawn in its docstring.

The numbers in each sketch are worked out by hand from the sizing rules in
`blueprints.fabric_math` (radix k, down/up split, even striping); the tests
compare the checker's figures with both the sketch and the explicit graph.
Hosts: p4d.24xlarge with 0.5 NICs per GPU has 4 NICs (8 GPUs on one NVLink
domain); g6e.8xlarge has one GPU and one NIC; g6e.12xlarge with 0.25 NICs per
GPU has one NIC for its 4 GPUs.
"""

from __future__ import annotations

from tests.topology.factory import block, blueprint, fabric, pool, zone


def rail_two_tier(hosts: int = 4, **fabric_fields):
    """Two-tier rail-optimized Clos: 4 p4d hosts, 2 rails, radix 8 (4 down, 4 up per leaf).

    Each host has 2 NIC ports on each rail, so a leaf (4 down ports) serves 2
    hosts; 2 positions x 2 rails = 4 leaves; their 16 uplinks need 2 spines
    (the smallest divisor of 4 with 4 x 4 / S <= 8), 2 links from every leaf to
    every spine::

                spine #0              spine #1
             //  //  \\  \\        //  //  \\  \\
         leaf r0  leaf r1        leaf r0  leaf r1
         (pos 0)  (pos 0)        (pos 1)  (pos 1)
           ||  \\  //  ||          ||  \\  //  ||
           h0      h1              h2      h3
         [rack 0: h0 h1]         [rack 1: h2 h3]
    """
    return blueprint(
        [zone("z1", [block("b1", racks=2, hosts_per_rack=2)])],
        [pool("train", "p4d.24xlarge", hosts, ["b1"], spread="racks", fabric="rails", role="training")],
        [fabric("rails", "rail_optimized_clos", 8, nics_per_accelerator=0.5, rails=2, **fabric_fields)],
    )


def rail_three_tier(**fabric_fields):
    """Three-tier rail-optimized Clos: 8 p4d hosts, 2 rails, radix 8, `tiers: 3`.

    Leaves as in `rail_two_tier` (2 hosts per position). A spine has 4 down
    ports, so a pod holds 2 positions (4 leaves); each leaf sends 1 link to each
    of its pod's 4 spines. Two pods give each core group 2 x 4 / 8 -> 1 core,
    so spine j of both pods sends 4 links to core j::

             core 0     core 1     core 2     core 3
              |  \\      ...        ...        /  |      (4 links per spine)
         pod 0: spine #0..#3              pod 1: spine #0..#3
         leaf r0/r1 pos0, pos1            leaf r0/r1 pos2, pos3
         h0 h1      h2 h3                 h4 h5      h6 h7
    """
    return blueprint(
        [zone("z1", [block("b1", racks=4, hosts_per_rack=2)])],
        [pool("train", "p4d.24xlarge", 8, ["b1"], spread="racks", fabric="rails", role="training")],
        [fabric("rails", "rail_optimized_clos", 8, nics_per_accelerator=0.5, rails=2, tiers=3, **fabric_fields)],
    )


def fat_tree(k: int = 4):
    """The classic k-ary fat tree on k^3/4 single-NIC hosts (g6e.8xlarge), k/2 hosts per rack.

    For k = 4: 16 hosts, 4 pods of 2 edge + 2 aggregation switches, 4 cores,
    5k^2/4 = 20 switches::

                    core 0   core 1   core 2   core 3
                    (agg #0 of every pod: cores 0-1; agg #1: cores 2-3)
         pod 0            pod 1            pod 2            pod 3
        agg  agg         agg  agg         agg  agg         agg  agg
        edge edge        edge edge        edge edge        edge edge
        h h  h h         h h  h h         h h  h h         h h  h h
    """
    hosts = k**3 // 4
    return blueprint(
        [zone("z1", [block("b1", racks=hosts // (k // 2), hosts_per_rack=k // 2)])],
        [pool("train", "g6e.8xlarge", hosts, ["b1"], fabric="tree", role="training")],
        [fabric("tree", "fat_tree", k)],
    )


def rail_only(**fabric_fields):
    """Two-tier rail-only fabric: 4 p4d hosts, 2 rails, radix 8; no switch joins the rails.

    Per rail: 2 leaves (2 hosts each) and 1 spine taking 4 links from each.
    Cross-rail traffic must cross a host's NVLink domain first::

           rail-0 spine              rail-1 spine
            //       \\               //       \\
        leaf r0     leaf r0       leaf r1     leaf r1
        (pos 0)     (pos 1)       (pos 0)     (pos 1)
         h0 h1       h2 h3         h0 h1       h2 h3
               (each host: NVLink joins its rail-0 and rail-1 NICs)
    """
    return blueprint(
        [zone("z1", [block("b1", racks=2, hosts_per_rack=2)])],
        [pool("train", "p4d.24xlarge", 4, ["b1"], fabric="rails", role="training")],
        [fabric("rails", "rail_only", 8, nics_per_accelerator=0.5, rails=2, tiers=2, **fabric_fields)],
    )


def tor_clos(planes: int = 1, share: float = 1.0):
    """ToR-per-rack Clos: 3 racks of 2 g6e.12xlarge hosts (one NIC each), radix 8, leaf oversubscription 3.

    A ToR splits its 8 ports 6 down / 2 up; 3 ToRs x 2 uplinks fit 1 spine.
    With `planes=2` (2 ports per NIC) every host is dual-homed: one port to
    each plane's ToR, and each plane has its own spine::

                       spine                      (one per plane)
                 //      ||      \\
             ToR rack0  ToR rack1  ToR rack2      (one per rack per plane)
              |   |      |   |      |   |
              h0  h1     h2  h3     h4  h5
    """
    return blueprint(
        [zone("z1", [block("b1", racks=3, hosts_per_rack=2)])],
        [pool("serve", "g6e.12xlarge", 6, ["b1"], fabric="tor", spread="racks", share=share)],
        [fabric("tor", "tor_clos", 8, nics_per_accelerator=0.25, planes=planes, ports_per_nic=planes, oversubscription={"leaf": 3.0})],
    )


def single_corded(share: float = 1.0):
    """Power: 4 racks on 2 feeds, one cord each (rack i on feed i mod 2), 2 hosts per rack, no fabric::

           feed 0          feed 1
           /    \\         /    \\
        rack 0  rack 2   rack 1  rack 3
        h0 h1   h4 h5    h2 h3   h6 h7
    """
    return blueprint(
        [zone("z1", [block("b1", racks=4, hosts_per_rack=2, power_feeds=2, feeds_per_rack=1)])],
        [pool("serve", "g6e.12xlarge", 8, ["b1"], spread="racks", share=share)],
    )


ALL_FABRICS = {
    "rail_two_tier": rail_two_tier,
    "rail_three_tier": rail_three_tier,
    "fat_tree_k4": fat_tree,
    "rail_only": rail_only,
    "tor_single_plane": tor_clos,
    "tor_dual_plane": lambda: tor_clos(planes=2),
}
"""Every small fixture fabric by name, for tests that run over all of them."""


def medium_rail_clos():
    """A medium three-tier rail-optimized Clos shared by two pools over two blocks (too big to draw).

    Radix 8 with leaf oversubscription 3 (6 down, 2 up), 4 rails, p4d hosts
    with one NIC per rail: 6 hosts per position, 1 position per pod (a spine
    has 4 down ports and a position has 4 leaves). Pool `a` (20 hosts) is dealt
    over both blocks, pool `b` (16 hosts) packs what is left: positions mix the
    pools, and the pods stop at the block boundary.
    """
    return blueprint(
        [zone("z1", [block("b1", racks=5, hosts_per_rack=4), block("b2", racks=5, hosts_per_rack=4)])],
        [
            pool("a", "p4d.24xlarge", 20, ["z1"], spread="blocks", fabric="rails", role="training"),
            pool("b", "p4d.24xlarge", 16, ["z1"], fabric="rails", role="training"),
        ],
        [fabric("rails", "rail_optimized_clos", 8, nics_per_accelerator=0.5, tiers=3, oversubscription={"leaf": 3.0})],
    )


def medium_tor_clos():
    """A medium three-tier ToR Clos, dual-plane: 12 racks of 3 g6e.12xlarge hosts in 2 blocks, radix 8, `tiers: 3`."""
    return blueprint(
        [zone("z1", [block("b1", racks=6, hosts_per_rack=3), block("b2", racks=6, hosts_per_rack=3)])],
        [pool("serve", "g6e.12xlarge", 33, ["z1"], spread="racks", fabric="tor")],
        [fabric("tor", "tor_clos", 8, nics_per_accelerator=0.25, planes=2, ports_per_nic=2, tiers=3)],
    )


MEDIUM_FABRICS = {"medium_rail_clos": medium_rail_clos, "medium_tor_clos": medium_tor_clos, "fat_tree_k8": lambda: fat_tree(8)}
"""Medium fabrics (tens to a hundred hosts) for the checks against the explicit graph."""
