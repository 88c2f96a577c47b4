"""p6e-gb200 ships from AWS's documentation: every value of its answer is sourced, and the catalog reads it as AWS documents it."""

from __future__ import annotations

import copy
import json

import pytest

from blueprints.catalog import DATA_DIR, FACTS_FILE, CatalogError, ScaleUp, build_catalog, load_catalog
from blueprints.catalog.documented_types import confidence_of, coverage_problems, documented_files, expand, sources_file
from blueprints.source import load_data

ANSWER = DATA_DIR / "documented" / "p6e-gb200.json"
GB200 = "p6e-gb200.36xlarge"


@pytest.fixture(scope="module")
def entry() -> dict:
    [only] = json.loads(ANSWER.read_text("utf-8"))["InstanceTypes"]
    return only


@pytest.fixture(scope="module")
def sources() -> dict:
    return load_data(sources_file(ANSWER).read_text("utf-8"))


def _leaves(value, path=""):
    """Every (path, value) of a JSON document, a list of plain values counting as one; written apart from the module's walker."""
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in _leaves(item, f"{path}.{key}".lstrip("."))]
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [leaf for index, item in enumerate(value) for leaf in _leaves(item, f"{path}[{index}]")]
    return [(path, value)]


def test_the_shipped_documented_answers_are_p6e_gb200_only():
    assert documented_files() == (ANSWER,)
    assert load_catalog().documented() == [GB200]


def test_every_value_of_the_answer_has_a_source_entry_and_every_source_entry_a_value(entry, sources):
    named = [path for key in sources["fields"] for path in expand(key)]
    assert len(named) == len(set(named))
    assert set(named) == {path for path, _ in _leaves(entry)}
    assert coverage_problems(entry, sources) == []


def test_every_source_entry_cites_a_named_source_with_a_quote_and_a_confidence(sources):
    for key, raw in sources["fields"].items():
        assert raw["source"] in sources["sources"], key
        assert raw["quote"].strip() and raw["confidence"] in ("documented", "secondary", "derived", "assumed"), key
    assert {source["url"].split("/")[2] for source in sources["sources"].values()} == {"docs.aws.amazon.com", "github.com"}


def test_what_no_source_gives_is_left_out_and_listed(entry, sources):
    present = {path for path, _ in _leaves(entry)}
    assert {"NetworkInfo.Ipv6AddressesPerInterface", "ProcessorInfo.Manufacturer", "PlacementGroupInfo.SupportedStrategies"} <= set(
        sources["not_published"]
    )
    assert not any(path.startswith(("NetworkInfo.Ipv6AddressesPerInterface", "ProcessorInfo.Manufacturer", "PlacementGroupInfo")) for path in present)


def test_the_values_no_document_states_are_marked_derived_secondary_or_assumed(sources):
    assert confidence_of(sources, "NetworkInfo.NetworkCards[0].MaximumNetworkInterfaces") == "derived"  # 39 - 8 x 1 - 8 x 2
    assert confidence_of(sources, "NetworkInfo.NetworkCards[7].MaximumNetworkInterfaces") == "secondary"  # an AWS engineer's review comment
    assert confidence_of(sources, "GpuInfo.Gpus[0].Name") == "assumed"
    assert confidence_of(sources, "GpuInfo.Gpus[0].MemoryInfo.SizeInMiB") == "derived"  # 185 GiB
    assert confidence_of(sources, "NetworkInfo.EfaInfo.MaximumEfaInterfaces") == "secondary"
    assert confidence_of(sources, "SupportedUsageClasses") == "assumed"
    assert confidence_of(sources, "VCpuInfo.DefaultVCpus") == "documented"


def test_coverage_problems_name_a_value_without_source_a_source_without_value_and_a_listed_gap_that_is_filled(entry, sources):
    changed = copy.deepcopy(entry)
    changed["NetworkInfo"]["Ipv6AddressesPerInterface"] = 50
    del changed["HibernationSupported"]
    assert coverage_problems(changed, sources) == [
        "NetworkInfo.Ipv6AddressesPerInterface has no source entry",
        "fields.HibernationSupported names HibernationSupported, which the answer does not have",
        "not_published.NetworkInfo.Ipv6AddressesPerInterface names NetworkInfo.Ipv6AddressesPerInterface, which the answer has",
    ]
    careless = copy.deepcopy(sources)
    careless["fields"]["BareMetal"] = {"source": "a blog", "quote": "no", "confidence": "documented"}
    careless["fields"]["Hypervisor"]["confidence"] = "likely"
    assert coverage_problems(entry, careless) == [
        "fields.BareMetal needs a source named under `sources` and a quote",
        "fields.Hypervisor confidence 'likely' is not one of documented, secondary, derived, assumed",
    ]


def test_the_catalog_reads_p6e_gb200_as_aws_documents_it():
    gb200 = load_catalog().get(GB200)
    accelerator = gb200.accelerator
    assert (accelerator.vendor, accelerator.model, accelerator.count, accelerator.memory_mib) == ("nvidia", "B200", 4, 185 * 1024)
    assert (gb200.vcpus, gb200.memory_mib, gb200.architecture, gb200.ami_type) == (144, 960 * 1024, "arm64", "AL2023_ARM_64_NVIDIA")
    assert (len(gb200.network_cards), gb200.max_network_interfaces, gb200.ipv4_per_interface) == (17, 39, 50)
    card_zero, *others = gb200.network_cards
    assert (card_zero.interface_types, card_zero.baseline_gbps, card_zero.supports_efa) == (("interface",), 100, False)
    assert {(card.index, card.interface_types, card.baseline_gbps) for card in others if card.index % 2} == {
        (index, ("efa-only",), 400) for index in range(1, 17, 2)
    }
    assert {card.baseline_gbps for card in others if card.index % 2 == 0} == {200}
    assert (gb200.max_efa_interfaces, gb200.efa_card_indices) == (16, tuple(range(1, 17)))
    # AWS's layout: one EFA on a card of each GPU's pair, 4 x 400 Gbps.
    assert (gb200.efa_layout_cards, gb200.efa_devices) == ((1, 5, 9, 13), 4)
    cards = {card.index: card for card in gb200.network_cards}
    assert sum(cards[index].baseline_gbps for index in gb200.efa_layout_cards) == 1600
    assert (gb200.network_gbps, gb200.cards_gbps) == (3200, 4900)
    assert gb200.scale_up == ScaleUp("nvlink", 72, 14400, 18)
    assert (gb200.topology_layers, gb200.typical_node_kw, gb200.tdp_watts) == (3, 6.67, 1000)
    assert gb200.usage_classes == ("capacity-block",) and gb200.supports_capacity_blocks
    assert (gb200.instance_store.disk_count, gb200.instance_store.total_gb) == (3, 22500)


def test_each_p6e_gb200_fact_names_its_source():
    gb200 = load_catalog().get(GB200)
    assert "efa-acc-inst-types.html#efa-for-p6e" in gb200.fact("efa_cards").source
    assert gb200.fact("efa_cards").confidence == "verified"
    assert "u-p6e-gb200x72" in gb200.fact("scale_up").source and "x36" in gb200.fact("scale_up").note
    assert "ec2-instance-topology-prerequisites" in gb200.fact("topology_layers").source
    assert "maxLoadWatts: 6667" in gb200.fact("typical_node_kw").source and gb200.fact("typical_node_kw").confidence == "unsure"
    assert "physical NIC" in gb200.fact("network_gbps").note


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ([0, 5, 9, 13], r"efa_cards names card 0, which can't carry an EFA interface \(\['interface'\]\)"),
        ([1, 5, 9, 17], r"efa_cards names card 17, which can't carry an EFA interface \(no such card\)"),
        ([1, 1, 9, 13], r"efa_cards must list network card indices, each once, not \[1, 1, 9, 13\]"),
        ([], r"efa_cards must list network card indices, each once, not \[\]"),
    ],
)
def test_a_recommended_efa_card_that_cannot_carry_efa_is_refused(cards, message):
    document = json.loads((DATA_DIR / "instance_types.json").read_text("utf-8"))
    facts = load_data((DATA_DIR / FACTS_FILE).read_text("utf-8"))
    facts["families"]["p6e-gb200"]["efa_cards"]["value"] = cards
    with pytest.raises(CatalogError, match=message):
        build_catalog(document, facts)


def test_without_a_recommended_subset_every_efa_card_carries_one():
    document = json.loads((DATA_DIR / "instance_types.json").read_text("utf-8"))
    facts = load_data((DATA_DIR / FACTS_FILE).read_text("utf-8"))
    del facts["families"]["p6e-gb200"]["efa_cards"]
    gb200 = build_catalog(document, facts).get(GB200)
    assert gb200.efa_layout_cards == tuple(range(1, 17)) and gb200.fact("efa_cards") is None


def test_a_pool_on_a_documented_type_gets_a_note_saying_so_and_an_api_answered_one_does_not():
    from blueprints.rules import run_blueprint_rules
    from tests.topology.factory import blueprint, pool

    zone = {"name": "za", "availability_zone": "us-east-1a"}
    design = blueprint([zone], [pool("g", GB200, 36, ["za"]), pool("h", "p5.48xlarge", 2, ["za"])])
    [note] = [finding for finding in run_blueprint_rules(design, load_catalog()) if finding.code == "pool.documented-instance-type"]
    assert (note.severity, note.path) == ("info", ("pools", 0, "instance_type"))
    assert note.message.startswith(f"{GB200}'s catalog entry is assembled from AWS's documentation, not a DescribeInstanceTypes answer")
    assert "python -m blueprints.catalog.generate --add FILE" in note.hint
