"""Judging a node's folder (acceptance/run.py), where mutation testing found it unheld: an empty folder fails each
needed file under its own name with the command that prints it (the XML's stand-in named), `fi_info` alone is skipped
with its reason; the text of `nvidia-smi -q` stands in for the XML with its own command as the source; each reader's
source names its command and file; and a node with nothing to check says so rather than passing."""

from __future__ import annotations

import dataclasses

from acceptance import check_folder
from acceptance.evidence import NO_LIBFABRIC
from tests.acceptance.evidence import P5, p5_folder
from tests.acceptance.text_evidence import eight_h100_text

MISSING = "missing: no such file in the folder"


def test_an_empty_folder_fails_each_needed_file_by_name_and_skips_only_fi_info(tmp_path):
    report = check_folder(P5, tmp_path)
    assert [(c.name, c.passed, c.expected, c.observed, c.source) for c in report.checks] == [
        (
            "evidence.nvidia-smi-q.xml",
            False,
            "the output of `nvidia-smi -q -x` (or in nvidia-smi-q.txt that of `nvidia-smi -q`)",
            MISSING,
            "nvidia-smi-q.xml",
        ),
        ("evidence.nvidia-smi-nvlink-s.txt", False, "the output of `nvidia-smi nvlink -s`", MISSING, "nvidia-smi-nvlink-s.txt"),
        ("evidence.dmesg.txt", False, "the output of `dmesg`", MISSING, "dmesg.txt"),
        ("evidence.rdma-devices.txt", False, "the output of `python3 -m acceptance rdma-devices`", MISSING, "rdma-devices.txt"),
        ("evidence.dcgmi-diag.json", False, "the output of `dcgmi diag -r 2 -j -p pcie.gpu_nvlinks_expected_up=18`", MISSING, "dcgmi-diag.json"),
    ]
    assert report.skipped == {NO_LIBFABRIC[0]: NO_LIBFABRIC[1]}


def test_each_check_names_the_command_and_file_it_read_and_the_text_stands_in_for_the_xml(tmp_path):
    folder = p5_folder(tmp_path)
    sources = {c.name: c.source for c in check_folder(P5, folder).checks}
    assert (sources["gpu.count"], sources["gpu.nvlinks"], sources["efa.devices"], sources["gpu.xid"]) == (
        "nvidia-smi -q -x (nvidia-smi-q.xml)",
        "nvidia-smi nvlink -s (nvidia-smi-nvlink-s.txt)",
        "python3 -m acceptance rdma-devices (rdma-devices.txt)",
        "dmesg (dmesg.txt)",
    )
    (folder / "nvidia-smi-q.xml").unlink()
    (folder / "nvidia-smi-q.txt").write_text(eight_h100_text(), encoding="utf-8")
    report = check_folder(P5, folder)
    assert {c.name: c.source for c in report.checks}["gpu.count"] == "nvidia-smi -q (nvidia-smi-q.txt)"
    assert report.failed == ()


def test_a_node_with_no_accelerator_and_no_efa_says_there_is_nothing_to_check_and_is_not_accepted(tmp_path):
    for efa in (None, 0):
        report = check_folder(dataclasses.replace(P5, accelerator_kind=None, efa_devices=efa), tmp_path)
        assert (report.checks, report.passed) == ((), False)
        assert report.skipped == {"node": "the pool's instance type has no accelerator and no EFA device: nothing to check"}
    cpu_with_efa = check_folder(dataclasses.replace(P5, accelerator_kind=None), tmp_path)
    assert "node" not in cpu_with_efa.skipped
