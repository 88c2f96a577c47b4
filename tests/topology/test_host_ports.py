"""A host's own ports on a converged fabric (`host_ports`: in-band management, storage): where they land and what they cost.

They take leaf ports and count as host links, so they move the leaf count, the
links, the oversubscription as wired and what a leaf's loss takes; they carry
no job traffic, so hops and bisection stay the accelerators'. The seeded sweep
in test_random_fabrics.py holds the port counts against the explicit graph.
"""

from __future__ import annotations

from tests.topology.factory import blueprint, check, codes, design, fabric, pool, rule_errors, zone

INBAND = [{"name": "inband", "ports": 2}]  # "two ... ports to two separate switches" (NVIDIA Enterprise RAs' N/S network)


def _hall(nodes: int, host_ports: list[dict], radix: int = 64, kind: str = "rail_optimized_clos", **fields):
    """p5.48xlarge hosts (8 x 400G NICs) on a 400G fabric of `radix`-port switches, one SU of 64 slots."""
    rails = {"rails": 8} if kind == "rail_optimized_clos" else {}
    return blueprint(
        [zone("hall", [{"name": "su01"}])],
        [pool("dgx", "p5.48xlarge", nodes, ["hall"], fabric="compute", role="training")],
        [fabric("compute", kind, radix, link_gbps=400, nics_per_accelerator=1, transport="ena", host_ports=host_ports, **rails, **fields)],
    )


def _figures(model) -> dict:
    [figures] = check(model).figures["fabrics"]
    return figures


def _service_links(model) -> dict[tuple[int, tuple[int, ...]], int]:
    """(plane, the rails of a leaf group) -> the hosts' own links on each leaf of it, at position 0."""
    [built] = design(model).fabrics
    return {
        (data["plane"], data["rails"]): data["service_links"] // data["count"]
        for _, data in built.graph.nodes(data=True)
        if data.get("tier") == "leaf" and data["position"] == 0
    }


def test_two_inband_ports_land_one_on_each_of_the_first_two_rail_leaves():
    """16 hosts, 2 ports each: rail 0's and rail 1's leaves take 16 links more; rails 2 to 7 none."""
    assert _service_links(_hall(16, INBAND)) == {(0, (0, 1)): 16, (0, (2, 3, 4, 5, 6, 7)): 0}


def test_ports_go_round_the_rails_then_the_next_plane():
    """Two planes, 10 ports a host on 8 rails: rails 0-7 of plane 0 take one each, then rails 0 and 1 of plane 1."""
    model = _hall(4, [{"name": "storage", "ports": 10}], planes=2, ports_per_nic=2)
    assert _service_links(model) == {(0, (0, 1)): 4, (0, (2, 3, 4, 5, 6, 7)): 4, (1, (0, 1)): 4, (1, (2, 3, 4, 5, 6, 7)): 0}


def test_they_count_as_host_links_and_their_kinds_are_reported():
    figures = _figures(_hall(16, INBAND + [{"name": "storage", "ports": 1}]))
    assert figures["links"]["host_leaf"] == 16 * 8 + 16 * 3
    assert figures["host_ports"] == [
        {"name": "inband", "ports_per_host": 2, "links": 32},
        {"name": "storage", "ports_per_host": 1, "links": 16},
    ]
    assert _figures(_hall(16, []))["host_ports"] == []


def test_a_full_leaf_holds_fewer_hosts_when_they_bring_their_own_ports():
    """A 64-port non-blocking leaf has 32 down ports: 32 hosts on one NIC port per rail, but 16 when two of its rails also
    take each host's in-band port, so every rail gets a second leaf position (and the spines follow)."""
    without, with_ports = _figures(_hall(32, [])), _figures(_hall(32, INBAND))
    assert without["switches"]["leaf"] == 8 and with_ports["switches"]["leaf"] == 16
    assert with_ports["oversubscription"]["leaf"] == 1.0  # the fullest leaf: 16 NIC + 16 in-band links over 32 uplinks
    assert "topology.port-budget" not in codes(check(_hall(32, INBAND)))


def test_they_load_the_leaf_as_wired_and_a_tor_overflows():
    """A ToR Clos puts a rack on one ToR: 4 hosts x 8 NIC ports fill 32 down ports, and 2 in-band ports each overflow it."""
    model = blueprint(
        [zone("hall", [{"name": "b0", "racks": 1, "hosts_per_rack": 4}])],
        [pool("dgx", "p5.48xlarge", 4, ["hall"], fabric="tor", role="training")],
        [fabric("tor", "tor_clos", 64, link_gbps=400, nics_per_accelerator=1, transport="ena", tiers=2, host_ports=INBAND)],
    )
    found = codes(check(model))
    assert "topology.port-budget" in found or "topology.oversubscription" in found
    assert _figures(model)["switch_loss"]["leaf"]["down_gbps"] == (4 * 8 + 4 * 2) * 400


def test_they_carry_no_job_traffic():
    """On 128-port leaves with room for both, the hosts' hops and bisection are the same with in-band ports as without."""
    without, with_ports = _figures(_hall(16, [], radix=128)), _figures(_hall(16, INBAND, radix=128))
    assert with_ports["switches"] == without["switches"]
    assert with_ports["max_switch_hops"] == without["max_switch_hops"]
    assert with_ports["bisection_tbps"] == without["bisection_tbps"]
    assert with_ports["switch_loss"]["leaf"]["down_gbps"] == without["switch_loss"]["leaf"]["down_gbps"] + 16 * 400


def test_the_capacity_rule_counts_them():
    """A one-tier rail-only fabric of 16-port switches holds 16 host links on each of its 8 rails, 128 in all: 9 hosts of
    8 NIC ports fit (72), not with 8 in-band ports each as well (144)."""
    fits = _hall(9, [], kind="rail_only", tiers=1, radix=16)
    assert "fabric.too-small" not in rule_errors(fits)
    over = _hall(9, [{"name": "inband", "ports": 8}], kind="rail_only", tiers=1, radix=16)
    assert "fabric.too-small" in rule_errors(over)


def test_their_links_must_pair_up_on_twin_port_cables():
    found = check(_hall(16, [{"name": "inband", "ports": 1}], links_per_cable=2)).findings
    [finding] = [finding for finding in found if finding.code == "topology.cable-split" and "host_ports" in finding.path]
    assert finding.path == ("fabrics", 0, "host_ports", 0, "ports")
