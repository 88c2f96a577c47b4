"""The Neuron device checks (acceptance/neuron.py) at their edges, where mutation testing found them unheld: the device
count exactly, one under and one over; physical NeuronCores as `nc_count` x `logical_neuroncore_config` (Trn2) or
`nc_count` alone (Trn1, no config field), exactly and one under; no core figure in the expectation; and output that is
not the documented JSON list, each with the check's exact words."""

from __future__ import annotations

import dataclasses
import json

import pytest

from acceptance.expectation import Expectation
from acceptance.neuron import neuron_checks, parse_neuron_ls
from acceptance.report import Checks

TRN2 = Expectation(pool="trn", instance_type="trn2.48xlarge", accelerator_kind="neuron", accelerator_count=16, neuron_cores=128)


def _devices(count: int, nc_count: int = 4, config: int | None = 2) -> str:
    extra = {} if config is None else {"logical_neuroncore_config": config}
    return json.dumps([{"neuron_device": index, "nc_count": nc_count, **extra} for index in range(count)])


def _made(text: str, expectation: Expectation = TRN2) -> tuple[list[tuple[str, bool, str, str]], dict[str, str]]:
    checks = Checks(source="neuron-ls --json-output")
    neuron_checks(expectation, text, checks)
    return [(c.name, c.passed, c.expected, c.observed) for c in checks.made], checks.skipped


def test_sixteen_trn2_devices_of_four_logical_cores_at_config_2_pass_with_128_physical_cores():
    assert _made(_devices(16)) == (
        [
            ("neuron.devices", True, "16 Neuron devices", "16 devices"),
            ("neuron.cores", True, "128 physical NeuronCores", "128 cores on 16 devices"),
        ],
        {},
    )


@pytest.mark.parametrize("count", [15, 17])
def test_one_device_under_or_over_fails_the_count(count):
    made, _ = _made(_devices(count))
    assert made[0] == ("neuron.devices", False, "16 Neuron devices", f"{count} devices")


def test_one_core_short_fails_the_cores_and_a_device_without_a_config_counts_its_cores_once():
    trn1 = dataclasses.replace(TRN2, accelerator_count=16, neuron_cores=32)
    assert _made(_devices(16, nc_count=2, config=None), trn1)[0][1] == ("neuron.cores", True, "32 physical NeuronCores", "32 cores on 16 devices")
    short = json.loads(_devices(16))
    short[0]["nc_count"] = 3
    made, _ = _made(json.dumps(short))
    assert made[1] == ("neuron.cores", False, "128 physical NeuronCores", "126 cores on 16 devices")


def test_a_device_naming_no_figures_reads_as_device_minus_one_with_no_cores():
    assert parse_neuron_ls('[{"logical_neuroncore_config": null}]') == [(-1, 0)]
    assert parse_neuron_ls(_devices(2, nc_count=4, config=None)) == [(0, 4), (1, 4)]


def test_with_no_core_figure_only_the_devices_are_judged_and_the_skip_says_why():
    assert _made(_devices(16), dataclasses.replace(TRN2, neuron_cores=None)) == (
        [("neuron.devices", True, "16 Neuron devices", "16 devices")],
        {"neuron.cores": "the expectation gives no NeuronCore count"},
    )


@pytest.mark.parametrize(
    ("text", "observed"),
    [
        ("neuron-ls: command not found", "unreadable (not JSON: Expecting value); it printed 'neuron-ls: command not found'"),
        ('{"neuron_device": 0}', "unreadable (not a JSON list of devices); it printed '{\"neuron_device\": 0}'"),
        ("[1, 2]", "unreadable (not a JSON list of devices); it printed '[1, 2]'"),
    ],
)
def test_output_that_is_not_the_documented_list_fails_the_devices_check_quoting_it(text, observed):
    assert _made(text) == ([("neuron.devices", False, "16 Neuron devices", observed)], {})
