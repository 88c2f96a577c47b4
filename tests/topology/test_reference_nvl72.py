"""A published design with NVLink domains that span hosts: the DGX GB200 NVL72 rack and its scalable unit.

NVIDIA DGX SuperPOD with DGX GB200 systems, reference architecture:
* "Network Fabrics", Multi-node NVLink Fabric: "Each DGX GB200 rack is built with 18 compute trays and
  9 NVLink switch trays. Each NVLink switch tray is equipped with 2 NVLink switch chips ... full-mesh
  connectivity between all 72 GPUs within the same DGX GB200 rack. Each B200 GPU features 18 NVL5 links
  and has one dedicated NVL5 link connectivity to each one of the 18 switch chips, delivering a total
  bandwidth of 1.8 TB/s";
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/latest/network-fabrics.html
* "Abstract": "each SU contains 8 DGX GB200 systems"; "DGX SuperPOD Architecture": "up to and beyond
  128 racks with 9216 GPUs";
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/latest/dgx-superpod-architecture.html

The host: a compute tray (4 GPUs) is AWS's p6e-gb200.36xlarge, from the shipped catalog (its entry assembled from
AWS's documentation, docs/catalog.md). The blueprint states the NVLink domain itself (`scale_up` on its fabric), so
the figures below are the RA's, not the catalog's; the catalog gives the same 72 GPUs on 18 trays.

What the RA prints and this reproduces: 72 GPUs on 18 trays per NVLink domain, 18 switch chips, 18 links
per GPU, one to each chip, 1.8 TB/s per GPU; 8 racks per SU; 128 racks of 9,216 GPUs. What follows from
them and is asserted as such: 72 ports per chip (NVIDIA's GB200 NVL72 page gives 144 per two-chip tray),
129.6 TB/s per rack (the "130 TB/s" NVIDIA's product page rounds to), one switch hop between any two GPUs
of a rack, and one chip's loss taking 1/18 of the rack's NVLink bandwidth while cutting no GPU off.
"""

from __future__ import annotations

import networkx as nx
import pytest

from tests.topology.factory import CATALOG, block, blueprint, fabric, pool, zone
from topology import check_design

TRAYS_PER_RACK = 18
GPUS_PER_TRAY = 4
RACKS_PER_SU = 8
NVLINK_SWITCH_CHIPS = 9 * 2  # 9 NVLink switch trays of 2 chips
NVL5_LINKS_PER_GPU = 18
NVL5_GBPS_EACH_WAY = 400  # 50 GB/s each way; 18 of them make the RA's 1.8 TB/s with both directions added


TRAY = CATALOG.get("p6e-gb200.36xlarge")


def test_the_catalogs_tray_is_the_ras_four_gpus_in_a_domain_of_eighteen():
    assert TRAY.accelerator_count == GPUS_PER_TRAY
    assert (TRAY.scale_up.domain_size, TRAY.scale_up.instances_per_domain) == (TRAYS_PER_RACK * GPUS_PER_TRAY, TRAYS_PER_RACK)


def _nvlink(**overrides) -> dict:
    return {
        "kind": "nvlink",
        "domain_size": TRAYS_PER_RACK * GPUS_PER_TRAY,
        "switches": NVLINK_SWITCH_CHIPS,
        "links_per_accelerator": NVL5_LINKS_PER_GPU,
        "link_gbps": NVL5_GBPS_EACH_WAY,
        **overrides,
    }


def _superpod(racks: int, **scale_up) -> dict:
    """`racks` DGX GB200 racks of 18 trays in SUs of 8, each tray's 4 GPUs on the 400G NDR compute fabric, one NIC each."""
    units = -(-racks // RACKS_PER_SU)
    blocks = [
        block(f"su{index + 1:02d}", racks=min(RACKS_PER_SU, racks - index * RACKS_PER_SU), hosts_per_rack=TRAYS_PER_RACK) for index in range(units)
    ]
    compute = fabric("compute", "rail_optimized_clos", 64, link_gbps=400, rails=4, transport="ena", scale_up=_nvlink(**scale_up))
    design = blueprint(
        [zone("hall", blocks)], [pool("gb200", "p6e-gb200.36xlarge", racks * TRAYS_PER_RACK, ["hall"], fabric="compute", role="training")], [compute]
    )
    report = check_design(design, CATALOG)
    assert not [finding.code for finding in report.findings if finding.is_error]
    return report.figures


def test_one_scalable_unit_has_eight_nvlink_domains_of_72_gpus_on_18_trays():
    [domains] = _superpod(RACKS_PER_SU)["scale_up"]
    assert (domains["accelerators_per_domain"], domains["hosts_per_domain"], domains["domains"]) == (72, 18, 8)
    assert (domains["switches_per_domain"], domains["switches"]) == (18, 8 * 18)
    # Each GPU's 18 links, one to each chip: 72 ports a chip, 1,296 links a rack.
    assert domains["ports_per_switch"] == 72 and domains["links_per_domain"] == 72 * 18
    assert domains["unknown"] == []


def test_nvlink_bandwidth_per_gpu_and_per_rack():
    [domains] = _superpod(RACKS_PER_SU)["scale_up"]
    assert domains["accelerator_tbps"] / 8 == 1.8  # TB/s, both directions: the RA's figure
    assert domains["domain_tbps"] / 8 == pytest.approx(129.6)  # NVIDIA's "130 TB/s", unrounded
    # Every GPU reaches every chip: the worst cut is half the rack at full rate, 32.4 TB/s each way.
    assert domains["bisection_tbps"] / 8 == pytest.approx(32.4)
    assert domains["max_switch_hops"] == 1


def test_losing_a_switch_chip_costs_an_eighteenth_and_cuts_no_gpu_off():
    [domains] = _superpod(RACKS_PER_SU)["scale_up"]
    assert domains["switch_loss"] == {"tbps": 72 * 0.4, "share": round(1 / 18, 4), "accelerators_cut_off": 0}


def test_losing_a_rack_takes_its_nvlink_domain_an_eighth_of_the_unit():
    figures = _superpod(RACKS_PER_SU)
    [blast] = figures["blast_radius"]
    assert blast["by_kind"]["scale_up"] == {"kind": "scale_up", "element": "one nvlink domain (18 hosts)", "accelerators": 72, "share": 0.125}
    assert blast["by_kind"]["rack"]["accelerators"] == 72  # a domain fills its rack, so the two are the same loss


def test_the_largest_published_size_is_128_domains():
    [domains] = _superpod(128)["scale_up"]
    assert domains["domains"] * domains["accelerators_per_domain"] == 9216
    assert domains["switches"] == 128 * 18


def test_the_closed_forms_agree_with_the_explicit_graph_of_one_rack():
    """One NVL72 rack built link by link: max-flow across the worst half cut, switch hops between every pair, one chip removed."""
    gpus, chips = TRAYS_PER_RACK * GPUS_PER_TRAY, NVLINK_SWITCH_CHIPS
    rack = nx.Graph()
    for gpu in range(gpus):
        for chip in range(chips):
            # One link per GPU per chip (18 links over 18 chips), 400 Gb/s each way.
            rack.add_edge(("gpu", gpu), ("chip", chip), capacity=NVL5_LINKS_PER_GPU // chips * NVL5_GBPS_EACH_WAY)
    [domains] = _superpod(RACKS_PER_SU)["scale_up"]
    flow = rack.to_directed()
    for gpu in range(gpus):
        flow.add_edge("source" if gpu < gpus // 2 else ("gpu", gpu), ("gpu", gpu) if gpu < gpus // 2 else "sink", capacity=float("inf"))
    assert nx.maximum_flow_value(flow, "source", "sink") / 1000 == pytest.approx(domains["bisection_tbps"])
    hops = dict(nx.all_pairs_shortest_path_length(rack))
    assert max(hops[("gpu", a)][("gpu", b)] for a in range(gpus) for b in range(gpus) if a != b) - 1 == domains["max_switch_hops"]
    assert rack.degree(("chip", 0)) == domains["ports_per_switch"]
    lost = sum(data["capacity"] for _, _, data in rack.edges(("chip", 0), data=True))
    assert lost / 1000 == domains["switch_loss"]["tbps"]
    rack.remove_node(("chip", 0))
    assert nx.is_connected(rack)  # no GPU cut off


def test_nvlink_switch_chips_draw_with_their_rack_once_their_power_is_stated():
    """NVIDIA prints the SU's 1.2 MW, not a switch tray's draw, so the chip's kW here is an input, not a reproduction:
    the test holds the roll-up. Unstated, the chips are left out and the figures say so."""
    unstated = _superpod(RACKS_PER_SU)
    assert unstated["power"]["network"]["fabrics"]["compute"]["scale_up"] is None
    chip_kw = 0.5
    stated = _superpod(RACKS_PER_SU, switch_kw=chip_kw)
    tray_kw = TRAY.typical_node_kw
    [hall] = stated["power"]["zones"]
    [unit] = hall["blocks"]
    # A domain fills its rack, so each rack draws its 18 trays and its 18 chips.
    assert unit["racks"] == [{"first": 0, "count": RACKS_PER_SU, "it_kw": round(TRAYS_PER_RACK * tray_kw + NVLINK_SWITCH_CHIPS * chip_kw, 2)}]
    assert stated["power"]["network"]["fabrics"]["compute"]["scale_up"] == RACKS_PER_SU * NVLINK_SWITCH_CHIPS * chip_kw
    # Counted once: in the racks, not again in the network's shared draw.
    assert stated["power"]["it_kw"] - unstated["power"]["it_kw"] == pytest.approx(RACKS_PER_SU * NVLINK_SWITCH_CHIPS * chip_kw)
    assert stated["power"]["network"]["shared_kw"] == unstated["power"]["network"]["shared_kw"]
