"""Every pinned version sits in one table with its source, docs/pins.md shows exactly that table, and the compiler uses it."""

from __future__ import annotations

import re
from pathlib import Path

from blueprints.catalog.pins import load_pins
from blueprints.models.kubernetes import Kubernetes
from components.kubernetes import charts
from tests.blueprints.base import BASE, load

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "pins.md").read_text()


def _rows(header: str) -> list[list[str]]:
    section = DOCS[DOCS.index(header) :]
    table = [line for line in section.splitlines()[2:] if line.startswith("| ") and not line.startswith("| ---")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in table[1:]]


def test_every_pin_has_a_source():
    pins = load_pins()
    assert pins.kubernetes_source and all(pin.source for pin in pins.charts) and all(pin.source for pin in pins.addons)
    assert {pin.key for pin in pins.charts} == {
        "nvidia_device_plugin",
        "gpu_operator",
        "efa_device_plugin",
        "neuron",
        "fsx_csi_driver",
        "kueue",
        "dcgm_exporter",
        "karpenter",
        "nvidia_dra_driver",
    }
    assert [(pin.key, pin.reference) for pin in pins.images] == [
        ("neuron_monitor", "public.ecr.aws/neuron/neuron-monitor:1.3.0"),
        ("eks_ami", "al2023:v20260724"),  # Karpenter's amiSelectorTerms alias al2023@v20260724
        ("gate_keeper_python", "public.ecr.aws/docker/library/python:3.13-slim"),  # the node-gate keeper's and the acceptance checker's
        ("dcgm", "nvcr.io/nvidia/cloud-native/dcgm:4.5.3-1-ubuntu22.04"),  # the acceptance checker's DCGM diagnostic
        ("nccl_tests", "public.ecr.aws/hpc-cloud/nccl-tests:cuda13.1.2-efa1.50.0-ofiv1.21.1-ncclv2.31.2-1-testsv2.20.0"),  # acceptance fabric
        ("neuron_collectives", "public.ecr.aws/neuron/pytorch-training-neuronx:2.9.0-neuronx-py312-sdk2.27.1-ubuntu24.04"),  # Neuron fabric
    ]
    assert all(pin.source for pin in pins.images)


def test_the_docs_table_is_the_pins_table():
    pins = load_pins()
    charts_rows = _rows("## Helm charts")[: len(pins.charts)]
    assert [(row[0], row[1], row[4]) for row in charts_rows] == [(pin.chart, pin.version, pin.source) for pin in pins.charts]
    addons = _rows("## EKS managed add-ons")[: len(pins.addons)]
    calendar = [entry.version for entry in pins.kubernetes]
    assert addons == [[pin.name, *(pin.versions.get(version, "EKS default") for version in calendar), pin.source] for pin in pins.addons]
    images = _rows("## Container images")[: len(pins.images)]
    assert images == [[pin.image, pin.tag, pin.source] for pin in pins.images]
    versions = _rows("## EKS Kubernetes versions")[: len(pins.kubernetes)]
    assert [row[0] for row in versions] == [entry.version for entry in pins.kubernetes]
    assert f"Default: **{pins.default_kubernetes}**" in DOCS


def test_a_pinned_add_on_has_a_version_for_every_calendar_version_and_each_is_an_eks_build():
    pins = load_pins()
    calendar = {entry.version for entry in pins.kubernetes}
    for pin in pins.addons:
        assert set(pin.versions) in (set(), calendar), pin.name  # all of the calendar, or none (EKS's default)
        assert all(re.fullmatch(r"v\d+\.\d+\.\d+-eksbuild\.\d+", version) for version in pin.versions.values())
    assert {pin.name for pin in pins.addons if pin.versions} == {"vpc-cni", "coredns", "kube-proxy"}


def test_the_compiler_installs_the_pinned_versions():
    pins = load_pins()
    assert (charts.KUEUE.version, charts.NEURON.version, charts.EFA_DEVICE_PLUGIN.version) == (
        pins.chart("kueue").version,
        pins.chart("neuron").version,
        pins.chart("efa_device_plugin").version,
    )
    # The two versions the deploy audit could not find in the publishers' indexes are gone.
    assert charts.KUEUE.version != "0.19.7" and charts.NEURON.version != "1.10.0"
    assert all(re.fullmatch(r"v?\d+\.\d+\.\d+", pin.version) for pin in pins.charts)


def test_the_default_version_is_in_standard_support_through_the_examples_capacity_blocks():
    pins = load_pins()
    assert Kubernetes().version == pins.default_kubernetes
    entry = pins.eks_version(pins.default_kubernetes)
    assert entry is not None and str(entry.end_of_standard) > "2026-12-15"  # p5-capacity-block's block ends 2026-12-15


def _version_findings(version: str, start: str = "2026-12-01", end: str = "2026-12-08") -> dict[str, str]:
    text = BASE.replace("kubernetes:\n", f'kubernetes:\n  version: "{version}"\n')
    text = text.replace("start: 2026-12-01T", f"start: {start}T").replace("end: 2026-12-08T", f"end: {end}T")
    return {finding.code: finding.severity for finding in load(text).findings if finding.code.startswith("k8s.version")}


def test_a_version_past_standard_support_during_a_capacity_block_is_a_warning():
    # The base blueprint's block ends 2026-12-08; 1.33 left standard support on 2026-07-29.
    assert _version_findings("1.33") == {"k8s.version-extended-support": "warning"}
    assert _version_findings("1.34") == {"k8s.version-extended-support": "warning"}  # standard support ends 2026-12-02
    assert _version_findings("1.35") == {}


def test_a_version_whose_support_ends_during_a_capacity_block_is_refused():
    # 1.32's extended support ends 2027-03-23, inside a block from 2027-03-20 to 2027-03-27.
    assert _version_findings("1.32", "2027-03-20", "2027-03-27") == {"k8s.version-end-of-support": "error"}


def test_a_version_unknown_to_the_calendar_is_a_warning():
    assert _version_findings("1.29") == {"k8s.version-unknown": "warning"}
