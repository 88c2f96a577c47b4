"""The burn-in: DCGM's stress plugins judged per test and per GPU, and the memory bandwidth floor from the catalog.

The burn-in JSON here is built, not real: DCGM 4's `dcgmi diag -j` layout (`dcgmi/Diag.cpp`, key names in
`nvvs/include/NvvsJsonStrings.h`, github.com/NVIDIA/DCGM @ 72fa3fea), the test names of `nvvs/include/PluginStrings.h`
(`targeted_stress`, `targeted_power`, `memory_bandwidth`) and the failure wording of `dcgmlib/dcgm_errors.h`
(`DCGM_FR_STRESS_LEVEL_MSG`, `DCGM_FR_MEMORY_BANDWIDTH_MSG`). The `error_id`s below are placeholders: the checker
reads the words, not the ids.
"""

from __future__ import annotations

import json
from dataclasses import replace

from acceptance import check_folder
from acceptance.burnin import burn_in_argv
from acceptance.evidence import commands
from blueprints.catalog import load_catalog
from blueprints.loader import load_blueprint
from railyard.expectations import pool_expectation
from tests.acceptance.evidence import P5, ROOT, p5_folder

BURNING = replace(P5, burn_in_seconds=600, memory_bandwidth_floor_mbs=1909500)
STRESS_FAILED = "Max stress level of 41023.5 did not reach desired stress level of 50000.0 for GPU 3"
BANDWIDTH_LOW = "GPU 5 only achieved a memory bandwidth of 1402.17 GB/s, failing to meet 1909.50 GB/s for test 0"


def burn_in_json(failures: dict[tuple[str, int], str] | None = None, tests=("targeted_stress", "targeted_power", "memory_bandwidth")) -> str:
    """A burn-in's JSON on eight GPUs, every result `Pass` except the (test, GPU) pairs in `failures`, failed with that warning."""
    failures = failures or {}
    built = []
    for name in tests:
        results = []
        for gpu in range(8):
            result = {"entity_group": "GPU", "entity_group_id": 1, "entity_id": gpu, "status": "Pass"}
            if (name, gpu) in failures:
                result |= {"status": "Fail", "warnings": [{"warning": failures[name, gpu], "error_id": 0, "error_category": 0, "error_severity": 0}]}
            results.append(result)
        built.append({"name": name, "results": results, "test_summary": {"status": "Fail" if any(t == name for t, _ in failures) else "Pass"}})
    document = {
        "DCGM Diagnostic": {"test_categories": [{"category": "Stress", "tests": built}]},
        "entity_groups": [{"entity_group": "GPU", "entity_group_id": 1, "entities": [{"entity_id": gpu} for gpu in range(8)]}],
        "metadata": {"version": "4.2.3", "Driver Version Detected": "580.159.04"},
    }
    return json.dumps(document, indent=2)


def burning_folder(tmp_path, text: str | None):
    """The passing eight-GPU folder plus the burn-in's JSON (none where `text` is None)."""
    folder = p5_folder(tmp_path)
    if text is not None:
        (folder / "dcgmi-burn-in.json").write_text(text, encoding="utf-8")
    return folder


def observed(report, name: str) -> list[str]:
    return [check.observed for check in report.checks if check.name == name]


def test_a_burn_in_runs_the_three_stress_plugins_splitting_the_minutes_and_passing_the_floor():
    assert burn_in_argv(600, 1909500) == (
        "dcgmi",
        "diag",
        "-r",
        "targeted_stress,targeted_power,memory_bandwidth",
        "-p",
        "targeted_stress.test_duration=300;targeted_power.test_duration=300;memory_bandwidth.minimum_bandwidth=1909500",
        "-j",
    )
    assert burn_in_argv(60, None)[5] == "targeted_stress.test_duration=30;targeted_power.test_duration=30"


def test_the_burn_in_is_the_last_command_and_only_where_the_expectation_asks_for_one():
    assert [command.file for command in commands(BURNING)][-2:] == ["dcgmi-diag.json", "dcgmi-burn-in.json"]
    assert "dcgmi-burn-in.json" not in [command.file for command in commands(P5)]


def test_a_passing_burn_in_passes_both_checks(tmp_path):
    report = check_folder(BURNING, burning_folder(tmp_path, burn_in_json()))
    assert report.failed == ()
    assert observed(report, "gpu.burn-in") == ["16 results, none failed, on 8 GPUs"]
    assert observed(report, "gpu.memory-bandwidth") == ["8 results, none failed, on 8 GPUs"]
    [bandwidth] = [check for check in report.checks if check.name == "gpu.memory-bandwidth"]
    assert bandwidth.expected == "memory_bandwidth at least 1909500 MB/s on each of 8 GPUs"
    assert bandwidth.source == (
        "dcgmi diag -r targeted_stress,targeted_power,memory_bandwidth -p targeted_stress.test_duration=300;"
        "targeted_power.test_duration=300;memory_bandwidth.minimum_bandwidth=1909500 -j (dcgmi-burn-in.json)"
    )


def test_a_failed_stress_plugin_fails_the_burn_in_with_dcgms_words(tmp_path):
    report = check_folder(BURNING, burning_folder(tmp_path, burn_in_json({("targeted_stress", 3): STRESS_FAILED})))
    assert report.failed == ("gpu.burn-in",)
    assert observed(report, "gpu.burn-in") == [f"targeted_stress on GPU 3: Fail ({STRESS_FAILED})"]


def test_a_gpu_below_the_bandwidth_floor_fails_the_bandwidth_check_saying_what_it_achieved(tmp_path):
    report = check_folder(BURNING, burning_folder(tmp_path, burn_in_json({("memory_bandwidth", 5): BANDWIDTH_LOW})))
    assert report.failed == ("gpu.memory-bandwidth",)
    assert observed(report, "gpu.memory-bandwidth") == [f"memory_bandwidth on GPU 5: Fail ({BANDWIDTH_LOW})"]


def test_a_plugin_that_did_not_run_fails_and_says_which(tmp_path):
    report = check_folder(BURNING, burning_folder(tmp_path, burn_in_json(tests=("targeted_stress", "targeted_power"))))
    assert report.failed == ("gpu.memory-bandwidth",)
    assert observed(report, "gpu.memory-bandwidth") == ["memory_bandwidth did not run"]


def test_a_missing_burn_in_file_fails_as_missing_evidence_naming_the_command(tmp_path):
    report = check_folder(BURNING, burning_folder(tmp_path, None))
    assert report.failed == ("evidence.dcgmi-burn-in.json",)
    [missing] = [check for check in report.checks if not check.passed]
    assert missing.expected.startswith("the output of `dcgmi diag -r targeted_stress,targeted_power,memory_bandwidth -p ")


def test_an_unreadable_burn_in_fails_both_checks(tmp_path):
    report = check_folder(BURNING, burning_folder(tmp_path, "Error: unable to connect to host engine\n"))
    assert report.failed == ("gpu.burn-in", "gpu.memory-bandwidth")


def test_a_pool_with_burn_in_minutes_expects_the_burn_in_and_a_floor_of_057_of_the_catalogs_hbm_bandwidth():
    loaded = load_blueprint(str(ROOT / "blueprints" / "examples" / "adt-eks-capacity-block.yaml")).blueprint
    pools = [pool.model_copy(update={"acceptance": pool.acceptance.model_copy(update={"burn_in_minutes": 10})}) for pool in loaded.pools]
    blueprint = loaded.model_copy(update={"pools": pools})
    expectation = pool_expectation(blueprint, load_catalog(), "p5")
    assert (expectation.burn_in_seconds, expectation.memory_bandwidth_floor_mbs) == (600, 1909500)
    plain = pool_expectation(loaded, load_catalog(), "p5")
    assert (plain.burn_in_seconds, plain.memory_bandwidth_floor_mbs) == (None, None)
