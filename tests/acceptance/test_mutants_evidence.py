"""What the checker runs on a node and how it keeps the output (acceptance/evidence.py), where mutation testing found
it unheld: every command of a p5 node at the exhaustive level with a burn-in, in order, with its arguments and the
privilege it needs; a CPU node with EFA; a Neuron node; how each outcome of a command is written (a tool not
installed or not allowed, a timeout, a non-zero exit with its output kept); and the runner's three-hour limit."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

from acceptance import evidence
from acceptance.burnin import burn_in_argv
from acceptance.evidence import NO_LIBFABRIC, Command, commands, read_evidence, record
from tests.acceptance.evidence import P5

GPU_NODES = "the NVIDIA device nodes (/dev/nvidia*), read-only queries"


def test_a_p5_node_at_the_exhaustive_level_with_a_burn_in_runs_every_command_in_order_the_diagnostics_last():
    burning = dataclasses.replace(P5, level="exhaustive", burn_in_seconds=600, memory_bandwidth_floor_mbs=1909500)
    assert commands(burning) == (
        Command("nvidia-smi-q.xml", ("nvidia-smi", "-q", "-x"), GPU_NODES),
        Command("nvidia-smi-nvlink-s.txt", ("nvidia-smi", "nvlink", "-s"), "the NVIDIA device nodes, read-only"),
        Command("dmesg.txt", ("dmesg",), "the kernel log (CAP_SYSLOG), where the driver writes Xid events"),
        Command("rdma-devices.txt", ("python3", "-m", "acceptance", "rdma-devices"), "the host's sysfs, read-only (/sys/class/infiniband)"),
        Command("fi_info.txt", ("fi_info", "-p", "efa", "-t", "FI_EP_RDM"), "the EFA device nodes (/dev/infiniband/uverbs*)", NO_LIBFABRIC),
        Command(
            "dcgmi-diag.json",
            ("dcgmi", "diag", "-r", "4", "-j", "-p", "pcie.gpu_nvlinks_expected_up=18"),
            "exclusive use of the GPUs (the diagnostic loads them) and the DCGM host engine",
        ),
        Command("dcgmi-burn-in.json", burn_in_argv(600, 1909500), "exclusive use of the GPUs (the stress plugins load them)"),
    )


def test_a_gpu_node_without_nvlinks_at_the_inventory_level_reads_without_the_link_listing_or_a_diagnostic():
    files = [command.file for command in commands(dataclasses.replace(P5, level="inventory", nvlinks_per_gpu=None, efa_devices=None))]
    assert files == ["nvidia-smi-q.xml", "dmesg.txt"]
    quick = commands(dataclasses.replace(P5, level="quick", nvlinks_per_gpu=None, efa_devices=None))
    assert quick[-1].argv == ("dcgmi", "diag", "-r", "1", "-j")


def test_a_cpu_node_with_efa_reads_only_its_rdma_devices_and_a_neuron_node_its_devices_too():
    cpu = dataclasses.replace(P5, accelerator_kind=None, burn_in_seconds=600)
    assert [command.file for command in commands(cpu)] == ["rdma-devices.txt", "fi_info.txt"]
    trn = dataclasses.replace(P5, accelerator_kind="neuron", efa_devices=None, burn_in_seconds=600)
    assert commands(trn) == (Command("neuron-ls.json", ("neuron-ls", "--json-output"), "the Neuron device nodes (/dev/neuron*)"),)


def test_each_outcome_of_a_command_is_written_down_and_a_failed_commands_output_is_kept(tmp_path):
    def runner(argv):
        if argv[0] == "nvidia-smi" and argv[1] == "-q":
            raise FileNotFoundError(2, "No such file or directory")
        if argv[0] == "nvidia-smi":
            raise PermissionError(13, "Permission denied")
        if argv[0] == "fi_info":
            return subprocess.CompletedProcess(argv, 61, stdout="", stderr="fi_getinfo: -61\n")
        if argv[0] == "dcgmi":
            raise subprocess.TimeoutExpired(argv, 10800)
        return subprocess.CompletedProcess(argv, 0, stdout=f"{argv[0]} out\n", stderr="")

    folder = tmp_path / "evidence"
    assert record(P5, folder, runner) == {
        "nvidia-smi-q.xml": "not written: nvidia-smi could not run (No such file or directory)",
        "nvidia-smi-nvlink-s.txt": "not written: nvidia-smi could not run (Permission denied)",
        "dmesg.txt": "written (exit status 0)",
        "rdma-devices.txt": "written (exit status 0)",
        "fi_info.txt": "written (exit status 61)",
        "dcgmi-diag.json": "not written: dcgmi diag -r 2 -j -p pcie.gpu_nvlinks_expected_up=18 ran past its timeout",
    }
    assert sorted(path.name for path in folder.iterdir()) == ["dmesg.txt", "fi_info.txt", "rdma-devices.txt"]
    assert (folder / "fi_info.txt").read_text(encoding="utf-8") == "fi_getinfo: -61\n"
    assert read_evidence(folder, commands(P5)) == {
        "nvidia-smi-q.xml": None,
        "nvidia-smi-nvlink-s.txt": None,
        "dmesg.txt": "dmesg out\n",
        "rdma-devices.txt": "python3 out\n",
        "fi_info.txt": "fi_getinfo: -61\n",
        "dcgmi-diag.json": None,
    }


def test_the_runner_captures_text_with_no_shell_and_gives_a_command_three_hours(monkeypatch):
    # DCGM's r4 runs up to 2.25 hours (its published range); the limit only stops a command that hangs.
    asked = {}
    real = subprocess.run

    def run(argv, **options):
        asked.update(options, argv=argv)
        return real(argv, **options)

    monkeypatch.setattr(evidence.subprocess, "run", run)
    completed = evidence._run((sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"))
    assert (completed.returncode, completed.stdout, completed.stderr) == (3, "out\n", "err\n")
    assert asked == {
        "argv": [sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"],
        "capture_output": True,
        "text": True,
        "timeout": 10800,
        "check": False,
    }


def test_recording_makes_the_folder_with_its_missing_parents_and_records_again_into_a_folder_that_exists(tmp_path):
    def runner(argv):
        return subprocess.CompletedProcess(argv, 0, stdout=f"{argv[0]} out\n", stderr="")

    folder = tmp_path / "node" / "evidence"
    node = inventory()
    first = record(node, folder, runner)
    assert first == record(node, folder, runner) == {"nvidia-smi-q.xml": "written (exit status 0)", "dmesg.txt": "written (exit status 0)"}
    assert (folder / "dmesg.txt").read_text(encoding="utf-8") == "dmesg out\n"


def test_a_diagnostic_past_its_timeout_is_not_written_and_the_burn_in_after_it_still_runs(tmp_path):
    def runner(argv):
        if argv[:4] == ("dcgmi", "diag", "-r", "2"):
            raise subprocess.TimeoutExpired(argv, 10800)
        return subprocess.CompletedProcess(argv, 0, stdout=f"{argv[0]} out\n", stderr="")

    burning = dataclasses.replace(P5, nvlinks_per_gpu=None, efa_devices=None, burn_in_seconds=600, memory_bandwidth_floor_mbs=1909500)
    outcome = record(burning, tmp_path, runner)
    assert list(outcome)[-2:] == ["dcgmi-diag.json", "dcgmi-burn-in.json"]
    assert outcome["dcgmi-diag.json"] == "not written: dcgmi diag -r 2 -j ran past its timeout"
    assert outcome["dcgmi-burn-in.json"] == "written (exit status 0)"
    assert (tmp_path / "dcgmi-burn-in.json").read_text(encoding="utf-8") == "dcgmi out\n"


def test_bytes_that_are_not_utf8_read_as_the_replacement_character_rather_than_failing(tmp_path):
    (tmp_path / "dmesg.txt").write_bytes(b"NVRM: Xid \xff 79\n")
    assert read_evidence(tmp_path, (Command("dmesg.txt", ("dmesg",), "the kernel log"),)) == {"dmesg.txt": "NVRM: Xid \ufffd 79\n"}


# Run in a child whose locale encoding is ASCII (the C locale, neither coerced to UTF-8 nor in UTF-8 mode): records an
# inventory node's evidence into the folder argv[1] names, then reads back a JSON file holding an accented letter.
ASCII_NODE = """
import dataclasses, sys
from pathlib import Path
from acceptance.evidence import Command, read_evidence, record
from tests.acceptance.evidence import P5
from tests.acceptance.test_mutants_evidence import NEURON_LS, accented, inventory
folder = Path(sys.argv[1])
print(record(inventory(), folder, accented))
(folder / "neuron-ls.json").write_bytes('{"name": "\\u00e9"}'.encode("utf-8"))
print(ascii(read_evidence(folder, NEURON_LS)))
"""
NEURON_LS = (Command("neuron-ls.json", ("neuron-ls", "--json-output"), "the Neuron device nodes (/dev/neuron*)"),)


def inventory():
    """An inventory-level GPU node without NVLinks or EFA: it records nvidia-smi's XML and dmesg."""
    return dataclasses.replace(P5, level="inventory", nvlinks_per_gpu=None, efa_devices=None)


def accented(argv):
    """A runner whose every command prints an en dash (past ASCII)."""
    return subprocess.CompletedProcess(argv, 0, stdout="Product Name : H100 \u2013 SXM\n", stderr="")


def test_a_node_whose_locale_encoding_is_ascii_writes_and_reads_the_evidence_as_utf8_as_a_utf8_one_does(tmp_path):
    here, there = tmp_path / "here", tmp_path / "there"
    written = {"nvidia-smi-q.xml": "written (exit status 0)", "dmesg.txt": "written (exit status 0)"}
    assert record(inventory(), here, accented) == written
    (here / "neuron-ls.json").write_bytes('{"name": "\u00e9"}'.encode())
    assert read_evidence(here, NEURON_LS) == {"neuron-ls.json": '{"name": "\xe9"}'}
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
    probe = [sys.executable, "-c", "import locale; print(locale.getpreferredencoding(False))"]
    assert subprocess.run(probe, env=env, capture_output=True, text=True, check=True).stdout == "ANSI_X3.4-1968\n"
    root = Path(evidence.__file__).parent.parent
    child = subprocess.run([sys.executable, "-c", ASCII_NODE, str(there)], cwd=root, env=env, capture_output=True, text=True, check=False)
    assert child.stdout.splitlines() == [repr(written), "{'neuron-ls.json': '{\"name\": \"\\xe9\"}'}"], child.stderr
    for name in ("nvidia-smi-q.xml", "dmesg.txt"):
        assert (there / name).read_bytes() == (here / name).read_bytes() == "Product Name : H100 \u2013 SXM\n".encode()
