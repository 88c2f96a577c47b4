"""DCGM diagnostics: the JSON `dcgmi diag -r N -j` prints, judged per test and per GPU.

Two layouts are read, both from NVIDIA's DCGM source (github.com/NVIDIA/DCGM):
- DCGM 4 (`dcgmi/Diag.cpp`, `HelperJsonBuildOutput`; key names in `nvvs/include/NvvsJsonStrings.h`):
  `{"DCGM Diagnostic": {"test_categories": [{"category", "tests": [{"name", "results":
  [{"entity_group": "GPU", "entity_id", "status": "Pass|Fail|Warn|Skip", "warnings":
  [{"warning", "error_id", ...}]}], "test_summary": {"status"}}]}]}, "entity_groups": [...],
  "metadata": {"version", "Driver Version Detected"}}`;
- DCGM 3 (the "real output" in `nvvs/tests/JsonResultTests.cpp`): the root key is
  `"DCGM GPU Diagnostic"`, results carry `"gpu_ids"` and statuses are upper case.

Not verified on real output here: the GPU machine this was written against had no `dcgmi`.
"""

from __future__ import annotations

import json
from typing import Any

from acceptance.expectation import Expectation
from acceptance.report import Checks, printed

ROOTS = ("DCGM Diagnostic", "DCGM GPU Diagnostic")


def _results(document: dict[str, Any]) -> tuple[list[tuple[str, str, str, str]], str | None]:
    """Every (test, entity, status, warning text) in the document, and its runtime error if it reported one."""
    root = next((document[key] for key in ROOTS if isinstance(document.get(key), dict)), None)
    if root is None:
        raise ValueError(f"no {' or '.join(repr(key) for key in ROOTS)} object")
    error = document.get("runtime_error") or root.get("runtime_error")
    rows = []
    for category in root.get("test_categories") or []:
        for test in (category or {}).get("tests") or []:
            if not isinstance(test, dict):
                continue  # DCGM 3 writes `null` between tests
            for result in test.get("results") or []:
                entity = f"{result.get('entity_group', 'GPU')} {result.get('entity_id', result.get('gpu_ids', '?'))}"
                warnings = "; ".join(str(w.get("warning", w) if isinstance(w, dict) else w) for w in result.get("warnings") or [])
                rows.append((str(test.get("name", "?")), entity, str(result.get("status", "?")), warnings))
    return rows, error


def _gpus(rows: list[tuple[str, str, str, str]]) -> set[str]:
    """The GPU ids the diagnostic reported results for (a DCGM 3 software row may list `0,1,...` in one)."""
    seen = set()
    for _, entity, _, _ in rows:
        group, _, ids = entity.partition(" ")
        if group == "GPU":
            seen |= {part.strip() for part in ids.split(",") if part.strip() not in ("", "?")}
    return seen


def read_diag(text: str) -> tuple[list[tuple[str, str, str, str]], str | None]:
    """Every result and any runtime error in what `dcgmi diag -j` printed (text before the JSON is skipped); `ValueError` if unreadable."""
    document = json.loads(text[text.find("{") :]) if "{" in text else None
    if not isinstance(document, dict):
        raise ValueError("no JSON object")
    return _results(document)


def dcgm_checks(expectation: Expectation, text: str, checks: Checks) -> None:
    """The diagnostic ran at the level, on every expected GPU, and no test failed (a warning fails too: DCGM warns on real faults)."""
    expected = f"dcgmi diag -r {expectation.dcgm_level}: no test failed or warned, results for {expectation.accelerator_count} GPUs"
    try:
        rows, error = read_diag(text)
    except ValueError as exc:
        checks.add("gpu.dcgm-diag", False, expected, f"unreadable ({exc}); it printed {printed(text)}")
        return
    failing = [row for row in rows if row[2].lower() in ("fail", "warn")]
    bad = [f"{test} on {entity}: {status}{f' ({warning})' if warning else ''}" for test, entity, status, warning in failing]
    gpus = _gpus(rows)
    short = expectation.accelerator_count is not None and len(gpus) < expectation.accelerator_count
    observed = "; ".join(bad) or f"{len(rows)} results, none failed, on {len(gpus)} GPUs"
    if error:
        observed = f"runtime error: {error}"
    elif not rows:
        observed = "no test results"
    checks.add("gpu.dcgm-diag", not (bad or error or short or not rows), expected, observed)
