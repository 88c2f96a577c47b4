"""Scale-up domains that span hosts: a Trn2 UltraServer (4 x trn2u.48xlarge, one NeuronLink domain of 64 Trainium2,
from the catalog) and an NVLink domain a designed fabric declares across hosts (NVL72-class racks).

Such a domain is bought and placed whole: the pool is a whole number of domains, a block takes whole
domains and fills its racks in order, `spread: racks` puts one domain in each rack, and losing the domain
takes all its hosts down (the blast radius's `scale_up` kind).
"""

from __future__ import annotations

from blueprints.findings import Finding
from blueprints.models import Blueprint
from blueprints.rules import run_blueprint_rules
from tests.topology.factory import CATALOG, block, blueprint, check, fabric, pool, zone


def _rules(model: Blueprint, code: str) -> list[Finding]:
    return [finding for finding in run_blueprint_rules(model, CATALOG) if finding.code == code]


def _open_zone(name: str = "za") -> dict:
    return {"name": name, "availability_zone": "us-east-1a"}


def test_the_catalog_gives_a_trn2_ultraserver_four_hosts():
    assert CATALOG.get("trn2u.48xlarge").scale_up.instances_per_domain == 4
    assert CATALOG.get("trn2.48xlarge").scale_up.instances_per_domain == 1


def test_a_pool_of_part_of_an_ultraserver_is_refused():
    [finding] = _rules(blueprint([_open_zone()], [pool("t", "trn2u.48xlarge", 6, ["za"])]), "pool.scale-up-partial")
    assert finding.path == ("pools", 0, "nodes") and finding.certificate == {"hosts_per_domain": 4, "nodes": {"max": 6, "desired": 6}}
    assert not _rules(blueprint([_open_zone()], [pool("t", "trn2u.48xlarge", 8, ["za"])]), "pool.scale-up-partial")


def _without_compute_domains(model: Blueprint) -> Blueprint:
    """`model` with `kubernetes.compute_domains: false` (no DRA driver, so no IMEX)."""
    return model.model_copy(update={"kubernetes": model.kubernetes.model_copy(update={"compute_domains": False})})


def test_a_pool_of_part_of_a_gb200_nvl72_ultraserver_is_refused_and_whole_ones_warn_of_imex_only_without_compute_domains():
    model = blueprint([_open_zone()], [pool("g", "p6e-gb200.36xlarge", 27, ["za"])])
    [finding] = _rules(model, "pool.scale-up-partial")
    assert finding.certificate == {"hosts_per_domain": 18, "nodes": {"max": 27, "desired": 27}}
    assert "a nvlink domain of 18 hosts" in finding.message
    whole = blueprint([_open_zone()], [pool("g", "p6e-gb200.36xlarge", 36, ["za"])])
    assert not _rules(whole, "pool.scale-up-partial")
    # Left out, compute_domains is on for such a pool: the DRA driver gives jobs IMEX, and there is nothing to warn of.
    assert whole.kubernetes.compute_domains is None and not _rules(whole, "pool.nvlink-imex")
    [imex] = _rules(_without_compute_domains(whole), "pool.nvlink-imex")
    assert imex.severity == "warning" and imex.path == ("pools", 0, "instance_type") and imex.certificate == {"hosts_per_domain": 18}
    assert "pool 'g' (p6e-gb200.36xlarge) has NVLink domains of 18 hosts, but kubernetes.compute_domains is false, so no IMEX" in imex.message
    assert "ComputeDomain" in imex.hint and "ml-eks-nvidia-ultraserver" in imex.hint


def test_only_an_nvlink_domain_across_hosts_warns_of_imex():
    for instance_type, nodes in (("trn2u.48xlarge", 8), ("p6-b200.48xlarge", 2), ("p5.48xlarge", 2)):
        model = _without_compute_domains(blueprint([_open_zone()], [pool("p", instance_type, nodes, ["za"])]))
        assert not _rules(model, "pool.nvlink-imex"), instance_type


def test_losing_a_gb200_ultraserver_takes_its_18_hosts_and_72_gpus():
    report = check(blueprint([_open_zone()], [pool("g", "p6e-gb200.36xlarge", 36, ["za"])]))
    [blast] = report.figures["blast_radius"]
    assert blast["by_kind"]["scale_up"] == {"kind": "scale_up", "element": "one nvlink domain (18 hosts)", "accelerators": 72, "share": 0.5}


def test_losing_an_ultraserver_takes_its_four_hosts_and_is_checked_against_the_tolerance():
    report = check(blueprint([_open_zone()], [pool("t", "trn2u.48xlarge", 16, ["za"], share=0.2)]))
    [blast] = report.figures["blast_radius"]
    assert blast["by_kind"]["scale_up"] == {"kind": "scale_up", "element": "one neuronlink domain (4 hosts)", "accelerators": 64, "share": 0.25}
    assert "scale_up" in blast["checked"] and blast["worst"]["kind"] == "scale_up"
    finding = next(finding for finding in report.findings if finding.code == "topology.blast-radius")
    assert finding.certificate["kind"] == "scale_up" and finding.certificate["share"] == 0.25


def test_a_one_host_domain_is_no_separate_failure():
    [blast] = check(blueprint([_open_zone()], [pool("t", "trn2.48xlarge", 16, ["za"])])).figures["blast_radius"]
    assert "scale_up" not in blast["by_kind"]


def test_blocks_take_whole_domains_so_none_crosses_a_block():
    # Blocks of 6 host slots hold one UltraServer each (4 hosts); 8 hosts need two blocks, not 6 + 2.
    zones = [zone("z", [block("b1", racks=3, hosts_per_rack=2), block("b2", racks=3, hosts_per_rack=2)])]
    report = check(blueprint(zones, [pool("t", "trn2u.48xlarge", 8, ["z"])]))
    assert report.figures["placement"][0]["blocks"] == {"b1": 4, "b2": 4}


def test_capacity_counts_whole_domains_per_block():
    zones = [zone("z", [block("b1", racks=3, hosts_per_rack=2), block("b2", racks=3, hosts_per_rack=2)])]
    [finding] = _rules(blueprint(zones, [pool("t", "trn2u.48xlarge", 12, ["z"])]), "placement.over-capacity")
    assert finding.certificate["slots"] == 8  # 12 host slots, but each block holds one UltraServer and 2 slots no other


def test_spreading_over_racks_puts_a_whole_domain_in_each_rack():
    racks = [zone("z", [block("b", racks=4, hosts_per_rack=4)])]
    report = check(blueprint(racks, [pool("t", "trn2u.48xlarge", 8, ["b"], spread="racks")]))
    # Round-robin over racks in whole UltraServers: two racks hold one each.
    [entry] = report.figures["placement"]
    assert entry["placed"] == 8
    small = [zone("z", [block("b", racks=8, hosts_per_rack=2)])]
    [finding] = _rules(blueprint(small, [pool("t", "trn2u.48xlarge", 8, ["b"], spread="racks")]), "placement.scale-up-rack")
    assert finding.certificate == {"hosts_per_domain": 4, "blocks": ["b"]}


def test_a_designed_fabric_declares_an_nvlink_domain_across_hosts():
    """NVL72-class: a fabric's `scale_up.domain_size` of 4 hosts' accelerators makes the pool's domain 4 hosts."""
    design = blueprint(
        [zone("z", [block("r", racks=4, hosts_per_rack=8)])],
        [pool("gpu", "p5.48xlarge", 16, ["r"], fabric="f", share=0.2)],
        [
            fabric(
                "f", "rail_optimized_clos", 64, link_gbps=400, nics_per_accelerator=1, transport="ena", scale_up={"kind": "nvlink", "domain_size": 32}
            )
        ],
    )
    [blast] = check(design).figures["blast_radius"]
    assert blast["by_kind"]["scale_up"]["element"] == "one nvlink domain (4 hosts)"
    assert blast["by_kind"]["scale_up"]["accelerators"] == 32
    assert not _rules(design, "pool.scale-up-partial")


def test_a_one_host_domain_s_switches_are_in_the_host_s_own_draw():
    # An HGX board's NVSwitch chips sit in the host: the catalog's (or the pool's) node draw already counts them.
    nvswitch = {"kind": "nvlink", "domain_size": 8, "switches": 4, "links_per_accelerator": 16, "link_gbps": 200, "switch_kw": 0.1}
    zones = [zone("z", [block("b1", racks=1, hosts_per_rack=4)])]
    on_fabric = [fabric("f", "rail_optimized_clos", 64, rails=8, nics_per_accelerator=1, scale_up=nvswitch)]
    with_chips = check(blueprint(zones, [pool("g", "p5.48xlarge", 4, ["z"], fabric="f")], on_fabric)).figures["power"]
    assert with_chips["it_kw"] == 4 * CATALOG.get("p5.48xlarge").typical_node_kw
    assert "scale_up" not in with_chips["network"]["fabrics"]["f"]
