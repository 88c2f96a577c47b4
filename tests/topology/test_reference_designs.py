"""Published reference designs, reproduced: the checker's figures are the publisher's, number for number.

Each case writes a design the way its publisher describes it and asserts the
figures the publisher prints. Where railyard counts something the publisher
counts differently, the test says so and asserts both sides of the difference.

* NVIDIA DGX SuperPOD with DGX H100, RA-11333-001 V11, "Network Fabrics",
  Table 4 (compute fabric component count, 1 to 4 SU) and "DGX SuperPOD
  Architecture", Table 3 (larger SuperPODs) and its rack power ("exceeds 40 kW"
  for four systems); the DGX H100 user guide's "10.2 kW max." per system;
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/network-fabrics.html
  https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html
* NVIDIA DGX SuperPOD with DGX B200, "Larger SuperPOD component counts" (2 to 64 SU);
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-architecture.html
* NVIDIA DGX SuperPOD with DGX B300 on Quantum-X800 InfiniBand, RA-11339-001,
  "DGX SuperPOD Architecture", Table 3 (1 to 18 SU of 72 nodes, 800G XDR);
  https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html
* NVIDIA DGX SuperPOD with DGX B300 on Spectrum-X Ethernet, "Network Fabrics"
  (the twin-planar compute fabric) and "DGX SuperPOD Architecture", Table 3
  "Larger DGX SuperPOD component counts" (1 to 16 SU of 64 nodes);
  https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/latest/dgx-superpod-architecture.html
* Alibaba HPN, Qian et al., "Alibaba HPN: A Data Center Network for Large
  Language Model Training", SIGCOMM 2024, sections 3, 5, 6 and Table 1: a
  dual-plane Pod of 51.2 Tbps switches, 200G host ports under 400G uplinks;
  https://ennanzhai.github.io/pub/sigcomm24-hpn.pdf
* Alibaba DCN+, the same paper's Appendix C and Figure 20: a three-tier Clos of
  dual-ToR segments whose two ToRs share their Pod's Aggs (planes joined above
  the leaves), 32 Pods of 4 segments, 16,384 GPUs;
* Al-Fares, Loukissas, Vahdat, "A Scalable, Commodity Data Center Network
  Architecture", SIGCOMM 2008, section 3: the k-ary fat tree, k = 48
  ("full bandwidth to up 27,648 hosts"; k pods of k/2 edge and k/2
  aggregation switches, (k/2)^2 core switches).
"""

from __future__ import annotations

import pytest

from railyard.pipeline import validate
from tests.preview.conftest import ROOT
from tests.topology.factory import block, blueprint, check, fabric, pool, zone
from tests.yaml_text import edited_copy

SUPERPOD = ROOT / "blueprints" / "examples" / "dgx-h100-superpod.yaml"
NODES_PER_SU = 32  # "building blocks of scalable units (SU), each containing 32 DGX H100 systems"
GPUS_PER_NODE = 8
UFM_LINKS = 4  # RA Table 8: "4 UFM System Transceivers - UFM to leaf connections", counted in Table 4's node-leaf cables


def _same_and_cross(figures: dict) -> dict:
    """A one-pool fabric's same- and cross-rail hops; its figure names the pool's routes too, and equals the pool's."""
    [pool] = figures["pools"]
    assert figures["max_switch_hops"] == pool["max_switch_hops"]
    return {key: figures["max_switch_hops"][key] for key in ("same_rail", "cross_rail")}


def _superpod_design(scalable_units: int, nodes: int, instance_type: str = "p5.48xlarge", tiers: int | None = None, ufm: bool = False):
    """A rail-optimized full fat tree of 64-port NDR switches, one block (leaf group) per SU, nodes dealt evenly over the SUs;
    with `ufm`, the UFM appliance's 4 links in the last SU (where the node it replaces would be)."""
    blocks = [{"name": f"su{index + 1:02d}"} for index in range(scalable_units)]
    appliances = [{"name": "ufm", "block": blocks[-1]["name"], "ports": UFM_LINKS}] if ufm else []
    return blueprint(
        [zone("hall", blocks)],
        [pool("dgx", instance_type, nodes, ["hall"], spread="blocks", fabric="compute", role="training")],
        [_ndr_fabric(tiers=tiers, appliances=appliances)],
    )


def _ndr_fabric(**fields) -> dict:
    """The SuperPOD's compute fabric: rail-optimized, 64-port NDR switches, one 400G port per GPU on 8 rails."""
    return fabric("compute", "rail_optimized_clos", 64, link_gbps=400, nics_per_accelerator=1, rails=8, transport="ena", **fields)


def _superpod(scalable_units: int, nodes: int, instance_type: str = "p5.48xlarge", tiers: int | None = None, ufm: bool = False) -> dict:
    """The fabric figures of `_superpod_design`."""
    [figures] = check(_superpod_design(scalable_units, nodes, instance_type, tiers, ufm)).figures["fabrics"]
    return figures


# Table 4: SU, nodes, leaf, spine, node-leaf cables (compute + UFM), spine-leaf cables.
H100_TABLE_4 = [(1, 31, 8, 4, 252, 256), (2, 63, 16, 8, 508, 512), (3, 95, 24, 16, 764, 768), (4, 127, 32, 16, 1020, 1024)]


@pytest.mark.parametrize(("units", "nodes", "leaves", "spines", "node_leaf", "leaf_spine"), H100_TABLE_4)
def test_dgx_h100_superpod_compute_fabric_matches_table_4(units, nodes, leaves, spines, node_leaf, leaf_spine):
    figures = _superpod(units, nodes, ufm=True)
    assert figures["switches"] == {"leaf": leaves, "spine": spines, "core": 0}
    assert figures["links"]["leaf_spine"] == leaf_spine
    # Table 4 counts the UFM appliance's 4 leaf links with the nodes'; so does railyard, with the UFM on the fabric.
    assert figures["links"]["host_leaf"] == node_leaf == nodes * GPUS_PER_NODE + UFM_LINKS
    assert figures["appliances"] == [{"name": "ufm", "block": f"su{units:02d}", "links": UFM_LINKS}]
    assert figures["hosts"] == nodes  # the UFM is no host
    # "A balanced, full-fat tree": 32 ports down and 32 up per leaf, the UFM's links taking the missing node's ports.
    assert figures["oversubscription"]["leaf"] == 1.0
    assert "topology.port-budget" not in [finding.code for finding in check(_superpod_design(units, nodes, ufm=True)).findings]


def test_an_appliance_on_a_full_leaf_overflows_it():
    """32 nodes fill every rail leaf of the SU; the UFM's links then need a 33rd port on four of them."""
    design = _superpod_design(1, 32, ufm=True)
    codes_found = [finding.code for finding in check(design).findings]
    assert "topology.port-budget" in codes_found


def test_an_appliance_in_a_block_without_the_fabric_is_refused():
    design = blueprint(
        [zone("hall", [{"name": "su01"}, {"name": "mgmt"}])],
        [pool("dgx", "p5.48xlarge", 8, ["su01"], fabric="compute", role="training")],
        [_ndr_fabric(appliances=[{"name": "ufm", "block": "mgmt", "ports": 4}])],
    )
    [finding] = [finding for finding in check(design).findings if finding.code == "topology.appliance-unplaced"]
    assert finding.path == ("fabrics", 0, "appliances", 0, "block") and finding.certificate == {"blocks": ["su01"]}


def test_dgx_h100_superpod_three_scalable_units_keep_the_four_su_spine_layer():
    """Table 4 prints 16 spines at 3 SU, not the 12 that 768 uplinks alone would fill: 24 leaves of 32 uplinks each reach
    every spine of the 4-SU design, since a leaf's 32 uplinks spread over 16 spines two cables each."""
    assert _superpod(3, 95)["switches"]["spine"] == 16


def test_one_scalable_unit_is_one_hop_inside_a_rail():
    """ "Traffic per rail of the DGX H100 systems is always one hop away from the other 31 nodes in a SU."""
    assert _superpod(1, 31)["max_switch_hops"]["same_rail"] == 1


def test_inside_a_scalable_unit_traffic_between_rails_crosses_the_spine_in_three_hops_or_nvlink_in_two():
    """The RA's rail-optimized fabric: between rails, leaf, spine, leaf (3 switches); PXN moves the data over NVLink to the
    GPU on the destination's rail first, then one leaf (NVSwitch + leaf: 2). Both routes are reported, named."""
    figures = _superpod(1, 31)
    [pool_figures] = figures["pools"]
    hops = pool_figures["max_switch_hops"]
    assert (hops["cross_rail_fabric"], hops["cross_rail_scale_up"], hops["cross_rail"]) == (3, 2, 2)
    # The fabric's figure names the same routes (issue 44): with one pool, the pool's figures.
    assert figures["max_switch_hops"] == {"same_rail": 1, "cross_rail": 2, "cross_rail_fabric": 3, "cross_rail_scale_up": 2}


def _one_su_bounded(route: str):
    blocks = [{"name": "su01"}]
    dgx = pool("dgx", "p5.48xlarge", 31, ["hall"], spread="blocks", fabric="compute", role="training")
    bounded = _ndr_fabric(max_switch_hops={"cross_rail": 2, "cross_rail_route": route})
    return [finding for finding in check(blueprint([zone("hall", blocks)], [dgx], [bounded])).findings if finding.code == "topology.hops"]


def test_a_cross_rail_bound_holds_the_route_it_names():
    [finding] = _one_su_bounded("fabric")
    assert "needs 3 switch hops" in finding.message and "max_switch_hops.cross_rail (route fabric) is 2" in finding.message
    assert _one_su_bounded("scale_up") == [] and _one_su_bounded("best") == []
    assert _superpod(2, 63)["max_switch_hops"]["same_rail"] == 3  # "Traffic between nodes [of different SUs] traverses the spine layer."


# Larger SuperPODs (H100 Table 3 and the B200 RA's table agree row for row): SU, nodes, leaf, spine, core, cables per layer.
LARGER = [(4, 128, 32, 16, 0), (8, 256, 64, 32, 0), (16, 512, 128, 128, 64), (32, 1024, 256, 256, 128), (64, 2048, 512, 512, 256)]


@pytest.mark.parametrize(("units", "nodes", "leaves", "spines", "cores"), LARGER)
def test_larger_superpods_match_the_published_leaf_spine_and_core_counts(units, nodes, leaves, spines, cores):
    figures = _superpod(units, nodes, instance_type="p6-b200.48xlarge", tiers=2 if cores == 0 else 3)
    assert figures["switches"] == {"leaf": leaves, "spine": spines, "core": cores}
    gpus = nodes * GPUS_PER_NODE
    # Every layer carries one cable per GPU: node-leaf, leaf-spine and (three tiers) spine-core are all `gpus`.
    assert figures["links"] == {"host_leaf": gpus, "leaf_spine": gpus, "spine_core": gpus if cores else 0}
    assert figures["oversubscription"] == {"leaf": 1.0, "spine": 1.0 if cores else None}
    # Every SU full, so the placed hosts' bisection (max-flow) is the provisioned one: half the GPUs' links, full fat tree.
    assert figures["bisection_tbps"] == figures["bisection_provisioned_tbps"] == gpus * 400 / 2 / 1000


def test_the_superpod_example_reproduces_the_four_su_row():
    validation = validate(str(SUPERPOD))
    assert validation.ok
    [figures] = validation.design.figures["fabrics"]
    assert figures["switches"] == {"leaf": 32, "spine": 16, "core": 0}
    assert figures["links"] == {"host_leaf": 1020, "leaf_spine": 1024, "spine_core": 0}  # Table 4's 4-SU row, UFM included
    # The RA counts a cable per 400G link ("2040 NDR 400G cables", Table 8: 1,016 + 1,024 with the UFM's 4 apart).
    assert figures["cables"] == figures["links"]
    assert [entry["blocks"] for entry in validation.design.figures["placement"]] == [{"su1": 32, "su2": 32, "su3": 32, "su4": 31}]
    [pool_figures] = figures["pools"]
    assert pool_figures["bisection_gbps_per_accelerator"] == 400.0  # full fat tree: every GPU's 400 Gb/s crosses the cut
    # As provisioned, the 32 leaves' 1,024 down ports (UFM's and the missing node's included) split in halves: 204.8 Tb/s;
    # the 127 placed nodes' max-flow is 201.6 (63 nodes' 504 GPUs x 400G on the smaller side).
    assert (figures["bisection_provisioned_tbps"], figures["bisection_tbps"]) == (204.8, 201.6)
    # Blast radius as bandwidth: a rail leaf carries its SU's 32 nodes on that rail (32 x 400G down, 32 x 400G up), so
    # losing it costs 12.8 Tb/s of the 1,020 host links' 408 Tb/s (1,016 GPUs and the UFM); a spine carries 64 x 400G of
    # the leaves' uplinks, 1/16. No GPU is cut off by either: the node reaches the other rails over NVLink.
    loss = figures["switch_loss"]
    assert (loss["leaf"]["down_gbps"], loss["leaf"]["up_gbps"], loss["leaf"]["share"]) == (12_800, 12_800, round(32 / 1020, 4))
    assert (loss["spine"]["down_gbps"], loss["spine"]["share"]) == (25_600, 1 / 16)
    [blast] = validation.design.figures["blast_radius"]
    assert blast["by_kind"]["switch"]["accelerators"] == 0 and blast["bandwidth_lost"]["gbps"] == 12_800


def test_the_superpod_example_racks_draw_what_the_ra_says():
    """ "DGX SuperPOD Architecture": four DGX H100 per rack, and "power consumption per rack exceeds 40 kW"; the DGX H100
    user guide gives "10.2 kW max." per system. The RA prints no SU or SuperPOD total, so the sums are asserted as sums."""
    validation = validate(str(SUPERPOD))
    power = validation.design.figures["power"]
    [hall] = power["zones"]
    racks = [(group["count"], group["it_kw"]) for block in hall["blocks"] for group in block["racks"]]
    assert racks == [(8, 40.8), (8, 40.8), (8, 40.8), (7, 40.8), (1, 30.6)]  # the last SU's last rack holds 3 (the UFM's place)
    assert all(block["max_rack_kw"] == 40.8 > 40 for block in hall["blocks"])
    assert [block["it_kw"] for block in hall["blocks"]] == [326.4, 326.4, 326.4, 316.2]  # 32 (31) x 10.2
    assert power["it_kw"] == 1295.4  # 127 x 10.2, the DGX systems alone:
    # no switch power is stated (NVIDIA publishes none for the QM9700 in the RA), and validate says so.
    assert power["network"]["unstated"] == ["compute"]
    assert "power.switches-unstated" in [finding.code for finding in validation.findings]


def test_al_fares_fat_tree_with_48_port_switches():
    k = 48
    pods = [{"name": f"pod{index:02d}"} for index in range(k)]
    design = blueprint(
        [zone("dc", pods)],
        [pool("hosts", "g6.xlarge", k**3 // 4, ["dc"], spread="blocks", fabric="tree")],
        [fabric("tree", "fat_tree", k, link_gbps=10, nics_per_accelerator=1, transport="ena")],
    )
    [figures] = check(design).figures["fabrics"]
    assert figures["hosts"] == 27_648  # "full bandwidth to up 27,648 hosts"
    # k pods x k/2 edge, k pods x k/2 aggregation, (k/2)^2 core: 1,152 + 1,152 + 576 = 2,880 = 5k^2/4.
    assert figures["switches"] == {"leaf": 1_152, "spine": 1_152, "core": 576}
    assert figures["links"] == {"host_leaf": 27_648, "leaf_spine": 27_648, "spine_core": 27_648}
    # Full bisection: each host in one half keeps its whole link across the cut, and a path is edge-aggregation-core-aggregation-edge.
    assert figures["bisection_tbps"] == pytest.approx(27_648 / 2 * 10 / 1000) == figures["bisection_provisioned_tbps"]
    assert _same_and_cross(figures) == {"same_rail": 5, "cross_rail": 5}


# Alibaba HPN (Qian et al., SIGCOMM 2024), one Pod; the example is written from sections 3, 5 and 6 of the paper.
HPN = ROOT / "blueprints" / "examples" / "alibaba-hpn-pod.yaml"


def _hpn(edits: tuple[tuple[str, str], ...] = (), tmp_path=None) -> dict:
    path = HPN if not edits else edited_copy(HPN, tmp_path, *edits)
    validation = validate(str(path))
    assert validation.ok, [finding.code for finding in validation.findings if finding.is_error]
    [figures] = validation.design.figures["fabrics"]
    return figures


def test_hpn_pod_switch_counts_per_tier():
    figures = _hpn()
    # "the 16 ToRs collectively connect 1024 GPUs in a segment": 15 segments per Pod; "60 equivalent Agg switches in each plane".
    assert figures["switches"]["leaf"] == 15 * 16
    assert figures["switches"]["spine"] == 2 * 60
    assert (figures["planes"], figures["rails"], figures["tiers"]) == (2, 8, 3)
    # "Pod in HPN 15360" GPUs (Table 1) on 1,920 active hosts, and "64 (backup) GPUs" per segment on 120 backup hosts.
    pools = {pool["name"]: pool for pool in figures["pools"]}
    assert figures["accelerators"] == 15_360 + 15 * 64 and set(pools) == {"train", "backup"}


def test_hpn_ports_speeds_and_oversubscription_per_tier():
    figures = _hpn()
    leaf, spine = figures["tier_ports"]["leaf"], figures["tier_ports"]["spine"]
    # "128 active + 8 backup 200Gbps downstream ports and 60 upstream 400Gbps ports" on a 51.2 Tbps (128 x 400G) chip.
    assert (leaf["radix"], leaf["down_ports"] * leaf["breakout"], leaf["down_gbps"], leaf["up_ports"], leaf["up_gbps"]) == (128, 136, 200, 60, 400)
    # Aggregation: 120 down, 8 up: "Aggregation-Core oversubscription to be 15:1".
    assert (spine["down_ports"], spine["up_ports"]) == (120, 8)
    assert figures["oversubscription"]["spine"] == 15.0
    # "actually 1.067:1": the paper counts the 128 active ports. The 8 backup hosts per segment are wired (their 8 ports
    # per ToR take ports and links below) but are hot spares (`standby_for: train`), so they carry no job traffic.
    assert figures["oversubscription"]["leaf"] == round(128 * 200 / (60 * 400), 3) == 1.067
    # Every host link is a ToR down link: 2,040 hosts x 8 NICs x 2 ports; every ToR sends 60 links up, every Agg 8.
    assert figures["links"] == {"host_leaf": 2_040 * 16, "leaf_spine": 240 * 60, "spine_core": 120 * 8}


def test_hpn_backup_hosts_running_jobs_would_read_one_point_133(tmp_path):
    # The same Pod with its backup hosts as job hosts: their ports count, 136 x 200 / (60 x 400).
    figures = _hpn((("    standby_for: train\n", ""),), tmp_path)
    assert figures["oversubscription"]["leaf"] == round(136 * 200 / (60 * 400), 3) == 1.133


def test_hpn_one_lost_host_link_costs_six_point_two_five_percent_and_a_tor_half_its_gpus_rail_path(tmp_path):
    validation = validate(str(HPN))
    train = next(entry for entry in validation.design.figures["blast_radius"] if entry["pool"] == "train")
    # "8 NICs ... each with 2 x 200G ports": 16 links a host; one lost is 1/16 of its bandwidth, the paper's 6.25%.
    assert train["link_loss"]["host_link"] == {"links_per_host": 16, "link_gbps": 200, "share": 0.0625}
    # A ToR serves one rail of one plane for its segment's 128 active hosts: their GPUs on that rail keep the other plane.
    leaf = train["link_loss"]["leaf_per_rail"]
    assert (leaf["rails"], leaf["hosts"], leaf["accelerators"], leaf["share"]) == ([0], 128, 128, 0.5)


def test_hpn_backup_hosts_are_spares_eight_in_each_segment():
    validation = validate(str(HPN))
    blast = {entry["pool"]: entry for entry in validation.design.figures["blast_radius"]}
    spares = blast["train"]["spares"]
    assert (spares["pools"], spares["hosts"], spares["fewest_in_a_block"]) == (["backup"], 120, 8)
    # A segment down takes 128 hosts; the 112 spares in the other 14 segments don't cover it (they cover hosts, not segments).
    assert spares["worst"]["block"] == {"element": "seg01", "hosts_lost": 128, "spares_outside": 112, "covered": False}
    pools = {pool["name"]: pool for pool in validation.design.figures["fabrics"][0]["pools"]}
    assert pools["backup"]["standby_for"] == "train" and pools["backup"]["bisection_gbps_per_accelerator"] is None


def test_hpn_hops_and_bisection():
    figures = _hpn()
    # Same rail inside a segment: one ToR; across segments of the Pod: ToR, Agg, ToR (HPN's "2-tier" Pod).
    assert figures["max_switch_hops"]["same_rail"] == figures["max_switch_hops"]["cross_rail"] == 3
    train = next(pool for pool in figures["pools"] if pool["name"] == "train")
    # The first half is 7 full segments and half of the 8th. A full segment sends at most its 16 ToRs x 60 x 400G up;
    # the half segment meets the other half inside its ToRs (64 hosts x 16 ports x 200G). Over the half's 7,680 GPUs:
    assert train["bisection_gbps_per_accelerator"] == round((7 * 16 * 60 * 400 + 64 * 16 * 200) / (960 * 8), 1)
    # As provisioned, half the ToRs' uplinks: 240 x 60 x 400G / 2 (the ToRs' 136 x 200G down is more).
    assert figures["bisection_provisioned_tbps"] == 240 * 60 * 400 / 2 / 1000
    # The fabric's own figure is the job hosts' (issue 44): the spares carry no job traffic, so it is train's cut, the
    # half above: 7 segments' uplinks and the half segment's ToR-internal ports, 2,892.8 Tb/s (2,905.6 counting spares).
    assert figures["bisection_tbps"] == (7 * 16 * 60 * 400 + 64 * 16 * 200) / 1000 == 2892.8


def test_hpn_blast_radius_in_bandwidth():
    figures = _hpn()
    loss = figures["switch_loss"]
    # A ToR: 136 x 200G down (one port of each of its segment's hosts, backup included), 60 x 400G up; the hosts keep
    # their other plane and rails, so nothing is cut off and 1/240 of the Pod's host bandwidth is lost.
    assert (loss["leaf"]["down_gbps"], loss["leaf"]["up_gbps"], loss["leaf"]["share"]) == (27_200, 24_000, round(1 / 240, 4))
    # An Agg: 120 x 400G from the ToRs of its plane, 1/60 of that plane's ToR uplinks (1/120 of both planes').
    assert (loss["spine"]["down_gbps"], loss["spine"]["up_gbps"], loss["spine"]["share"]) == (48_000, 3_200, round(1 / 120, 4))


# Alibaba DCN+ (HPN paper, Appendix C and Figure 20): dual-ToR segments of 16 hosts whose two ToRs share their Pod's Aggs.
DCN_PLUS = ROOT / "blueprints" / "examples" / "alibaba-dcn-plus.yaml"


def _dcn_plus(edits: tuple[tuple[str, str], ...] = (), tmp_path=None):
    path = DCN_PLUS if not edits else edited_copy(DCN_PLUS, tmp_path, *edits)
    validation = validate(str(path))
    assert validation.ok, [finding.code for finding in validation.findings if finding.is_error]
    [figures] = validation.design.figures["fabrics"]
    return figures, validation.design.design.fabrics[0]


def test_dcn_plus_switch_counts_per_tier_and_pods():
    figures, built = _dcn_plus()
    # "each segment is composed of 128 GPUs (16 servers)" on two ToRs; "each Pod contains 4 segments (i.e., 512 GPUs)";
    # "Each Pod is equipped with 8 Aggregation switches"; "up to 32 Pods, making the scale up to 16384 GPUs";
    # Figure 20 draws Core1 to Core128.
    assert (figures["hosts"], figures["accelerators"]) == (32 * 4 * 16, 16_384)
    assert figures["switches"] == {"leaf": 32 * 4 * 2, "spine": 32 * 8, "core": 128}
    assert (built.plan.pods, built.plan.pod_spines) == (32, 8)
    # Every link of every layer, 200G host ports, 400G above: 2,048 hosts x 8 NICs x 2 ports; each ToR and each Agg 64 up.
    assert figures["links"] == {"host_leaf": 2_048 * 16, "leaf_spine": 256 * 64, "spine_core": 256 * 64}


def test_dcn_plus_ports_and_oversubscription_per_tier():
    figures, _ = _dcn_plus()
    ports = figures["tier_ports"]
    # Figure 20: a ToR has 128 x 200G down and 64 x 400G up; an Agg 64 x 400G down and up; a core 128 x 400G.
    leaf, spine, core = ports["leaf"], ports["spine"], ports["core"]
    assert (leaf["down_ports"] * leaf["breakout"], leaf["down_gbps"], leaf["up_ports"], leaf["up_gbps"]) == (128, 200, 64, 400)
    assert (spine["down_ports"], spine["up_ports"], spine["up_gbps"], core["down_ports"], core["down_gbps"]) == (64, 64, 400, 128, 400)
    # Dual-ToR: two planes at the ToRs, joined at the Aggs (and so at the cores).
    assert [ports[tier]["planes"] for tier in ("leaf", "spine", "core")] == [2, 1, 1]
    # "a traditional 3-tier Clos Data Center Network with full bisection bandwidth": 1:1 at both tiers.
    assert figures["oversubscription"] == {"leaf": 1.0, "spine": 1.0}


def _aggs_of_a_tor(built) -> tuple[int, int, set[int]]:
    """(Aggs the first segment's plane-1 ToR reaches, links to each, the planes of the ToRs those Aggs hear from)."""
    graph, leaf = built.graph, ("leaf", 1, 0, 0)
    [(spine, links)] = [(node, edge["links"]) for node, edge in graph[leaf].items() if graph.nodes[node].get("tier") == "spine"]
    planes = {graph.nodes[node]["plane"] for node in graph[spine] if graph.nodes[node].get("tier") == "leaf"}
    return graph.nodes[spine]["count"], links // graph.nodes[spine]["count"], planes


def test_dcn_plus_every_tor_reaches_every_agg_of_its_pod(tmp_path):
    """ "each ToR switch connects to all Aggregation switches": both ToRs of a segment meet the Pod's 8 Aggs, 8 links to each.

    Carried on as two planes instead (no spine.planes), the counts are the same but each ToR reaches only the 4 Aggs of
    its own plane, 16 links to each; without blocks_per_pod, a pod would take 8 blocks under 64 Aggs."""
    figures, built = _dcn_plus()
    assert _aggs_of_a_tor(built) == (8, 8, {0, 1})
    carried, apart = _dcn_plus((("spine: {uplinks: 64, planes: 1}", "spine: {uplinks: 64}"),), tmp_path)
    assert _aggs_of_a_tor(apart) == (4, 16, {1}) and carried["switches"] == figures["switches"]
    unfixed, big_pods = _dcn_plus((("    blocks_per_pod: 1 ", "    # blocks_per_pod: 1 "),), tmp_path)
    assert (big_pods.plan.pods, big_pods.plan.pod_spines) == (4, 64) and unfixed["switches"] == figures["switches"]


def test_dcn_plus_bisection_hops_and_blast_radius(tmp_path):
    figures, _ = _dcn_plus()
    # Full bisection: each GPU's 2 x 200G across any half, as placed and as provisioned (half of 2,048 x 16 x 200G).
    assert figures["pools"][0]["bisection_gbps_per_accelerator"] == 400.0
    assert figures["bisection_tbps"] == figures["bisection_provisioned_tbps"] == 2_048 * 16 * 200 / 2 / 1000
    # ToR, Agg, core, Agg, ToR between Pods; inside one Pod, ToR, Agg, ToR.
    assert figures["max_switch_hops"] == {"same_rail": 5, "cross_rail": 5, "cross_rail_fabric": 5, "cross_rail_scale_up": 5}
    pod01 = (("    nodes: 2048 ", "    nodes: 64 "), ("domains: [cluster]\n      spread: blocks", "domains: [pod01]\n      spread: packed"))
    one_pod, _ = _dcn_plus(pod01, tmp_path)
    assert _same_and_cross(one_pod) == {"same_rail": 3, "cross_rail": 3}
    # A ToR carries 128 x 200G down and 64 x 400G up, 1/256 of the host bandwidth; its hosts keep their other ToR, so no
    # GPU is cut off. An Agg carries 64 x 400G down, 1/256 of the ToRs' uplinks.
    loss = figures["switch_loss"]
    assert (loss["leaf"]["down_gbps"], loss["leaf"]["up_gbps"], loss["leaf"]["share"]) == (25_600, 25_600, round(1 / 256, 4))
    assert (loss["spine"]["down_gbps"], loss["spine"]["share"]) == (25_600, round(1 / 256, 4))


# NVIDIA DGX SuperPOD with DGX B300 on Spectrum-X: "Each group of 64 nodes is rail-aligned"; "The Spectrum-X based compute
# fabric features a twin-planar design ... Each GPU has 2x 400GbE connectivity through two different planes".
B300 = ROOT / "blueprints" / "examples" / "dgx-b300-twin-plane.yaml"
B300_NODES_PER_SU = 64
# Table 3: SU, nodes, leaf, spine, node-leaf cables, leaf-spine cables (two tiers at every size).
B300_TABLE_3 = [(1, 64, 16, 8, 512, 512), (2, 128, 32, 16, 1024, 1024), (4, 256, 64, 32, 2048, 2048), (8, 512, 128, 64, 4096, 4096)]
B300_TABLE_3 += [(16, 1024, 256, 128, 8192, 8192)]


def _twin_plane_fabric(**fields) -> dict:
    """The compute fabric: rail-optimized, 128 x 400G switches, each GPU's NIC with one 400G port on each of two planes."""
    return fabric(
        "compute", "rail_optimized_clos", 128, link_gbps=400, nics_per_accelerator=1, ports_per_nic=2, planes=2, rails=8, transport="ena", **fields
    )


def _dgx_b300_units(scalable_units: int, nodes_per_unit: int, compute: dict) -> dict:
    """The fabric figures of DGX B300 SUs on `compute`: a block per SU, the nodes dealt evenly over them; no error found."""
    blocks = [{"name": f"su{index + 1:02d}"} for index in range(scalable_units)]
    spread = "blocks" if scalable_units > 1 else "packed"  # one SU is one block: nothing to spread over
    nodes = scalable_units * nodes_per_unit
    design = blueprint(
        [zone("hall", blocks)], [pool("dgx", "p6-b300.48xlarge", nodes, ["hall"], spread=spread, fabric="compute", role="training")], [compute]
    )
    report = check(design)
    assert not [finding.code for finding in report.findings if finding.is_error]
    [figures] = report.figures["fabrics"]
    return figures


def _b300(scalable_units: int, **fields) -> dict:
    return _dgx_b300_units(scalable_units, B300_NODES_PER_SU, _twin_plane_fabric(tiers=2, **fields))


@pytest.mark.parametrize(("units", "nodes", "leaves", "spines", "node_leaf", "leaf_spine"), B300_TABLE_3)
def test_dgx_b300_twin_plane_superpod_matches_table_3(units, nodes, leaves, spines, node_leaf, leaf_spine):
    figures = _b300(units, links_per_cable=2)
    assert figures["hosts"] == nodes
    assert figures["switches"] == {"leaf": leaves, "spine": spines, "core": 0}
    assert figures["cables"] == {"host_leaf": node_leaf, "leaf_spine": leaf_spine, "spine_core": 0}
    # The table's cables carry two 400G links each: every GPU has 2 x 400G, and each layer carries all of them.
    gpus = nodes * GPUS_PER_NODE
    assert figures["links"] == {"host_leaf": 2 * gpus, "leaf_spine": 2 * gpus, "spine_core": 0}
    assert figures["oversubscription"]["leaf"] == 1.0
    # Non-blocking on both planes: half the GPUs' 800 Gb/s crosses the cut, as provisioned and as placed.
    assert figures["bisection_tbps"] == figures["bisection_provisioned_tbps"] == gpus * 800 / 2 / 1000


def test_a_rack_of_four_dgx_b300_draws_what_the_xdr_ra_says():
    """B300 XDR RA: "four DGX B300 fit within a single rack. The rack-level power consumption per rack is ~56kW"; the
    catalog's p6-b300 node power is that figure over four, so one SU's racks come out at 56 kW each."""
    blocks = [block("su01", racks=16, hosts_per_rack=4)]
    design = blueprint(
        [zone("hall", blocks)], [pool("dgx", "p6-b300.48xlarge", 64, ["hall"], fabric="compute", role="training")], [_twin_plane_fabric(tiers=2)]
    )
    power = check(design).figures["power"]
    [hall] = power["zones"]
    assert [(group["count"], group["it_kw"]) for group in hall["blocks"][0]["racks"]] == [(16, 56.0)]


def test_dgx_b300_counts_links_not_cables_without_links_per_cable():
    """The same fabric with one link to a cable: the switch counts stand, every cable count doubles to the link count."""
    figures = _b300(1)
    assert figures["switches"] == {"leaf": 16, "spine": 8, "core": 0}
    assert figures["cables"] == figures["links"] == {"host_leaf": 1024, "leaf_spine": 1024, "spine_core": 0}


def test_dgx_b300_one_hop_inside_a_rail_and_half_bandwidth_after_a_switch_failure():
    figures = _b300(1, links_per_cable=2)
    # "Traffic per rail of the DGX B300 systems is always one hop away from the other 64 nodes in a SU.
    # Traffic between nodes, or between rails, traverses the spine layer."
    assert _same_and_cross(figures) == {"same_rail": 1, "cross_rail": 2}
    assert _b300(2, links_per_cable=2)["max_switch_hops"]["same_rail"] == 3
    # "A single switch failure ... the application can continue to operate on 1/2 of the original bandwidth": a leaf carries
    # one 400G port of each of its SU's 64 GPUs on its rail and plane, half of those GPUs' 2 x 400G; the other plane stays.
    leaf = figures["switch_loss"]["leaf"]
    assert leaf["down_gbps"] == B300_NODES_PER_SU * 400 == B300_NODES_PER_SU * 2 * 400 / 2
    assert leaf["share"] == 1 / 16  # of the SU's 16 leaves


def test_the_b300_example_reproduces_the_four_su_row():
    validation = validate(str(B300))
    assert validation.ok
    [figures] = validation.design.figures["fabrics"]
    assert (figures["planes"], figures["rails"], figures["hosts"]) == (2, 8, 256)
    assert figures["switches"] == {"leaf": 64, "spine": 32, "core": 0}
    assert figures["cables"] == {"host_leaf": 2048, "leaf_spine": 2048, "spine_core": 0}


def test_a_cable_can_not_be_left_half_used(tmp_path):
    """links_per_cable must divide a host's ports and each switch side's links; the checker says which one it doesn't."""
    # A host with one 3-port NIC (for all 8 GPUs) has 3 links: pairs can't carry them.
    report = check(
        blueprint(
            [zone("hall", [{"name": "su01"}])],
            [pool("dgx", "p6-b300.48xlarge", 8, ["hall"], fabric="compute", role="training")],
            [
                fabric(
                    "compute",
                    "rail_optimized_clos",
                    128,
                    link_gbps=400,
                    nics_per_accelerator=0.125,
                    ports_per_nic=3,
                    links_per_cable=2,
                    transport="ena",
                )
            ],
        )
    )
    [finding] = [finding for finding in report.findings if finding.code == "topology.cable-split"]
    assert finding.path == ("pools", 0, "instance_type") and finding.certificate == {"links": 3, "links_per_cable": 2}
    # A 130-port leaf split evenly has 65 ports down and 65 up: neither side pairs up.
    report = check(
        blueprint(
            [zone("hall", [{"name": "su01"}])],
            [pool("dgx", "p6-b300.48xlarge", 8, ["hall"], fabric="compute", role="training")],
            [_twin_plane_fabric(leaf={"radix": 130}, links_per_cable=2)],
        )
    )
    split = [(finding.path, finding.certificate["links"]) for finding in report.findings if finding.code == "topology.cable-split"]
    assert (("fabrics", 0, "oversubscription", "leaf"), 65) in split
    # A stated uplink count that pairs can't fill is refused by the model, before any graph is built.
    edited = edited_copy(B300, tmp_path, ("    tiers: 2\n", "    tiers: 2\n    leaf: {uplinks: 63}\n"))
    validation = validate(str(edited))
    assert not validation.ok
    [refused] = [finding for finding in validation.findings if finding.code == "fabric.cable-split"]
    assert refused.path[-2:] == ("leaf", "uplinks")


# NVIDIA DGX SuperPOD with DGX B300 on Quantum-X800 InfiniBand (RA-11339-001), "DGX SuperPOD Architecture", Table 3
# "Example Compute Fabric Components for DGX SuperPOD Counts": SUs of 72 nodes, one 800G XDR port per GPU on 8 rails.
XDR_NODES_PER_SU = 72
# SU, nodes, leaf, spine, node-leaf cables, leaf-spine cables.
XDR_TABLE_3 = [(1, 72, 8, 4, 576, 576), (2, 144, 16, 8, 1152, 1152), (4, 288, 32, 18, 2304, 2304), (8, 576, 64, 36, 4608, 4608)]
XDR_TABLE_3 += [(18, 1296, 144, 72, 10368, 10368)]


def _xdr(scalable_units: int) -> dict:
    """The compute fabric: rail-optimized, 144-port 800G switches, one port per GPU on 8 rails."""
    compute = fabric("compute", "rail_optimized_clos", 144, link_gbps=800, nics_per_accelerator=1, rails=8, transport="ena")
    return _dgx_b300_units(scalable_units, XDR_NODES_PER_SU, compute)


@pytest.mark.parametrize(("units", "nodes", "leaves", "spines", "node_leaf", "leaf_spine"), XDR_TABLE_3)
def test_dgx_b300_xdr_superpod_matches_table_3(units, nodes, leaves, spines, node_leaf, leaf_spine):
    """Two tiers at every size (144 leaves still reach one spine each); the spine layer is striped evenly, so at 4 and 8 SU
    it is 18 and 36 spines, not the 16 and 32 that the uplinks alone would fill: a leaf's 72 uplinks spread 4 and 2 to a
    spine over the smallest spine count that divides them."""
    figures = _xdr(units)
    assert (figures["hosts"], figures["tiers"]) == (nodes, 2)
    assert figures["switches"] == {"leaf": leaves, "spine": spines, "core": 0}
    assert figures["cables"] == {"host_leaf": node_leaf, "leaf_spine": leaf_spine, "spine_core": 0}
    assert figures["oversubscription"]["leaf"] == 1.0
    assert figures["bisection_tbps"] == nodes * GPUS_PER_NODE * 800 / 2 / 1000  # non-blocking: half the GPUs' 800G crosses
    assert figures["pools"][0]["bisection_gbps_per_accelerator"] == 800
    assert figures["max_switch_hops"]["same_rail"] == (1 if units == 1 else 3)
