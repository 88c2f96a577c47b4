"""The burn-in: DCGM's own stress plugins, run for the pool's `burn_in_minutes`, judged per test and per GPU.

One command, its JSON into `dcgmi-burn-in.json`:

    dcgmi diag -r targeted_stress,targeted_power,memory_bandwidth
               -p "targeted_stress.test_duration=S/2;targeted_power.test_duration=S/2;memory_bandwidth.minimum_bandwidth=F" -j

Names and parameters from NVIDIA's DCGM source (github.com/NVIDIA/DCGM @ 72fa3fea, `nvvs/include/PluginStrings.h`):
`targeted_stress` and `targeted_power` take `test_duration` (seconds; each gets half the burn-in); `memory_bandwidth` takes `minimum_bandwidth`
"in MB / s" and fails a GPU below it. The JSON is the diagnostic's own (acceptance/dcgm.py reads both layouts).
DCGM prints a measured figure only when it fails a GPU, in the warning text (`dcgmlib/dcgm_errors.h`):
`DCGM_FR_MEMORY_BANDWIDTH_MSG` "GPU %u only achieved a memory bandwidth of %.2f GB/s, failing to meet %.2f GB/s
for test %d" and `DCGM_FR_STRESS_LEVEL_MSG` "Max stress level of %.1f did not reach desired stress level of %.1f
for GPU %u"; those words are what a failed check shows as seen.

Not verified on real output: the GPU machine this was written against had no `dcgmi`.
"""

from __future__ import annotations

from acceptance.dcgm import _gpus, read_diag
from acceptance.expectation import Expectation
from acceptance.report import Checks, printed

STRESS = ("targeted_stress", "targeted_power")  # each runs for the burn-in's duration
BANDWIDTH = "memory_bandwidth"  # measures once, against the floor (it has no duration)

Row = tuple[str, str, str, str]


def burn_in_argv(seconds: int, floor_mbs: int | None) -> tuple[str, ...]:
    """The `dcgmi diag` arguments of a burn-in of `seconds` in all, with the bandwidth floor where known.

    The stress plugins run one after the other, so each gets an equal share: the burn-in takes the minutes the
    pool priced and reserved in its timeout, not twice that.
    """
    parameters = [f"{test}.test_duration={seconds // len(STRESS)}" for test in STRESS]
    if floor_mbs is not None:
        parameters.append(f"{BANDWIDTH}.minimum_bandwidth={floor_mbs}")
    return ("dcgmi", "diag", "-r", ",".join((*STRESS, BANDWIDTH)), "-p", ";".join(parameters), "-j")


def _name(test: str) -> str:
    """DCGM 4 names a test `targeted_stress`, DCGM 3 `Targeted Stress`: one spelling for both."""
    return test.strip().replace(" ", "_").lower()


def _judge(rows: list[Row], tests: tuple[str, ...], count: int | None) -> tuple[bool, str]:
    """Whether every test in `tests` ran on `count` GPUs with none failing or warning, and what was seen."""
    mine = [row for row in rows if _name(row[0]) in tests]
    ran = {_name(row[0]) for row in mine}
    failing = [row for row in mine if row[2].lower() in ("fail", "warn")]
    bad = [f"{test} on {entity}: {status}{f' ({warning})' if warning else ''}" for test, entity, status, warning in failing]
    bad += [f"{test} did not run" for test in tests if test not in ran]
    gpus = _gpus(mine)
    if bad:
        return False, "; ".join(bad)
    if count is not None and len(gpus) < count:
        return False, f"results for {len(gpus)} GPUs"
    return True, f"{len(mine)} results, none failed, on {len(gpus)} GPUs"


def burn_in_checks(expectation: Expectation, text: str, checks: Checks) -> None:
    """The stress plugins passed on every GPU (`gpu.burn-in`), and no GPU's memory bandwidth fell below the floor (`gpu.memory-bandwidth`)."""
    count = expectation.accelerator_count
    share = (expectation.burn_in_seconds or 0) // len(STRESS)
    stress = f"{' and '.join(STRESS)} for {share} s each: none failed or warned, on {count} GPUs"
    floor = expectation.memory_bandwidth_floor_mbs
    bandwidth = f"{BANDWIDTH} at least {floor} MB/s on each of {count} GPUs"
    if not floor:
        bandwidth = f"{BANDWIDTH} passes DCGM's own floor for the SKU on {count} GPUs"
    try:
        rows, error = read_diag(text)
    except ValueError as exc:
        seen = f"unreadable ({exc}); it printed {printed(text)}"
        checks.add("gpu.burn-in", False, stress, seen)
        checks.add("gpu.memory-bandwidth", False, bandwidth, seen)
        return
    for name, expected, tests in (("gpu.burn-in", stress, STRESS), ("gpu.memory-bandwidth", bandwidth, (BANDWIDTH,))):
        passed, seen = _judge(rows, tests, count)
        if error:
            passed, seen = False, f"runtime error: {error}"
        checks.add(name, passed, expected, seen)
