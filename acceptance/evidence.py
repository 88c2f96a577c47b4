"""The evidence folder: one file per command, which files a node's expectation needs, and the live recorder.

The checker has one code path with two inputs. On a node, `record` runs the commands and
writes their output (standard output, then standard error) into the folder; `check_folder`
then judges the folder exactly as it judges one recorded elsewhere and handed over later.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from acceptance.burnin import burn_in_argv
from acceptance.expectation import Expectation

SMI_XML = "nvidia-smi-q.xml"
# What an operator can keep instead: the text `nvidia-smi -q` prints, judged by the same checks where the XML is absent.
SMI_TEXT = "nvidia-smi-q.txt"
NVLINK = "nvidia-smi-nvlink-s.txt"
DCGM = "dcgmi-diag.json"
FI_INFO = "fi_info.txt"
RDMA_DEVICES = "rdma-devices.txt"
NEURON_LS = "neuron-ls.json"
DMESG = "dmesg.txt"
BURN_IN = "dcgmi-burn-in.json"


# Why `efa.libfabric` is skipped where `fi_info` is not: the devices are counted from sysfs either way.
NO_LIBFABRIC = (
    "efa.libfabric",
    "no fi_info.txt: libfabric isn't on this node (EKS's AL2023 AMIs install EFA with `efa_installer.sh --minimal`, which leaves it out);"
    " the EFA devices were counted from sysfs",
)


@dataclass(frozen=True)
class Command:
    """One command the checker runs on a node: the file its output goes to, its arguments, and why it needs what it needs."""

    file: str
    argv: tuple[str, ...]
    privilege: str
    # Where the tool may rightly be absent: the check skipped then, and why. Any other needed file missing fails.
    absent: tuple[str, str] | None = None


def commands(expectation: Expectation) -> tuple[Command, ...]:
    """The commands this expectation's level needs, in the order they run (the diagnostic last: it is the long one)."""
    gpu, neuron = expectation.accelerator_kind == "gpu", expectation.accelerator_kind == "neuron"
    needed: list[Command] = []
    if gpu:
        needed.append(Command(SMI_XML, ("nvidia-smi", "-q", "-x"), "the NVIDIA device nodes (/dev/nvidia*), read-only queries"))
        if expectation.nvlinks_per_gpu:
            needed.append(Command(NVLINK, ("nvidia-smi", "nvlink", "-s"), "the NVIDIA device nodes, read-only"))
        needed.append(Command(DMESG, ("dmesg",), "the kernel log (CAP_SYSLOG), where the driver writes Xid events"))
    if expectation.efa_devices:
        needed.append(Command(RDMA_DEVICES, ("python3", "-m", "acceptance", "rdma-devices"), "the host's sysfs, read-only (/sys/class/infiniband)"))
        needed.append(Command(FI_INFO, ("fi_info", "-p", "efa", "-t", "FI_EP_RDM"), "the EFA device nodes (/dev/infiniband/uverbs*)", NO_LIBFABRIC))
    if neuron:
        needed.append(Command(NEURON_LS, ("neuron-ls", "--json-output"), "the Neuron device nodes (/dev/neuron*)"))
    if gpu and expectation.dcgm_level is not None:
        argv = ["dcgmi", "diag", "-r", str(expectation.dcgm_level), "-j"]
        if expectation.nvlinks_per_gpu:
            # DCGM's PCIe plugin then fails a GPU with fewer NVLinks up than the design's count.
            argv += ["-p", f"pcie.gpu_nvlinks_expected_up={expectation.nvlinks_per_gpu}"]
        needed.append(Command(DCGM, tuple(argv), "exclusive use of the GPUs (the diagnostic loads them) and the DCGM host engine"))
    if gpu and expectation.burn_in_seconds:
        burn_in = burn_in_argv(expectation.burn_in_seconds, expectation.memory_bandwidth_floor_mbs)
        needed.append(Command(BURN_IN, burn_in, "exclusive use of the GPUs (the stress plugins load them)"))
    return tuple(needed)


def read_evidence(folder: Path, needed: tuple[Command, ...]) -> dict[str, str | None]:
    """The text of each needed file in `folder` (None where it is missing or unreadable)."""
    texts: dict[str, str | None] = {}
    for command in needed:
        try:
            texts[command.file] = (folder / command.file).read_text(encoding="utf-8", errors="replace")
        except OSError:
            texts[command.file] = None
    return texts


Runner = Callable[[tuple[str, ...]], "subprocess.CompletedProcess[str]"]


def _run(argv: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    """Run one command with no shell and a timeout long enough for DCGM's r4 (its published range tops out at 2.25 h)."""
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=3 * 3600, check=False)


def record(expectation: Expectation, folder: Path, runner: Runner = _run) -> dict[str, str]:
    """Run the expectation's commands and write each one's output into `folder`; return what happened to each file.

    A command that isn't installed writes no file (the check then fails as missing evidence,
    saying which command); one that exits non-zero still writes what it printed (`fi_info`
    answering `fi_getinfo: -61` is the evidence that EFA is absent).
    """
    folder.mkdir(parents=True, exist_ok=True)
    outcome: dict[str, str] = {}
    for command in commands(expectation):
        try:
            completed = runner(command.argv)
        except (FileNotFoundError, PermissionError) as exc:
            outcome[command.file] = f"not written: {command.argv[0]} could not run ({exc.strerror})"
            continue
        except subprocess.TimeoutExpired:
            outcome[command.file] = f"not written: {' '.join(command.argv)} ran past its timeout"
            continue
        (folder / command.file).write_text(completed.stdout + completed.stderr, encoding="utf-8")
        outcome[command.file] = f"written (exit status {completed.returncode})"
    return outcome
