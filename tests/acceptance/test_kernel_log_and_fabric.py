"""GPUs the driver lost without an Xid (published kernel logs), and a GB200 tray held to its NVLink domain, C2C link and 18 NVLinks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from acceptance import check_folder
from acceptance.kernel_log import driver_faults, kernel_log_checks
from acceptance.report import Checks
from blueprints.catalog import load_catalog
from blueprints.loader import load_blueprint
from railyard.expectations import pool_expectation
from tests.acceptance.evidence import ROOT, p5_folder
from tests.acceptance.text_evidence import GB200_BUS_IDS, KERNEL_LOGS, gb200_nvlinks, gb200_text, set_value, write

FALLEN = (KERNEL_LOGS / "nvsentinel-155-fallen-off-the-bus.txt").read_text()
INIT = (KERNEL_LOGS / "cmpunlocker-4-rminitadapter.txt").read_text()


def _kernel_checks(text: str) -> dict[str, tuple[bool, str]]:
    checks = Checks("dmesg")
    kernel_log_checks(text, checks)
    return {check.name: (check.passed, check.observed) for check in checks.made}


def test_nvsentinels_fallen_gpu_with_no_xid_fails_the_driver_check_naming_its_address_and_the_failed_probe():
    assert _kernel_checks(FALLEN) == {
        "gpu.xid": (True, "none"),
        "gpu.driver": (False, "0000:b3:00.0 fell off the bus; the probe failed for 1 device(s)"),
    }


def test_a_dmesg_with_only_the_fallen_off_the_bus_lines_fails_naming_the_address():
    only = "".join(FALLEN.splitlines(keepends=True)[:3])
    assert _kernel_checks(only)["gpu.driver"] == (False, "0000:b3:00.0 fell off the bus")


def test_the_message_on_one_line_is_read_too_and_an_upper_case_address_is_named_once():
    line = (
        "[ 9.1] NVRM: The NVIDIA GPU 0000:B3:00.0 (PCI ID: 10de:26b5) installed in this system has fallen off the bus"
        " and is not responding to commands.\n"
    )
    assert driver_faults(line + line) == ["0000:b3:00.0 fell off the bus"]


def test_a_neighbours_message_just_before_does_not_take_the_blame():
    log = (
        "[ 3.0] NVRM: The NVIDIA GPU 0000:a1:00.0 (PCI ID: 10de:2330) installed in this system is not supported.\n"
        "[ 3.1] NVRM: The NVIDIA GPU 0000:b3:00.0 (PCI ID: 10de:2330) installed in this system has fallen off the bus.\n"
    )
    assert driver_faults(log) == ["0000:b3:00.0 fell off the bus"]


def test_a_failed_probe_alone_fails_with_the_largest_count_the_driver_logged():
    probes = "[ 1.0] NVRM: The NVIDIA probe routine failed for 1 device(s).\n[ 2.0] NVRM: The NVIDIA probe routine failed for 2 device(s).\n"
    assert _kernel_checks(probes)["gpu.driver"] == (False, "the probe failed for 2 device(s)")


def test_a_gpu_the_driver_could_not_initialise_fails_naming_its_address():
    assert _kernel_checks(INIT)["gpu.driver"] == (False, "0000:01:00.0 RmInitAdapter failed")


def test_an_unsupported_gpu_message_or_a_clean_log_is_no_driver_fault(tmp_path):
    # Another message that opens the same way: the window of three lines holds no "fallen off the bus".
    other = (
        "[ 3.0] NVRM: The NVIDIA GPU 0000:b3:00.0 (PCI ID: 10de:26b5)\n"
        "[ 3.1] NVRM: installed in this system is not supported by the\n"
        "[ 3.2] NVRM: NVIDIA 570.158.01 driver release.\n"
    )
    assert _kernel_checks(other)["gpu.driver"] == (True, "none")
    clean = (p5_folder(tmp_path) / "dmesg.txt").read_text()
    assert _kernel_checks(clean) == {"gpu.xid": (True, "none"), "gpu.driver": (True, "none")}


def test_a_node_folder_with_the_fallen_gpus_dmesg_is_rejected_for_the_driver_check_alone(tmp_path):
    from tests.acceptance.evidence import P5

    folder = p5_folder(tmp_path)
    (folder / "dmesg.txt").write_text(FALLEN, encoding="utf-8")
    assert check_folder(P5, folder).failed == ("gpu.driver",)


def _gb200_expectation():
    blueprint = load_blueprint(ROOT / "blueprints" / "examples" / "p6e-gb200-nvl72.yaml").blueprint
    assert blueprint is not None
    # The GPU side at the inventory level: EFA's evidence and DCGM's diagnostic are tested with the p5 folder.
    return replace(pool_expectation(blueprint, load_catalog(), "nvl72", "inventory"), efa_devices=None)


def _gb200_folder(tmp_path, change=None, down=None):
    clean = (p5_folder(tmp_path / "p5") / "dmesg.txt").read_text()
    return write(tmp_path / "gb200", {"nvidia-smi-q.txt": gb200_text(change), "nvidia-smi-nvlink-s.txt": gb200_nvlinks(down), "dmesg.txt": clean})


def test_the_p6e_gb200_expectation_holds_four_gb200s_18_nvlinks_each_their_fabric_and_c2c():
    expectation = _gb200_expectation()
    assert (expectation.accelerator_count, expectation.accelerator_model, expectation.accelerator_product) == (4, "GB200", "NVIDIA GB200")
    assert (expectation.nvlinks_per_gpu, expectation.nvlink_fabric, expectation.c2c) == (18, True, True)
    assert (expectation.pcie_generation, expectation.pcie_width) == (None, None)


def test_a_healthy_gb200_tray_passes_its_pools_expectation(tmp_path):
    report = check_folder(_gb200_expectation(), _gb200_folder(tmp_path))
    assert report.failed == ()
    observed = {check.name: check.observed for check in report.checks}
    assert observed["gpu.fabric"] == "Completed, clique 4026 on 4 GPUs"
    assert observed["gpu.c2c"] == "C2C Enabled on 4 GPUs"
    assert observed["gpu.nvlinks"] == "4 GPUs with >= 18 up"
    assert observed["gpu.model"] == "NVIDIA GB200 on 4 GPUs"


def test_a_gb200_tray_with_nvlinks_down_fails_the_nvlink_check_naming_the_gpu(tmp_path):
    report = check_folder(_gb200_expectation(), _gb200_folder(tmp_path, down={2: 1}))
    assert report.failed == ("gpu.nvlinks",)
    assert [c.observed for c in report.checks if c.name == "gpu.nvlinks"] == ["GPU 2: 17 up"]


# One fabric line of one GPU changed: (GPU, label under Fabric, value, what the check must say it saw).
FABRIC_FAULTS = {
    # A GPU whose fabric manager never finished (NVIDIA/NVSentinel#889).
    "still in progress": (1, "State", "In Progress", "state In Progress"),
    "not started": (0, "State", "Not Started", "state Not Started"),
    # Azure/azhpc-images#506's node: Completed, but not Success, with no clique and a zero cluster.
    "insufficient resources": (3, "Status", "Insufficient Resources", "status Insufficient Resources"),
    "clique 0": (2, "CliqueId", "0", "clique 0"),
    "no clique": (2, "CliqueId", "N/A", "clique N/A"),
    "a zero cluster": (1, "ClusterUUID", "00000000-0000-0000-0000-000000000000", "cluster 00000000-0000-0000-0000-000000000000"),
    # kubernetes-sigs/dra-driver-nvidia-gpu#626: Completed, Success, a clique, and Unhealthy.
    "unhealthy": (0, "Health/Summary", "Unhealthy", "health Unhealthy"),
}


@pytest.mark.parametrize("fault", sorted(FABRIC_FAULTS))
def test_each_fabric_fault_fails_the_fabric_check_naming_the_gpu(tmp_path, fault):
    gpu, label, value, seen = FABRIC_FAULTS[fault]
    report = check_folder(_gb200_expectation(), _gb200_folder(tmp_path, lambda blocks: set_value(blocks[gpu], f"Fabric/{label}", value)))
    assert report.failed == ("gpu.fabric",)
    assert [c.observed for c in report.checks if c.name == "gpu.fabric"] == [f"GPU {gpu} ({GB200_BUS_IDS[gpu]}): {seen}"]


def test_a_healthy_summary_passes_and_the_status_is_not_read_before_the_state_completes(tmp_path):
    def healthy(blocks):
        set_value(blocks[0], "Fabric/Health/Summary", "Healthy")

    assert check_folder(_gb200_expectation(), _gb200_folder(tmp_path / "a", healthy)).failed == ()

    def in_progress(blocks):
        set_value(blocks[0], "Fabric/State", "In Progress")
        set_value(blocks[0], "Fabric/Status", "N/A")

    report = check_folder(_gb200_expectation(), _gb200_folder(tmp_path / "b", in_progress))
    assert [c.observed for c in report.checks if c.name == "gpu.fabric"] == [f"GPU 0 ({GB200_BUS_IDS[0]}): state In Progress"]


def test_gpus_of_one_tray_in_two_cliques_fail_the_fabric_check_showing_the_split(tmp_path):
    def split(blocks):
        set_value(blocks[3], "Fabric/CliqueId", "4027")

    report = check_folder(_gb200_expectation(), _gb200_folder(tmp_path, split))
    assert report.failed == ("gpu.fabric",)
    [observed] = [c.observed for c in report.checks if c.name == "gpu.fabric"]
    assert observed.startswith("2 NVLink domains: GPU 0 (00000009:01:00.0): clique 4026 of 9c6f5af3-53bf-49b5-a436-b66766c413c3; ")
    assert observed.endswith("GPU 3 (00000009:04:00.0): clique 4027 of 9c6f5af3-53bf-49b5-a436-b66766c413c3")


@pytest.mark.parametrize(("mode", "passed"), [("Enabled", True), ("Disabled", False), ("N/A", False)])
def test_c2c_must_be_enabled_on_every_gpu(tmp_path, mode, passed):
    report = check_folder(_gb200_expectation(), _gb200_folder(tmp_path, lambda blocks: set_value(blocks[1], "GPU C2C Mode", mode)))
    [check] = [c for c in report.checks if c.name == "gpu.c2c"]
    assert check.passed is passed
    if not passed:
        assert check.observed == f"GPU 1 ({GB200_BUS_IDS[1]}): C2C {mode}"


def test_an_h100_node_is_not_held_to_a_fabric_or_c2c(tmp_path):
    from tests.acceptance.evidence import P5

    names = {check.name for check in check_folder(P5, p5_folder(tmp_path)).checks}
    assert not {"gpu.fabric", "gpu.c2c"} & names
