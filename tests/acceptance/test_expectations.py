"""The expectation and the fabric line railyard compiles from a blueprint's plan and the catalog, and the command that uses them."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from acceptance import Expectation
from blueprints.catalog import load_catalog
from blueprints.loader import load_blueprint
from railyard.cli import main
from railyard.expectations import ExpectationNeeds, fabric_line, pool_expectation
from tests.acceptance.evidence import EXAMPLE, FIXTURES, P5, ROOT, one_h100, p5_folder

EXAMPLES = ROOT / "blueprints" / "examples"


def _blueprint(name: str):
    blueprint = load_blueprint(EXAMPLES / f"{name}.yaml").blueprint
    assert blueprint is not None
    return blueprint


def _without_sources(expectation: Expectation) -> Expectation:
    return replace(expectation, sources=None)


def test_a_p5_48xlarge_pool_compiles_to_the_expectation_the_assembled_capture_passes():
    assert _without_sources(pool_expectation(_blueprint("p5-capacity-block"), load_catalog(), "train")) == P5


def test_every_figure_of_the_p5_expectation_names_its_source():
    sources = pool_expectation(_blueprint("p5-capacity-block"), load_catalog(), "train").sources or {}
    assert set(sources) == {
        "instance_type",
        "efa_devices",
        "accelerator_count",
        "accelerator_product",
        "memory_mib_min",
        "power_limit_w",
        "nvlinks_per_gpu",
        "pcie",
    }
    assert sources["efa_devices"] == "the plan's launch-template interfaces: 32 EFA on p5.48xlarge"


def test_the_one_h100_example_is_what_a_one_h100_pool_without_a_fabric_compiles_to(tmp_path):
    text = (EXAMPLES / "dev-g6e.yaml").read_text(encoding="utf-8").replace("instance_type: g6e.xlarge", "instance_type: p5.4xlarge")
    (tmp_path / "one-h100.yaml").write_text(text, encoding="utf-8")
    blueprint = load_blueprint(tmp_path / "one-h100.yaml").blueprint
    compiled = pool_expectation(blueprint, load_catalog(), "dev", "inventory")
    shipped = one_h100()
    assert replace(compiled, pool=shipped.pool, instance_type=shipped.instance_type, sources=shipped.sources) == shipped


def test_gddr_gpus_are_not_held_to_ecc_and_a_pool_without_a_fabric_expects_no_efa():
    dev = pool_expectation(_blueprint("dev-g6e"), load_catalog(), "dev")
    assert (dev.accelerator_model, dev.ecc, dev.efa_devices, dev.pcie_generation, dev.nvlinks_per_gpu) == ("L40S", None, 0, 4, None)


def test_a_trn2_pool_expects_its_devices_physical_cores_and_efa():
    trn = pool_expectation(_blueprint("heterogeneous"), load_catalog(), "trainium", "inventory")
    assert (trn.accelerator_kind, trn.accelerator_count, trn.neuron_cores, trn.efa_devices) == ("neuron", 16, 128, 16)


def test_an_unknown_pool_is_refused_with_a_suggestion():
    with pytest.raises(ExpectationNeeds, match=r"^no pool 'trian' in the blueprint; did you mean 'train'\? \(pools: train\)$"):
        pool_expectation(_blueprint("p5-capacity-block"), load_catalog(), "trian")


@pytest.mark.parametrize(
    ("example", "pool", "gbps", "line"), [("p5-capacity-block", "train", 3200.0, 320.0), ("rail-131k", "frontier", 3200.0, 320.0)]
)
def test_the_fabric_line_is_a_fraction_of_the_nodes_efa_cards(example, pool, gbps, line):
    fabric = fabric_line(_blueprint(example), load_catalog(), pool)
    assert (fabric.efa_gbps, fabric.line_gbs) == (gbps, line)


def test_published_two_node_p5_runs_clear_the_p5_line_as_a_sanity_check_must():
    # acceptance-conformance.md F1 (487.09 @ 16 GiB), F2 (437.79 @ 2 GiB), F4 (480.87 @ 16 GiB): NCCL's default algorithm.
    line = fabric_line(_blueprint("p5-capacity-block"), load_catalog(), "train").line_gbs
    assert [figure >= line for figure in (487.09, 437.79, 480.87)] == [True, True, True]


def test_a_pool_without_efa_has_no_fabric_line():
    with pytest.raises(ExpectationNeeds, match=r"^pool 'dev' \(g6e.xlarge\) joins no EFA fabric: its nodes have no EFA interface to test$"):
        fabric_line(_blueprint("dev-g6e"), load_catalog(), "dev")


def test_railyard_acceptance_check_accepts_the_assembled_p5_node(tmp_path, capsys):
    status = main(["acceptance", "check", str(EXAMPLES / "p5-capacity-block.yaml"), "--pool", "train", "--from", str(p5_folder(tmp_path)), "--json"])
    assert (status, json.loads(capsys.readouterr().out)["failed"]) == (0, [])


def test_railyard_acceptance_check_with_an_expectation_file_judges_the_real_capture(capsys):
    status = main(["acceptance", "check", "--expect", str(EXAMPLE / "expectation.json"), "--from", str(EXAMPLE)])
    assert (status, capsys.readouterr().out.splitlines()[-1]) == (0, "ACCEPTED")


def test_railyard_acceptance_check_rejects_a_node_missing_its_evidence(tmp_path, capsys):
    status = main(["acceptance", "check", str(EXAMPLES / "p5-capacity-block.yaml"), "--pool", "train", "--from", str(tmp_path)])
    last = capsys.readouterr().out.splitlines()[-1]
    assert status == 1
    assert last.startswith(
        "REJECTED (5 failed: evidence.nvidia-smi-q.xml, evidence.nvidia-smi-nvlink-s.txt, evidence.dmesg.txt, evidence.rdma-devices.txt"
    )


@pytest.mark.parametrize(("log", "status"), [("p5-two-nodes-efa.log", 0), ("tcp-fallback.log", 1)])
def test_railyard_acceptance_judge_holds_a_run_to_the_pools_line(capsys, log, status):
    args = ["acceptance", "judge", str(FIXTURES / "nccl" / log), str(EXAMPLES / "p5-capacity-block.yaml"), "--pool", "train"]
    assert main(args) == status
    assert capsys.readouterr().out.splitlines()[0] == "pool train: line 320.0 GB/s = 0.8 x 3200 Gbps of EFA / 8 (to calibrate on hardware)"


def test_railyard_acceptance_without_a_pool_is_an_input_error(capsys):
    assert main(["acceptance", "expect", str(EXAMPLES / "p5-capacity-block.yaml")]) == 2
    assert capsys.readouterr().err == "railyard acceptance expect: --pool is required with a blueprint (or give `check` an --expect file)\n"


def test_a_bad_expectation_file_is_reported_with_its_path_and_the_field(tmp_path, capsys):
    bad = tmp_path / "expectation.json"
    bad.write_text('{"pool": "p", "instance_type": "t", "efa_device": 32}', encoding="utf-8")
    assert main(["acceptance", "check", "--expect", str(bad), "--from", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(f"{bad}: not a usable expectation: unknown field(s) ['efa_device']; allowed: [")


def test_expect_write_gives_one_file_per_pool_the_same_bytes_each_time(tmp_path, capsys):
    blueprint = str(EXAMPLES / "heterogeneous.yaml")
    assert main(["acceptance", "expect", blueprint, "--write", str(tmp_path / "a")]) == 0
    assert main(["acceptance", "expect", blueprint, "--write", str(tmp_path / "b"), "--level", "standard"]) == 0
    written = sorted(path.name for path in (tmp_path / "a").iterdir())
    assert written == ["h200.json", "serve.json", "trainium.json"]
    assert [(tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes() for name in written] == [True] * 3
    assert Expectation.from_json((tmp_path / "a" / "h200.json").read_text()) == pool_expectation(_blueprint("heterogeneous"), load_catalog(), "h200")


@pytest.mark.parametrize(
    ("example", "pool", "model", "product"),
    [
        ("p5-capacity-block", "train", "H100", "NVIDIA H100 80GB HBM3"),
        ("existing-infrastructure", "train", "H200", "NVIDIA H200"),
        ("p6e-gb200-nvl72", "nvl72", "GB200", "NVIDIA GB200"),
        # No real output of this family's GPU was read: the model word alone is held.
        ("dev-g6e", "dev", "L40S", None),
    ],
)
def test_the_expectation_holds_the_whole_product_name_only_where_a_real_output_shows_it(example, pool, model, product):
    expectation = pool_expectation(_blueprint(example), load_catalog(), pool)
    assert (expectation.accelerator_model, expectation.accelerator_product) == (model, product)
    assert ("accelerator_product" in (expectation.sources or {})) is (product is not None)
