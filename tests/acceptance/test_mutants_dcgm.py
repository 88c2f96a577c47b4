"""The DCGM diagnostic's verdict (acceptance/dcgm.py) at its edges, where mutation testing found it unheld: results on
exactly the expected GPUs and one short, a warning and a failure in either case, a runtime error at either level of
the document, no results, GPUs listed together in one DCGM 3 row, rows of other entity groups, missing fields, and
output that is not the document, each with the check's exact words."""

from __future__ import annotations

import dataclasses
import json

import pytest

from acceptance.dcgm import dcgm_checks, read_diag
from acceptance.report import Checks
from tests.acceptance.evidence import P5

EXPECTED = "dcgmi diag -r 2: no test failed or warned, results for 8 GPUs"


def _result(gpu: int | str, status: str = "Pass", **extra) -> dict:
    return {"entity_group": "GPU", "entity_id": gpu, "status": status, **extra}


def _document(results: list[dict], root: str = "DCGM Diagnostic", **extra) -> str:
    return json.dumps({root: {"test_categories": [{"category": "Hardware", "tests": [{"name": "memory", "results": results}]}], **extra}})


def _verdict(text: str, expectation=P5) -> tuple[bool, str, str]:
    checks = Checks(source="dcgmi diag -r 2 -j (dcgmi-diag.json)")
    dcgm_checks(expectation, text, checks)
    ((check,),) = [checks.made]
    assert check.name == "gpu.dcgm-diag"
    return check.passed, check.expected, check.observed


def test_results_on_exactly_the_expected_gpus_pass_and_one_short_fails():
    assert _verdict(_document([_result(gpu) for gpu in range(8)])) == (True, EXPECTED, "8 results, none failed, on 8 GPUs")
    assert _verdict(_document([_result(gpu) for gpu in range(7)])) == (False, EXPECTED, "7 results, none failed, on 7 GPUs")


def test_with_no_gpu_count_expected_any_number_of_gpus_passes():
    no_count = dataclasses.replace(P5, accelerator_count=None)
    assert _verdict(_document([_result(0)]), no_count) == (
        True,
        "dcgmi diag -r 2: no test failed or warned, results for None GPUs",
        "1 results, none failed, on 1 GPUs",
    )


@pytest.mark.parametrize("status", ["Fail", "Warn", "FAIL", "WARN"])
def test_a_failure_or_a_warning_in_either_case_fails_naming_the_test_the_gpu_and_dcgms_words(status):
    results = [_result(gpu) for gpu in range(8)]
    results[3] = _result(3, status, warnings=[{"warning": "A DBE occurred on GPU 3", "error_id": 8}, "and a plain note"])
    assert _verdict(_document(results)) == (False, EXPECTED, f"memory on GPU 3: {status} (A DBE occurred on GPU 3; and a plain note)")


def test_a_failure_without_warnings_is_named_without_parentheses():
    results = [_result(gpu) for gpu in range(8)]
    results[0] = _result(0, "Fail")
    assert _verdict(_document(results))[2] == "memory on GPU 0: Fail"


@pytest.mark.parametrize("where", ["document", "root"])
def test_a_runtime_error_fails_whatever_the_results_say(where):
    results = [_result(gpu) for gpu in range(8)]
    if where == "root":
        text = _document(results, runtime_error="Unable to connect to the host engine")
    else:
        text = json.dumps({**json.loads(_document(results)), "runtime_error": "Unable to connect to the host engine"})
    assert _verdict(text) == (False, EXPECTED, "runtime error: Unable to connect to the host engine")


def test_a_document_with_no_results_fails_saying_so():
    assert _verdict(_document([]), dataclasses.replace(P5, accelerator_count=None))[1:] == (
        "dcgmi diag -r 2: no test failed or warned, results for None GPUs",
        "no test results",
    )
    assert _verdict(_document([]), dataclasses.replace(P5, accelerator_count=None))[0] is False


def test_dcgm_3s_rows_listing_gpus_together_count_each_gpu_and_other_groups_count_none():
    rows = [
        {"gpu_ids": "0,1,2,3,4,5,6,7", "status": "PASS"},
        {"entity_group": "Switch", "entity_id": 9, "status": "PASS"},
        {"entity_group": "GPU", "status": "PASS"},
    ]
    text = json.dumps({"DCGM GPU Diagnostic": {"test_categories": [{"tests": [None, {"name": "software", "results": rows}]}, None]}})
    assert read_diag(text) == (
        [("software", "GPU 0,1,2,3,4,5,6,7", "PASS", ""), ("software", "Switch 9", "PASS", ""), ("software", "GPU ?", "PASS", "")],
        None,
    )
    assert _verdict(text) == (True, EXPECTED, "3 results, none failed, on 8 GPUs")


def test_a_result_naming_no_test_or_status_is_shown_with_question_marks():
    text = json.dumps({"DCGM Diagnostic": {"test_categories": [{"tests": [{"results": [{"entity_id": 0}]}]}]}})
    assert read_diag(text) == ([("?", "GPU 0", "?", "")], None)


@pytest.mark.parametrize(
    ("text", "observed"),
    [
        ("Error: unable to connect", "unreadable (no JSON object); it printed 'Error: unable to connect'"),
        ("[1, 2]", "unreadable (no JSON object); it printed '[1, 2]'"),
        ('{"DCGM Diagnostic": []}', "unreadable (no 'DCGM Diagnostic' or 'DCGM GPU Diagnostic' object); it printed '{\"DCGM Diagnostic\": []}'"),
    ],
)
def test_output_that_is_not_the_diagnostic_document_fails_quoting_it(text, observed):
    assert _verdict(text) == (False, EXPECTED, observed)


def test_gpu_ids_listed_with_spaces_or_a_trailing_comma_count_each_gpu_once():
    rows = [{"gpu_ids": "0, 1, 2, 3,", "status": "PASS"}, {"gpu_ids": "4,5,6,7,", "status": "PASS"}]
    text = json.dumps({"DCGM GPU Diagnostic": {"test_categories": [{"tests": [{"name": "software", "results": rows}]}]}})
    assert _verdict(text) == (True, EXPECTED, "2 results, none failed, on 8 GPUs")


def test_a_warning_without_words_is_shown_as_dcgm_wrote_it():
    results = [_result(gpu) for gpu in range(8)]
    results[2] = _result(2, "Warn", warnings=[{"error_id": 95}])
    assert _verdict(_document(results))[2] == "memory on GPU 2: Warn ({'error_id': 95})"


def test_two_failing_results_are_both_named_in_the_order_dcgm_wrote_them():
    results = [_result(gpu) for gpu in range(8)]
    results[1], results[5] = _result(1, "Fail"), _result(5, "Warn")
    assert _verdict(_document(results))[2] == "memory on GPU 1: Fail; memory on GPU 5: Warn"
