"""Judge one node's evidence folder against its expectation: every needed file read, every check named."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from acceptance.burnin import burn_in_checks
from acceptance.dcgm import dcgm_checks
from acceptance.efa import efa_checks, libfabric_checks
from acceptance.evidence import BURN_IN, DCGM, DMESG, FI_INFO, NEURON_LS, NVLINK, RDMA_DEVICES, SMI_TEXT, SMI_XML, Command, commands, read_evidence
from acceptance.expectation import Expectation
from acceptance.kernel_log import kernel_log_checks
from acceptance.neuron import neuron_checks
from acceptance.nvidia import gpu_checks, gpu_text_checks, nvlink_checks
from acceptance.report import Check, Checks, Report

# Which checks read each file, so a missing file fails under the name of what it would have shown.
_READERS: dict[str, Callable[[Expectation, str, Checks], None]] = {
    SMI_XML: gpu_checks,
    NVLINK: nvlink_checks,
    DMESG: lambda _expectation, text, checks: kernel_log_checks(text, checks),
    RDMA_DEVICES: efa_checks,
    FI_INFO: libfabric_checks,
    NEURON_LS: neuron_checks,
    DCGM: dcgm_checks,
    BURN_IN: burn_in_checks,
}


# A file that stands in for a missing one: its name, the command that prints it, and its reader.
_INSTEAD: dict[str, tuple[str, str, Callable[[Expectation, str, Checks], None]]] = {SMI_XML: (SMI_TEXT, "nvidia-smi -q", gpu_text_checks)}


def _missing(command: Command) -> Check:
    """The failed check for a needed file that isn't there: evidence that was never gathered proves nothing."""
    wanted = f"the output of `{' '.join(command.argv)}`"
    if command.file in _INSTEAD:
        file, printed_by, _ = _INSTEAD[command.file]
        wanted += f" (or in {file} that of `{printed_by}`)"
    return Check(f"evidence.{command.file}", False, wanted, "missing: no such file in the folder", command.file)


def check_folder(expectation: Expectation, folder: Path) -> Report:
    """Every check the expectation's level needs, over the files recorded in `folder`."""
    needed = commands(expectation)
    texts = read_evidence(folder, needed)
    made: list[Check] = []
    skipped: dict[str, str] = {}
    for command in needed:
        text, reader, source = texts[command.file], _READERS[command.file], f"{' '.join(command.argv)} ({command.file})"
        if text is None and command.file in _INSTEAD:
            file, printed_by, reader = _INSTEAD[command.file]
            text, source = read_evidence(folder, (Command(file, (), ""),))[file], f"{printed_by} ({file})"
        if text is None and command.absent:
            name, why = command.absent
            skipped[name] = why
            continue
        if text is None:
            made.append(_missing(command))
            continue
        checks = Checks(source=source)
        reader(expectation, text, checks)
        made += checks.made
        skipped |= checks.skipped
    if expectation.accelerator_kind is None and not expectation.efa_devices:
        skipped["node"] = "the pool's instance type has no accelerator and no EFA device: nothing to check"
    return Report(tuple(made), skipped)
