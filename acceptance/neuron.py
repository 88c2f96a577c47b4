"""AWS Neuron devices (Trainium, Inferentia) as `neuron-ls --json-output` lists them.

The format is the Neuron documentation's (Neuron LS User Guide, `neuron-ls -j` on a trn2.48xlarge,
https://awsdocs-neuron.readthedocs-hosted.com/en/latest/tools/neuron-sys-tools/neuron-ls.html):
a JSON list, one object per device, with `neuron_device`, `nc_count` and, on Trn2,
`logical_neuroncore_config`. On Trn2 `nc_count` counts *logical* cores (4 per device at the default
configuration 2, over 8 physical), so physical cores = `nc_count` x `logical_neuroncore_config`.
Neuron 2.34 announced a new JSON layout under `--output-format json`; this reads the documented
`--json-output` list only. Not verified on real output here: no Neuron machine was available.
"""

from __future__ import annotations

import json

from acceptance.expectation import Expectation
from acceptance.report import Checks, printed


def parse_neuron_ls(text: str) -> list[tuple[int, int]]:
    """(device id, physical NeuronCores) per device; `ValueError` when the text isn't the documented list."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg}") from None
    if not isinstance(document, list) or not all(isinstance(device, dict) for device in document):
        raise ValueError("not a JSON list of devices")
    return [(int(d.get("neuron_device", -1)), int(d.get("nc_count", 0)) * int(d.get("logical_neuroncore_config") or 1)) for d in document]


def neuron_checks(expectation: Expectation, text: str, checks: Checks) -> None:
    """The node lists the design's Neuron devices and their physical NeuronCores."""
    try:
        devices = parse_neuron_ls(text)
    except ValueError as exc:
        checks.add("neuron.devices", False, f"{expectation.accelerator_count} Neuron devices", f"unreadable ({exc}); it printed {printed(text)}")
        return
    wanted = expectation.accelerator_count
    checks.add("neuron.devices", len(devices) == wanted, f"{wanted} Neuron devices", f"{len(devices)} devices")
    if expectation.neuron_cores is None:
        checks.skip("neuron.cores", "the expectation gives no NeuronCore count")
        return
    cores = sum(count for _, count in devices)
    expected = f"{expectation.neuron_cores} physical NeuronCores"
    checks.add("neuron.cores", cores == expectation.neuron_cores, expected, f"{cores} cores on {len(devices)} devices")
