"""The burn-in's verdicts (acceptance/burnin.py) called directly, where mutation testing found them unheld: both checks'
exact words with and without a bandwidth floor, DCGM 3's spelling of the test names, a warning with and without its
text, a plugin that did not run, results one GPU short, a runtime error, no burn-in minutes, output that is not the
document, and the argv's equal split of the minutes (an odd second included)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from acceptance.burnin import burn_in_argv, burn_in_checks
from acceptance.report import Checks
from tests.acceptance.evidence import P5

BURNING = dataclasses.replace(P5, burn_in_seconds=600, memory_bandwidth_floor_mbs=1909500)
STRESS = "targeted_stress and targeted_power for 300 s each: none failed or warned, on 8 GPUs"
FLOOR = "memory_bandwidth at least 1909500 MB/s on each of 8 GPUs"


def _document(tests: dict[str, list[dict]], **root) -> str:
    built = [{"name": name, "results": results} for name, results in tests.items()]
    return json.dumps({"DCGM Diagnostic": {"test_categories": [{"category": "Stress", "tests": built}], **root}})


def _passing(gpus: int = 8, **status) -> list[dict]:
    return [{"entity_group": "GPU", "entity_id": gpu, "status": status.get(str(gpu), "Pass")} for gpu in range(gpus)]


def _made(text: str, expectation=BURNING) -> list[tuple[str, bool, str, str]]:
    checks = Checks(source="dcgmi diag (dcgmi-burn-in.json)")
    burn_in_checks(expectation, text, checks)
    return [(c.name, c.passed, c.expected, c.observed) for c in checks.made]


def test_three_plugins_passing_on_eight_gpus_pass_both_checks_in_these_words():
    text = _document({"targeted_stress": _passing(), "targeted_power": _passing(), "memory_bandwidth": _passing()})
    assert _made(text) == [
        ("gpu.burn-in", True, STRESS, "16 results, none failed, on 8 GPUs"),
        ("gpu.memory-bandwidth", True, FLOOR, "8 results, none failed, on 8 GPUs"),
    ]


def test_dcgm_3s_spelling_of_the_test_names_is_the_same_test():
    text = _document({" Targeted Stress ": _passing(), "Targeted Power": _passing(), "Memory Bandwidth": _passing()})
    assert [passed for _, passed, _, _ in _made(text)] == [True, True]


def test_without_a_floor_the_bandwidth_is_held_to_dcgms_own_and_without_minutes_each_plugin_gets_zero():
    bare = dataclasses.replace(P5, burn_in_seconds=None, memory_bandwidth_floor_mbs=None)
    text = _document({"targeted_stress": _passing(), "targeted_power": _passing(), "memory_bandwidth": _passing()})
    assert [expected for _, _, expected, _ in _made(text, bare)] == [
        "targeted_stress and targeted_power for 0 s each: none failed or warned, on 8 GPUs",
        "memory_bandwidth passes DCGM's own floor for the SKU on 8 GPUs",
    ]


@pytest.mark.parametrize("status", ["Warn", "FAIL"])
def test_a_warning_or_failure_with_dcgms_words_and_one_without_fail_naming_the_test_and_gpu(status):
    stress = _passing()
    stress[3]["status"] = status
    stress[3]["warnings"] = [{"warning": "Max stress level of 41023.5 did not reach desired stress level of 50000.0 for GPU 3"}]
    power = _passing(**{"6": status})
    text = _document({"targeted_stress": stress, "targeted_power": power, "memory_bandwidth": _passing()})
    assert _made(text)[0] == (
        "gpu.burn-in",
        False,
        STRESS,
        f"targeted_stress on GPU 3: {status} (Max stress level of 41023.5 did not reach desired stress level of 50000.0 for GPU 3); "
        f"targeted_power on GPU 6: {status}",
    )


def test_a_plugin_that_did_not_run_fails_its_check_by_name_and_results_one_gpu_short_fail_too():
    text = _document({"targeted_stress": _passing(), "memory_bandwidth": _passing(7)})
    assert [(name, passed, seen) for name, passed, _, seen in _made(text)] == [
        ("gpu.burn-in", False, "targeted_power did not run"),
        ("gpu.memory-bandwidth", False, "results for 7 GPUs"),
    ]


def test_with_no_gpu_count_any_number_of_gpus_passes():
    text = _document({"targeted_stress": _passing(2), "targeted_power": _passing(2), "memory_bandwidth": _passing(2)})
    assert [passed for _, passed, _, _ in _made(text, dataclasses.replace(BURNING, accelerator_count=None))] == [True, True]


def test_a_runtime_error_fails_both_checks_with_its_words():
    text = _document({"targeted_stress": _passing(), "targeted_power": _passing(), "memory_bandwidth": _passing()}, runtime_error="GPU 2 is in use")
    assert [(passed, seen) for _, passed, _, seen in _made(text)] == [(False, "runtime error: GPU 2 is in use")] * 2


def test_output_that_is_not_the_document_fails_both_checks_quoting_it():
    seen = "unreadable (no JSON object); it printed 'dcgmi: command not found'"
    assert _made("dcgmi: command not found") == [("gpu.burn-in", False, STRESS, seen), ("gpu.memory-bandwidth", False, FLOOR, seen)]


def test_an_odd_second_of_burn_in_is_dropped_not_given_to_one_plugin():
    # test_burn_in.py holds the whole argv at 600 s; 601 s splits the same way.
    assert burn_in_argv(601, 1909500) == burn_in_argv(600, 1909500)
    assert burn_in_argv(601, None)[5] == "targeted_stress.test_duration=300;targeted_power.test_duration=300"
