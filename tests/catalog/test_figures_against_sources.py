"""Every figure `railyard catalog` shows is held to the source it cites, where that source ships offline.

The instance figures cite EC2's DescribeInstanceTypes, as moto ships it (`moto/ec2/resources/instance_types.json.gz`):
each loaded instance type is compared field by field with moto's entry, read here straight from moto rather than
through the committed `instance_types.json`, so a figure typed or corrected by hand in `accelerator_facts.yaml` fails
unless it is one of the named corrections, each of which must record what the API says and cite another source.
A type moto's dump lacks (p6e-gb200) cites the answer assembled from AWS's documentation instead
(`blueprints/catalog/documented/`, every value sourced beside it), and is held to that file the same way.
"""

from __future__ import annotations

import pytest

from blueprints.catalog import load_catalog
from blueprints.catalog.documented_types import documented_files
from blueprints.catalog.generate import load_source
from blueprints.catalog.model import Accelerator, api_fields

# Figures taken from somewhere other than DescribeInstanceTypes, by instance type: the fact that says where.
CORRECTED = {"trn2.3xlarge": "accelerator_memory_mib", "trn2.48xlarge": "accelerator_memory_mib", "trn2u.48xlarge": "accelerator"}


@pytest.fixture(scope="module")
def moto_entries() -> dict:
    """moto's DescribeInstanceTypes entries, and for the types it lacks the documented answers the catalog cites."""
    entries, description, _, _ = load_source("moto")
    assert description.endswith("moto/ec2/resources/instance_types.json.gz")
    documented = {name: entry for path in documented_files() for name, entry in load_source(str(path))[0].items()}
    assert set(documented) == set(load_catalog().documented()) and not set(documented) & set(entries)
    return {**documented, **entries}


CATALOG_NAMES = load_catalog().names()


@pytest.mark.parametrize("name", CATALOG_NAMES)
def test_every_describe_instance_types_figure_equals_motos_entry(name, moto_entries):
    instance = load_catalog().get(name)
    expected = api_fields(moto_entries[name])
    shown = {key: getattr(instance, key) for key in expected}
    accelerator_from_api = expected.pop("accelerator")
    accelerator_shown = shown.pop("accelerator")
    # vCPUs, memory, network cards (each card's bandwidth, interfaces, EFA), EFA maximum, NVMe, placement, usage classes.
    assert shown == expected
    if name not in CORRECTED:
        assert accelerator_shown == accelerator_from_api
        assert instance.fact("accelerator") is None and instance.fact("accelerator_memory_mib") is None


def test_trn2_memory_differs_from_motos_only_by_its_sourced_correction(moto_entries):
    for name in ("trn2.3xlarge", "trn2.48xlarge"):
        instance = load_catalog().get(name)
        from_api = Accelerator.from_aws(moto_entries[name])
        assert from_api is not None and from_api.memory_mib == 524288
        assert instance.accelerator == Accelerator("aws", "neuron", "Trainium2", from_api.count, 98304, 8, logical_neuroncore_config=2)
        correction = instance.fact("accelerator_memory_mib")
        assert correction.value == 98304 and correction.source.startswith("https://github.com/aws-neuron/aws-neuron-sdk/")


def test_trn2u_accelerator_stands_in_only_because_motos_entry_has_none(moto_entries):
    assert Accelerator.from_aws(moto_entries["trn2u.48xlarge"]) is None
    stand_in = load_catalog().get("trn2u.48xlarge").fact("accelerator")
    assert stand_in.value == Accelerator("aws", "neuron", "Trainium2", 16, 98304, 8)
    assert stand_in.source.startswith("https://github.com/aws-neuron/aws-neuron-sdk/")


def test_every_correction_is_named_here_so_a_new_one_is_reviewed():
    corrected = {
        name: fact.name
        for name, instance in load_catalog().items()
        for fact in instance.facts
        if fact.name in ("accelerator", "accelerator_memory_mib")
    }
    assert corrected == CORRECTED


@pytest.mark.parametrize("name", CATALOG_NAMES)
def test_the_catalog_rows_are_motos_figures_unless_a_sourced_correction_names_them(name, moto_entries):
    entry = moto_entries[name]
    row = next(row for row in load_catalog().rows() if row["name"] == name)
    cards = entry["NetworkInfo"]["NetworkCards"]
    efa = entry["NetworkInfo"].get("EfaInfo", {}).get("MaximumEfaInterfaces", 0)
    assert (row["vcpus"], row["memory_gib"], row["network_cards"], row["efa_max"]) == (
        entry["VCpuInfo"]["DefaultVCpus"],
        round(entry["MemoryInfo"]["SizeInMiB"] / 1024, 1),
        len(cards),
        efa,
    )
    assert row["nvme_gb"] == entry.get("InstanceStorageInfo", {}).get("TotalSizeInGB")
