"""The node checker over real and derived evidence: the real H100 passes its own shape, eight of it pass a p5.48xlarge,
and each fault derived from it fails exactly the check named for it."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from acceptance import Expectation, ExpectationError, check_folder
from acceptance.efa import list_rdma_devices
from acceptance.evidence import commands, record
from tests.acceptance.evidence import BUS_IDS, EXAMPLE, FIXTURES, P5, ROOT, one_h100, p5_folder, real_folder, set_text

GPU_CHECKS = {
    "gpu.count",
    "gpu.model",
    "gpu.memory",
    "gpu.ecc",
    "gpu.uncorrected-ecc",
    "gpu.row-remap",
    "gpu.power-limit",
    "gpu.pcie",
    "gpu.xid",
    "gpu.driver",
}
LIBFABRIC = Path("/work/shared/fixtures/libfabric")


def test_the_real_h100_capture_passes_the_expectation_of_its_own_shape(tmp_path):
    report = check_folder(one_h100(), real_folder(tmp_path))
    assert report.passed
    assert {check.name for check in report.checks} == GPU_CHECKS
    observed = {check.name: check.observed for check in report.checks}
    assert observed["gpu.memory"] == "81559 MiB on 1 GPUs"
    assert observed["gpu.pcie"] == "gen 5 x16 (now gen 5 x16) on 1 GPUs"
    assert observed["gpu.power-limit"] == "700 W on 1 GPUs"


def test_eight_gpus_assembled_from_the_capture_pass_a_p5_48xlarge_expectation(tmp_path):
    report = check_folder(P5, p5_folder(tmp_path))
    assert report.failed == ()
    assert {check.name for check in report.checks} == GPU_CHECKS | {"gpu.nvlinks", "gpu.dcgm-diag", "efa.devices"}
    assert {check.name: check.observed for check in report.checks}["efa.devices"] == "32 EFA devices"


def test_a_gpu_missing_fails_the_count(tmp_path):
    def drop_the_last(gpus):
        del gpus[7]

    report = check_folder(P5, p5_folder(tmp_path, drop_the_last))
    assert report.failed == ("gpu.count",)
    assert [c.observed for c in report.checks if c.name == "gpu.count"] == ["7 attached, 7 listed"]


# One element of one GPU of the real capture changed: (GPU, element, new text, the check that must fail, what it must say it saw).
FAULTS = {
    "ECC off": (3, "ecc_mode/current_ecc", "Disabled", "gpu.ecc", "ECC disabled"),
    "a pending row remap": (5, "remapped_rows/remapped_row_pending", "Yes", "gpu.row-remap", "row remap pending"),
    "an uncorrected ECC error": (0, "ecc_errors/volatile/dram_uncorrectable", "2", "gpu.uncorrected-ecc", "2 uncorrected errors"),
    "a lowered power limit": (2, "gpu_power_readings/current_power_limit", "500.00 W", "gpu.power-limit", "500 W"),
    "a link that can train only to x8": (6, "pci/pci_gpu_link_info/link_widths/max_link_width", "8x", "gpu.pcie", "gen 5 x8 (now gen 5 x16)"),
    "an H200 among H100s": (1, "product_name", "NVIDIA H200", "gpu.model", "NVIDIA H200"),
    "an H100 PCIe among SXM5s": (4, "product_name", "NVIDIA H100 PCIe", "gpu.model", "NVIDIA H100 PCIe"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_fault_in_nvidia_smi_fails_exactly_its_check_naming_the_gpu(tmp_path, fault):
    gpu, path, value, name, seen = FAULTS[fault]
    report = check_folder(P5, p5_folder(tmp_path, lambda gpus: set_text(gpus[gpu], path, value)))
    assert report.failed == (name,)
    assert next(check.observed for check in report.checks if check.name == name) == f"GPU {gpu} ({BUS_IDS[gpu]}): {seen}"


def test_two_nvlinks_down_fail_the_nvlink_check_naming_the_gpu(tmp_path):
    folder = p5_folder(tmp_path)
    text = (folder / "nvidia-smi-nvlink-s.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    gpu_one = 19  # GPU 0's header and its 18 links come first
    assert lines[gpu_one].startswith("GPU 1:")
    lines[gpu_one + 17] = "\t Link 16: <inactive>"
    lines[gpu_one + 18] = "\t Link 17: 0 GB/s"
    (folder / "nvidia-smi-nvlink-s.txt").write_text("\n".join(lines), encoding="utf-8")
    report = check_folder(P5, folder)
    assert report.failed == ("gpu.nvlinks",)
    assert report.checks[[c.name for c in report.checks].index("gpu.nvlinks")].observed == "GPU 1: 16 up"


def test_an_xid_in_the_kernel_log_fails_the_xid_check(tmp_path):
    folder = p5_folder(tmp_path)
    with (folder / "dmesg.txt").open("a", encoding="utf-8") as log:
        # The driver's wording (NVIDIA Xid catalog, docs.nvidia.com/deploy/xid-errors): Xid 79, fallen off the bus.
        log.write("[  812.004417] NVRM: Xid (PCI:0000:53:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n")
    report = check_folder(P5, folder)
    assert report.failed == ("gpu.xid",)
    assert [c.observed for c in report.checks if c.name == "gpu.xid"] == ["Xid 79 on PCI:0000:53:00"]


def test_a_failed_dcgm_test_fails_the_diagnostic_check_with_dcgms_words(tmp_path):
    folder = p5_folder(tmp_path)
    document = json.loads((folder / "dcgmi-diag.json").read_text(encoding="utf-8"))
    memory = document["DCGM Diagnostic"]["test_categories"][2]["tests"][0]["results"][4]
    memory.update(status="Fail", warnings=[{"warning": "A DBE occurred on GPU 4", "error_id": 3}])
    (folder / "dcgmi-diag.json").write_text(json.dumps(document), encoding="utf-8")
    report = check_folder(P5, folder)
    assert report.failed == ("gpu.dcgm-diag",)
    assert [c.observed for c in report.checks if c.name == "gpu.dcgm-diag"] == ["memory on GPU 4: Fail (A DBE occurred on GPU 4)"]


def test_dcgm_3s_layout_is_read_too():
    from acceptance.dcgm import dcgm_checks
    from acceptance.report import Checks

    # The "real output" DCGM's own test deserialises (nvvs/tests/JsonResultTests.cpp), trimmed to two tests.
    results = [{"gpu_ids": str(gpu), "status": "PASS"} for gpu in range(8)]
    deployment = {"category": "Deployment", "tests": [{"name": "Denylist", "results": [{"gpu_ids": "0,1,2,3,4,5,6,7", "status": "PASS"}]}, None]}
    custom = {"category": "Custom", "tests": [{"name": "software", "results": results}]}
    document = {"DCGM GPU Diagnostic": {"test_categories": [deployment, custom], "version": "3.1.0"}}
    checks = Checks("dcgmi")
    dcgm_checks(P5, "WARNING: THIS SHOULD NOT HAPPEN\n" + json.dumps(document), checks)
    assert [(c.passed, c.observed) for c in checks.made] == [(True, "9 results, none failed, on 8 GPUs")]


def test_a_p5_folder_without_fi_info_as_the_eks_ami_gives_is_accepted_with_libfabric_skipped(tmp_path):
    # EKS's AL2023 AMIs install EFA with `efa_installer.sh --minimal`: no libfabric, so no fi_info.txt is ever written there.
    folder = p5_folder(tmp_path)
    assert not (folder / "fi_info.txt").exists()
    report = check_folder(P5, folder)
    assert report.passed
    assert {c.name: c.observed for c in report.checks}["efa.devices"] == "32 EFA devices"
    assert report.skipped["efa.libfabric"].startswith("no fi_info.txt: libfabric isn't on this node (EKS's AL2023 AMIs install EFA")


def test_31_efa_devices_in_sysfs_reject_the_node_naming_efa_devices(tmp_path):
    folder = p5_folder(tmp_path)
    lines = (folder / "rdma-devices.txt").read_text(encoding="utf-8").splitlines()
    (folder / "rdma-devices.txt").write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    report = check_folder(P5, folder)
    assert report.failed == ("efa.devices",)
    [check] = [c for c in report.checks if c.name == "efa.devices"]
    assert (check.expected, check.observed) == ("32 EFA devices (sysfs, driver efa)", "31 EFA devices")


def test_an_rdma_device_of_another_driver_is_shown_and_not_counted_as_efa(tmp_path):
    folder = p5_folder(tmp_path)
    text = (folder / "rdma-devices.txt").read_text(encoding="utf-8").replace("rdmap16s27 efa", "rdmap16s27 -")
    (folder / "rdma-devices.txt").write_text(text + "mlx5_0 mlx5_core\n", encoding="utf-8")
    [check] = [c for c in check_folder(P5, folder).checks if c.name == "efa.devices"]
    assert (check.passed, check.observed) == (False, "31 EFA devices; other RDMA devices: mlx5_0 (mlx5_core), rdmap16s27 (-)")


def test_a_node_whose_kernel_registered_no_rdma_device_counts_none_rather_than_missing_evidence(tmp_path):
    folder = p5_folder(tmp_path)
    (folder / "rdma-devices.txt").write_text(list_rdma_devices(tmp_path / "no-such-sys"), encoding="utf-8")
    report = check_folder(P5, folder)
    assert report.failed == ("efa.devices",)
    assert [c.observed for c in report.checks if c.name == "efa.devices"] == ["0 EFA devices"]


def test_a_folder_without_the_sysfs_listing_fails_as_missing_evidence_naming_the_command(tmp_path):
    folder = p5_folder(tmp_path)
    (folder / "rdma-devices.txt").unlink()
    report = check_folder(P5, folder)
    assert report.failed == ("evidence.rdma-devices.txt",)
    assert [c.expected for c in report.checks if not c.passed] == ["the output of `python3 -m acceptance rdma-devices`"]


def _sysfs(root: Path, devices: dict[str, str]) -> Path:
    """A sysfs tree laid out as the kernel's: class/infiniband/<dev> -> the PCI function's infiniband/<dev>, whose
    `device` is the PCI function, whose `driver` links to bus/pci/drivers/<driver>."""
    for number, (name, driver) in enumerate(sorted(devices.items())):
        function = root / "devices" / "pci0000:00" / f"0000:00:{16 + number:02x}.0"
        (function / "infiniband" / name).mkdir(parents=True)
        (root / "bus" / "pci" / "drivers" / driver).mkdir(parents=True, exist_ok=True)
        (function / "driver").symlink_to(Path("../../../bus/pci/drivers") / driver)
        (function / "infiniband" / name / "device").symlink_to("../..")
        (root / "class" / "infiniband").mkdir(parents=True, exist_ok=True)
        (root / "class" / "infiniband" / name).symlink_to(Path("../../devices/pci0000:00") / function.name / "infiniband" / name)
    return root


def test_the_sysfs_listing_names_each_device_with_the_driver_its_link_ends_in(tmp_path):
    root = _sysfs(tmp_path / "sys", {"rdmap16s27": "efa", "rdmap17s27": "efa", "mlx5_0": "mlx5_core"})
    assert list_rdma_devices(root).splitlines() == [
        f"# {root}/class/infiniband: each RDMA device and the kernel driver bound to it",
        "mlx5_0 mlx5_core",
        "rdmap16s27 efa",
        "rdmap17s27 efa",
    ]


def test_the_rdma_devices_command_prints_the_listing_the_check_reads(tmp_path):
    root = _sysfs(tmp_path / "sys", {f"rdmap{bus}s27": "efa" for bus in range(16, 48)})
    run = subprocess.run(
        [sys.executable, "-m", "acceptance", "rdma-devices", "--sys", str(root)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    folder = p5_folder(tmp_path)
    (folder / "rdma-devices.txt").write_text(run.stdout, encoding="utf-8")
    assert check_folder(P5, folder).passed


def test_where_fi_info_exists_31_libfabric_devices_fail_efa_libfabric(tmp_path):
    folder = p5_folder(tmp_path)
    text = (FIXTURES / "libfabric" / "p5-48xlarge-fi_info.txt").read_text(encoding="utf-8")
    (folder / "fi_info.txt").write_text(text, encoding="utf-8")
    assert check_folder(P5, folder).passed
    (folder / "fi_info.txt").write_text(text[: text.rindex("provider: efa")], encoding="utf-8")
    report = check_folder(P5, folder)
    assert report.failed == ("efa.libfabric",)
    assert [c.observed for c in report.checks if c.name == "efa.libfabric"] == ["31 EFA devices"]


def test_libfabrics_real_no_efa_answer_fails_the_libfabric_check_saying_so(tmp_path):
    folder = p5_folder(tmp_path)
    # What the recorder writes: the real fi_info's standard output (empty) then its standard error.
    answer = (LIBFABRIC / "fi_info-efa-rdm.stdout.txt").read_text() + (LIBFABRIC / "fi_info-efa-rdm.stderr.txt").read_text()
    (folder / "fi_info.txt").write_text(answer, encoding="utf-8")
    report = check_folder(P5, folder)
    assert report.failed == ("efa.libfabric",)
    observed = [c.observed for c in report.checks if c.name == "efa.libfabric"]
    assert observed == ["no EFA device: libfabric answered fi_getinfo -61 (FI_ENODATA: no efa provider or device)"]


def test_the_tcp_providers_listing_counts_no_efa_device(tmp_path):
    folder = p5_folder(tmp_path)
    (folder / "fi_info.txt").write_text((LIBFABRIC / "fi_info-tcp-rdm.txt").read_text(), encoding="utf-8")
    assert check_folder(P5, folder).failed == ("efa.libfabric",)


def test_a_missing_file_the_level_needs_is_a_failed_check_never_a_pass(tmp_path):
    folder = p5_folder(tmp_path)
    (folder / "dcgmi-diag.json").unlink()
    report = check_folder(P5, folder)
    assert report.failed == ("evidence.dcgmi-diag.json",)
    assert [c.expected for c in report.checks if not c.passed] == ["the output of `dcgmi diag -r 2 -j -p pcie.gpu_nvlinks_expected_up=18`"]


def test_the_inventory_level_needs_no_diagnostic_and_the_exhaustive_level_runs_r4():
    assert [c.file for c in commands(replace(P5, level="inventory"))] == [
        "nvidia-smi-q.xml",
        "nvidia-smi-nvlink-s.txt",
        "dmesg.txt",
        "rdma-devices.txt",
        "fi_info.txt",
    ]
    assert commands(replace(P5, level="exhaustive"))[-1].argv[:4] == ("dcgmi", "diag", "-r", "4")


def test_the_real_vms_empty_nvlink_answer_fails_an_nvlink_expectation(tmp_path):
    # The capture's VM printed nothing for `nvidia-smi nvlink -s`: one GPU passed through, no NVSwitch.
    folder = real_folder(tmp_path)
    (folder / "nvidia-smi-nvlink-s.txt").write_text("", encoding="utf-8")
    report = check_folder(replace(one_h100(), nvlinks_per_gpu=18), folder)
    assert report.failed == ("gpu.nvlinks",)
    assert [c.observed for c in report.checks if c.name == "gpu.nvlinks"] == ["0 GPUs with >= 18 up; 1 GPU(s) not listed"]


TRN2 = Expectation(pool="trn", instance_type="trn2.48xlarge", level="inventory", accelerator_kind="neuron", accelerator_count=16, neuron_cores=128)


def test_a_trn2_node_lists_its_16_devices_and_128_physical_cores(tmp_path):
    report = check_folder(TRN2, FIXTURES / "trn2-48xlarge")
    assert report.passed
    assert [(c.name, c.observed) for c in report.checks] == [("neuron.devices", "16 devices"), ("neuron.cores", "128 cores on 16 devices")]


def test_a_neuron_device_missing_fails_devices_and_cores(tmp_path):
    devices = json.loads((FIXTURES / "trn2-48xlarge" / "neuron-ls.json").read_text())
    (tmp_path / "neuron-ls.json").write_text(json.dumps(devices[:15]), encoding="utf-8")
    assert check_folder(TRN2, tmp_path).failed == ("neuron.devices", "neuron.cores")


def test_the_recorder_runs_each_command_once_and_a_missing_tool_leaves_a_failed_check(tmp_path):
    ran = []

    def runner(argv):
        ran.append(argv)
        if argv[0] == "dcgmi":
            raise FileNotFoundError(2, "No such file or directory")
        source = {"nvidia-smi-q.xml": EXAMPLE, "dmesg.txt": EXAMPLE}
        file = next(c.file for c in commands(one_h100()) if c.argv == argv)
        return subprocess.CompletedProcess(argv, 0, (source[file] / file).read_text(), "")

    expectation = replace(one_h100(), level="quick")
    outcome = record(expectation, tmp_path / "evidence", runner)
    assert ran == [("nvidia-smi", "-q", "-x"), ("dmesg",), ("dcgmi", "diag", "-r", "1", "-j")]
    assert outcome["dcgmi-diag.json"] == "not written: dcgmi could not run (No such file or directory)"
    assert check_folder(expectation, tmp_path / "evidence").failed == ("evidence.dcgmi-diag.json",)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"pool": "p", "instance_type": "t", "efa_device": 32}, "unknown field(s) ['efa_device']; allowed: ["),
        ({"pool": "p", "instance_type": "t", "level": "medium"}, "level 'medium' is not one of ['inventory', 'quick', 'standard', 'long', 'exh"),
        ({"pool": "p", "instance_type": "t", "accelerator_count": True}, "'accelerator_count' must be int, got True"),
        ({"instance_type": "t"}, "'pool' is required and must be a string, got None"),
    ],
)
def test_a_bad_expectation_is_refused_with_the_field_and_whats_allowed(document, message):
    with pytest.raises(ExpectationError) as raised:
        Expectation.from_dict(document)
    assert str(raised.value).startswith(message)


def test_python_dash_m_acceptance_exits_0_accepted_1_rejected_2_unreadable(tmp_path):
    folder = real_folder(tmp_path)
    run = [sys.executable, "-m", "acceptance", "check", "--expect", str(folder / "expectation.json"), "--from"]
    accepted = subprocess.run([*run, str(folder), "--json"], capture_output=True, text=True, cwd=ROOT)
    (folder / "dmesg.txt").unlink()
    rejected = subprocess.run([*run, str(folder)], capture_output=True, text=True, cwd=ROOT)
    unreadable = subprocess.run([*run, str(tmp_path / "nowhere")], capture_output=True, text=True, cwd=ROOT)
    assert (accepted.returncode, json.loads(accepted.stdout)["passed"]) == (0, True)
    assert (rejected.returncode, rejected.stdout.splitlines()[-1]) == (1, "REJECTED (1 failed: evidence.dmesg.txt)")
    assert (unreadable.returncode, unreadable.stderr.strip()) == (2, f"{tmp_path / 'nowhere'}: no such folder")


NO_DRIVER = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
    "Make sure that the latest NVIDIA driver is installed and running.\n"
)


def test_nvidia_smi_without_a_driver_fails_the_inventory_quoting_what_it_printed(tmp_path):
    folder = real_folder(tmp_path)
    (folder / "nvidia-smi-q.xml").write_text(NO_DRIVER, encoding="utf-8")
    report = check_folder(one_h100(), folder)
    assert report.failed == ("gpu.inventory",)
    said = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is"
    assert report.checks[0].observed == f'not XML (syntax error: line 1, column 0); it printed "{said}"'


def test_a_dcgmi_error_instead_of_json_fails_the_diagnostic_quoting_it(tmp_path):
    folder = p5_folder(tmp_path)
    (folder / "dcgmi-diag.json").write_text("Error: unable to establish a connection to the specified host: localhost\n", encoding="utf-8")
    report = check_folder(P5, folder)
    assert report.failed == ("gpu.dcgm-diag",)
    seen = [c.observed for c in report.checks if c.name == "gpu.dcgm-diag"]
    assert seen == ["unreadable (no JSON object); it printed 'Error: unable to establish a connection to the specified host: localhost'"]


def test_exhaustive_holds_every_gpu_to_mig_off_and_names_the_gpu_with_mig_on():
    from dataclasses import replace

    from acceptance.nvidia import gpu_checks
    from acceptance.report import Checks
    from tests.acceptance.evidence import P5, eight_gpu_xml, set_text

    def mig_on(gpus):
        set_text(gpus[3], "mig_mode/current_mig", "Enabled")

    for expectation, xml, wanted in (
        (replace(P5, level="exhaustive"), eight_gpu_xml(), [("gpu.mig-off", True, "MIG disabled on 8 GPUs")]),
        (replace(P5, level="exhaustive"), eight_gpu_xml(mig_on), [("gpu.mig-off", False, "GPU 3 (00000000:86:00.0): MIG enabled")]),
        (P5, eight_gpu_xml(mig_on), []),
    ):
        checks = Checks(source="nvidia-smi -q -x")
        gpu_checks(expectation, xml, checks)
        assert [(check.name, check.passed, check.observed) for check in checks.made if check.name == "gpu.mig-off"] == wanted
