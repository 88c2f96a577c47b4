"""The catalog says what AWS's data says, plus sourced facts the API lacks."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import pytest
import yaml

from blueprints.catalog import (
    CatalogError,
    ScaleUp,
    build_catalog,
    load_catalog,
)
from blueprints.catalog.documented_types import documented_files
from blueprints.catalog.generate import SUPPORTED_FAMILIES, family_of, load_source, trim_entry
from blueprints.catalog.model import CONFIDENCES, advertised_gbps, api_fields
from blueprints.source import load_data

CATALOG_DIR = Path(__file__).resolve().parents[2] / "blueprints" / "catalog"
FACT_KEYS_PER_ACCELERATOR = ("tdp_watts", "bf16_dense_tflops", "hbm_bandwidth_tbps")
FACT_KEYS_PER_FAMILY = ("scale_up", "typical_node_kw", "topology_layers")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def moto_entries() -> dict:
    entries, _, _, _ = load_source("moto")
    return entries


@pytest.fixture(scope="module")
def source_entries(moto_entries) -> dict:
    """What the generator builds from: moto's dump, and the documented answers for the types it lacks."""
    documented = {name: entry for path in documented_files() for name, entry in load_source(str(path))[0].items()}
    return {**documented, **moto_entries}


@pytest.fixture(scope="module")
def committed() -> dict:
    return json.loads((CATALOG_DIR / "instance_types.json").read_bytes())


@pytest.fixture(scope="module")
def facts() -> dict:
    return yaml.safe_load((CATALOG_DIR / "accelerator_facts.yaml").read_text())


# --- the committed data is AWS's data ------------------------------------------------


@pytest.mark.parametrize("family", SUPPORTED_FAMILIES)
def test_committed_entries_equal_the_source_on_every_field_the_model_uses(family, source_entries, committed):
    source_names = sorted(n for n in source_entries if family_of(n) == family)
    committed_names = sorted(n for n in committed["instance_types"] if family_of(n) == family)
    assert committed_names == source_names and source_names
    for name in source_names:
        committed_entry = committed["instance_types"][name]
        assert api_fields(committed_entry) == api_fields(source_entries[name]), name
        assert committed_entry == trim_entry(source_entries[name]), name


# --- specific facts ------------------------------------------------------------------


def test_p5_48xlarge_has_32_cards_all_allowing_efa_and_32_efa_max(catalog):
    p5 = catalog.get("p5.48xlarge")
    assert len(p5.network_cards) == 32
    assert all(card.supports_efa for card in p5.network_cards)
    assert p5.efa_card_indices == tuple(range(32))
    assert p5.max_efa_interfaces == 32


@pytest.mark.parametrize(
    ("name", "efa_max"),
    [("p5en.48xlarge", 16), ("trn2.48xlarge", 16), ("g5.48xlarge", 1), ("p6-b200.48xlarge", 8), ("p4d.24xlarge", 4), ("trn1.32xlarge", 8)],
)
def test_max_efa_interfaces_match_ec2(catalog, name, efa_max):
    assert catalog.get(name).max_efa_interfaces == efa_max


def test_p6_b300_card_0_is_interface_only_and_cards_1_to_16_carry_efa(catalog):
    b300 = catalog.get("p6-b300.48xlarge")
    assert len(b300.network_cards) == 17
    assert b300.network_cards[0].interface_types == ("interface",)
    assert b300.network_cards[0].supports_efa is False
    assert b300.efa_card_indices == tuple(range(1, 17))
    assert b300.max_efa_interfaces == 16
    assert (b300.network_gbps, b300.cards_gbps) == (16 * 400, 350 + 16 * 400)  # EFA's 6400; card 0 is ENA-only


def test_inf2_48xlarge_has_no_efa(catalog):
    inf2 = catalog.get("inf2.48xlarge")
    assert inf2.efa_supported is False
    assert inf2.max_efa_interfaces == 0
    assert inf2.efa_card_indices == ()
    assert inf2.instance_store is None


@pytest.mark.parametrize(
    ("name", "layers"),
    [
        ("p5.48xlarge", 3),
        ("p6-b200.48xlarge", 4),
        ("p6-b300.48xlarge", 4),
        ("g5.48xlarge", 0),
        ("inf2.48xlarge", 0),
        ("g6.48xlarge", 0),
        ("g6e.xlarge", 3),
        ("trn2u.48xlarge", 3),
        ("p5.4xlarge", 0),
        ("trn2.3xlarge", 0),
        ("trn1.2xlarge", 3),
        ("p6e-gb200.36xlarge", 3),
    ],
)
def test_topology_layers_follow_the_ec2_topology_page(catalog, name, layers):
    assert catalog.get(name).topology_layers == layers


@pytest.mark.parametrize(
    ("name", "ami_type", "resource"),
    [
        ("p5.48xlarge", "AL2023_x86_64_NVIDIA", "nvidia.com/gpu"),
        ("trn2.48xlarge", "AL2023_x86_64_NEURON", "aws.amazon.com/neuron"),
        ("inf2.48xlarge", "AL2023_x86_64_NEURON", "aws.amazon.com/neuron"),
        ("trn2u.48xlarge", "AL2023_x86_64_NEURON", "aws.amazon.com/neuron"),
        ("p6e-gb200.36xlarge", "AL2023_ARM_64_NVIDIA", "nvidia.com/gpu"),
    ],
)
def test_ami_type_and_device_resource_follow_the_accelerator(catalog, name, ami_type, resource):
    instance = catalog.get(name)
    assert instance.ami_type == ami_type
    assert instance.accelerator_resource == resource


def test_ami_type_uses_arm_and_standard_variants(catalog):
    p5 = catalog.get("p5.48xlarge")
    assert dataclasses.replace(p5, architecture="arm64").ami_type == "AL2023_ARM_64_NVIDIA"
    bare = dataclasses.replace(p5, accelerator=None)
    assert bare.ami_type == "AL2023_x86_64_STANDARD"
    assert dataclasses.replace(bare, architecture="arm64").ami_type == "AL2023_ARM_64_STANDARD"
    assert bare.accelerator_count == 0 and bare.accelerator_resource is None


def test_p5_48xlarge_api_fields(catalog):
    p5 = catalog.get("p5.48xlarge")
    assert (p5.family, p5.vcpus, p5.memory_mib, p5.architecture) == ("p5", 192, 2097152, "x86_64")
    assert (p5.accelerator.vendor, p5.accelerator.kind, p5.accelerator.model) == ("nvidia", "gpu", "H100")
    assert (p5.accelerator_count, p5.accelerator.memory_mib) == (8, 81920)
    assert p5.instance_store.disk_count == 8 and p5.instance_store.total_gb == 30400
    assert p5.placement_strategies == ("cluster", "partition", "spread")
    assert p5.usage_classes == ("capacity-block", "on-demand", "spot")
    assert p5.supports_capacity_blocks is True
    assert (p5.max_network_interfaces, p5.ipv4_per_interface, p5.network_gbps) == (64, 50, 3200)


def test_g5_is_not_sold_as_capacity_blocks(catalog):
    assert catalog.get("g5.48xlarge").supports_capacity_blocks is False


def test_trn2_device_memory_is_the_96_gib_the_neuron_docs_give_not_the_512_ec2_reports(catalog):
    trainium2 = catalog.get("trn2.48xlarge").accelerator
    assert (trainium2.count, trainium2.memory_mib, trainium2.neuron_cores) == (16, 98304, 8)
    assert (trainium2.total_neuron_cores, trainium2.total_memory_mib) == (128, 16 * 98304)
    correction = catalog.get("trn2.48xlarge").fact("accelerator_memory_mib")
    assert (correction.value, correction.confidence) == (98304, "verified")
    assert "trainium2.rst (96 GiB" in correction.source
    rows = {row["name"]: row["accelerators"] for row in catalog.rows()}
    assert [rows[name] for name in ("trn2.3xlarge", "trn2.48xlarge", "trn2u.48xlarge")] == [
        "1x Trainium2 96GiB",
        "16x Trainium2 96GiB",
        "16x Trainium2 96GiB",
    ]


def test_a_memory_correction_the_api_data_no_longer_needs_is_refused(committed, facts):
    stale = copy.deepcopy(facts)
    stale["families"]["trn2"]["accelerator_memory_correction"]["api_reports_mib"] = 123
    with pytest.raises(
        CatalogError, match=r"families\.trn2\.accelerator_memory_correction\.api_reports_mib is 123, but EC2 now reports 524288 MiB per Trainium2"
    ):
        build_catalog(committed, stale)


def test_trn2u_accelerator_comes_from_the_sourced_stand_in_because_ec2_omits_it(catalog):
    trn2u = catalog.get("trn2u.48xlarge")
    assert (trn2u.accelerator.model, trn2u.accelerator.count) == ("Trainium2", 16)
    assert trn2u.fact("accelerator").confidence == "secondary"
    assert catalog.get("trn2.48xlarge").fact("accelerator") is None


def test_scale_up_spans_instances_only_on_the_ultraserver_types(catalog):
    assert catalog.get("trn2u.48xlarge").scale_up == ScaleUp("neuronlink", 64, 8192, 4)
    assert catalog.get("p6e-gb200.36xlarge").scale_up == ScaleUp("nvlink", 72, 14400, 18)
    assert catalog.get("p5.48xlarge").scale_up == ScaleUp("nvlink", 8, 7200, 1)
    spanning = {name for name, spec in catalog.items() if spec.scale_up and spec.scale_up.instances_per_domain > 1}
    assert spanning == {"trn2u.48xlarge", "p6e-gb200.36xlarge"}


def test_smaller_sizes_clip_the_scale_up_domain_and_scale_node_power(catalog):
    g5 = catalog.get("g5.xlarge")
    assert g5.scale_up == ScaleUp("pcie", 1, 504, 1)
    assert g5.typical_node_kw == round(3.4 / 8, 2)
    assert g5.fact("typical_node_kw").confidence == "unsure"
    assert "Scaled from g5.48xlarge" in g5.fact("typical_node_kw").note


def test_accelerator_facts_are_joined_by_model_and_family(catalog):
    assert catalog.get("p4d.24xlarge").hbm_bandwidth_tbps == 1.555
    assert catalog.get("p4de.24xlarge").hbm_bandwidth_tbps == 2.039
    h100 = catalog.get("p5.48xlarge")
    assert (h100.tdp_watts, h100.bf16_dense_tflops, h100.hbm_bandwidth_tbps) == (700, 989, 3.35)
    assert catalog.get("trn1.32xlarge").tdp_watts is None


# --- the facts file ------------------------------------------------------------------


def _fact_nodes(facts: dict):
    """Every (where, mapping) in the facts file that must carry a source."""
    for key, accelerator in facts["accelerators"].items():
        for name in FACT_KEYS_PER_ACCELERATOR:
            yield f"accelerators.{key}.{name}", accelerator.get(name)
    for family, entry in facts["families"].items():
        for name in FACT_KEYS_PER_FAMILY:
            yield f"families.{family}.{name}", entry.get(name)
        for optional in ("accelerator_when_api_omits", "accelerator_memory_correction", "efa_cards"):
            if entry.get(optional) is not None:
                yield f"families.{family}.{optional}", entry[optional]


def test_every_non_api_fact_has_a_source_and_a_confidence(facts):
    for where, node in _fact_nodes(facts):
        assert isinstance(node, dict), where
        assert isinstance(node.get("source"), str) and node["source"].strip(), where
        assert node.get("confidence") in CONFIDENCES, where


def test_every_supported_family_has_facts_and_nothing_else_does(facts):
    assert set(facts["families"]) == set(SUPPORTED_FAMILIES)


def test_every_loaded_fact_carries_its_provenance(catalog):
    for name in catalog.names():
        instance = catalog.get(name)
        fact_names = {fact.name for fact in instance.facts}
        assert set(FACT_KEYS_PER_ACCELERATOR + FACT_KEYS_PER_FAMILY) <= fact_names, name


def test_a_family_without_facts_is_refused(committed, facts):
    broken = copy.deepcopy(facts)
    del broken["families"]["g6"]
    with pytest.raises(CatalogError, match=r"g6\.\w+: family 'g6' has no entry"):
        build_catalog(committed, broken)


def test_a_fact_without_a_source_is_refused(committed, facts):
    broken = copy.deepcopy(facts)
    del broken["accelerators"]["H100"]["tdp_watts"]["source"]
    with pytest.raises(CatalogError, match=r"accelerators\.H100\.tdp_watts has no source"):
        build_catalog(committed, broken)


def test_a_fact_with_an_unknown_confidence_is_refused(committed, facts):
    broken = copy.deepcopy(facts)
    broken["families"]["p5"]["scale_up"]["confidence"] = "probably"
    with pytest.raises(CatalogError, match=r"families\.p5\.scale_up confidence 'probably'"):
        build_catalog(committed, broken)


def test_an_accelerator_name_mismatch_between_ec2_and_facts_is_refused(committed, facts):
    broken = copy.deepcopy(facts)
    broken["families"]["p5"]["accelerator"] = "H200"
    with pytest.raises(CatalogError, match="EC2 reports accelerator 'H100'.*expects 'H200'"):
        build_catalog(committed, broken)


# --- the Catalog interface -----------------------------------------------------------


def test_closest_suggests_the_intended_name(catalog):
    assert "p5.48xlarge" in catalog.closest("p5.48xlarg")
    assert catalog.closest("p5.48xlarg")[0] == "p5.48xlarge"


def test_unknown_name_gives_none(catalog):
    assert catalog.get("p9.48xlarge") is None
    assert "p9.48xlarge" not in catalog


def test_names_are_sorted_and_families_are_the_supported_ones(catalog):
    assert catalog.names() == sorted(catalog.names())
    assert catalog.families() == sorted(SUPPORTED_FAMILIES)
    assert [it.name for it in catalog.in_family("trn2")] == ["trn2.3xlarge", "trn2.48xlarge"]


def test_provenance_is_the_generated_files(catalog, committed):
    assert catalog.provenance == committed["provenance"]


def test_as_json_is_deterministic_and_serialisable(catalog):
    first = json.dumps(catalog.as_json(), sort_keys=True)
    assert first == json.dumps(load_catalog().as_json(), sort_keys=True)
    p5 = catalog.as_json()["instance_types"]["p5.48xlarge"]
    assert p5["ami_type"] == "AL2023_x86_64_NVIDIA"
    assert p5["efa_card_indices"] == list(range(32))
    assert p5["facts"]["tdp_watts"]["confidence"] == "secondary"


def test_rows_give_a_flat_human_table(catalog):
    rows = {row["name"]: row for row in catalog.rows()}
    assert rows["p5.48xlarge"] == {
        "name": "p5.48xlarge",
        "accelerators": "8x H100 80GiB",
        "vcpus": 192,
        "memory_gib": 2048.0,
        "network_cards": 32,
        "efa_max": 32,
        "network_gbps": 3200.0,
        "nvme_gb": 30400,
        "scale_up": "nvlink x8 7200 Gbps",
        "node_kw": 10.2,
    }
    assert rows["inf2.48xlarge"]["nvme_gb"] is None
    assert rows["g5.48xlarge"]["accelerators"] == "8x A10G 22.4GiB"


def test_load_catalog_is_built_once_per_process():
    # Its speed is a benchmark's (bench/coldstart.py: the catalog's share of a cold validate), not a timed test's.
    assert load_catalog() is load_catalog()
    assert load_catalog.__wrapped__() is not load_catalog()


def test_every_instance_figure_is_its_cards_sum_or_the_difference_is_explained_with_a_source(catalog):
    """NetworkPerformance against the cards' baselines, type by type: equal, a burst ceiling above them, or explained."""
    explained = {}
    for name in catalog.names():
        spec = catalog.get(name)
        advertised = advertised_gbps(spec.network_performance)
        if advertised is None:
            assert spec.network_performance.startswith("Up to ") and spec.network_gbps == spec.cards_gbps, name
        elif advertised != spec.cards_gbps:
            fact = spec.fact("network_gbps")
            assert fact is not None and fact.source and fact.note, name
            explained[name] = (advertised, spec.cards_gbps)
        assert spec.network_gbps == (advertised if advertised is not None else spec.cards_gbps), name
    assert explained == {
        "g6e.24xlarge": (200, 400),
        "g6e.48xlarge": (400, 1600),
        "p6-b200.48xlarge": (3200, 1600),
        "p6-b300.48xlarge": (6400, 6750),
        "p6e-gb200.36xlarge": (3200, 4900),
        "trn2.3xlarge": (200, 50),
    }


def test_an_unexplained_difference_or_a_stale_explanation_refuses_the_catalog():
    document = json.loads((CATALOG_DIR / "instance_types.json").read_text())
    facts = load_data((CATALOG_DIR / "accelerator_facts.yaml").read_text())
    figures = facts["network_figures"]
    stale = {**facts, "network_figures": {**figures, "p6-b200.48xlarge": {**figures["p6-b200.48xlarge"], "cards_gbps": 3200}}}
    with pytest.raises(CatalogError, match="cards_gbps must be the cards' sum, 1600"):
        build_catalog(document, stale)
    missing = {**facts, "network_figures": {k: v for k, v in figures.items() if k != "p6-b200.48xlarge"}}
    with pytest.raises(CatalogError, match="p6-b200.48xlarge: NetworkPerformance '3200 Gigabit' is not its cards' sum"):
        build_catalog(document, missing)


def test_nodes_advertise_logical_neuroncores_at_the_default_lnc_two_per_trainium2_core_pair(catalog):
    """A trn2.48xlarge has 128 physical NeuronCores but presents 64 (LNC 2); trn1 and inf2 present every core (LNC 1)."""
    cores = {name: catalog.get(name).accelerator for name in ("trn2.48xlarge", "trn2.3xlarge", "trn1.32xlarge", "inf2.48xlarge")}
    assert {name: (a.total_neuron_cores, a.schedulable_neuron_cores) for name, a in cores.items()} == {
        "trn2.48xlarge": (128, 64),
        "trn2.3xlarge": (8, 4),
        "trn1.32xlarge": (32, 32),
        "inf2.48xlarge": (24, 24),
    }
    fact = catalog.get("trn2.48xlarge").fact("logical_neuroncore_config")
    assert (fact.value, fact.confidence) == (2, "verified") and "logical-neuroncore-config" in fact.source
    assert catalog.get("p5.48xlarge").accelerator.schedulable_neuron_cores is None


def test_a_neuron_accelerator_without_its_lnc_or_with_one_that_does_not_divide_its_cores_is_refused():
    document = json.loads((CATALOG_DIR / "instance_types.json").read_text("utf-8"))
    for broken, needle in ((None, "logical_neuroncore_config must be a mapping"), ({"value": 3, "confidence": "verified", "source": "x"}, "divides")):
        facts = load_data((CATALOG_DIR / "accelerator_facts.yaml").read_text("utf-8"))
        if broken is None:
            del facts["accelerators"]["Trainium2"]["logical_neuroncore_config"]
        else:
            facts["accelerators"]["Trainium2"]["logical_neuroncore_config"] = broken
        with pytest.raises(CatalogError, match=needle):
            build_catalog(document, facts)
