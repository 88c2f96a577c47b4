"""`nvidia-smi -q` as text: read as faithfully as the XML (the same node gives the same verdicts), with the faults of the XML tests."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from acceptance import check_folder
from acceptance.report import Checks
from acceptance.smi import parse_text, parse_xml
from acceptance.smi_text import parse_tree
from tests.acceptance.evidence import BUS_IDS, EXAMPLE, P5, one_h100, p5_folder
from tests.acceptance.text_evidence import GPUD_H100_TEXT, H100_TEXT, TITAN_V_TEXT, eight_h100_text, set_value


def _text_folder(tmp_path, text: str):
    """The p5 folder with the XML replaced by `text` as nvidia-smi-q.txt."""
    folder = p5_folder(tmp_path)
    (folder / "nvidia-smi-q.xml").unlink()
    (folder / "nvidia-smi-q.txt").write_text(text, encoding="utf-8")
    return folder


def test_the_same_h100_read_from_its_text_and_its_xml_is_the_same_gpu():
    assert parse_text(H100_TEXT.read_text()) == parse_xml((EXAMPLE / "nvidia-smi-q.xml").read_text())


def test_the_same_h100_folder_gets_the_same_verdicts_from_its_text_as_from_its_xml(tmp_path):
    xml_folder, text_folder = tmp_path / "xml", tmp_path / "text"
    shutil.copytree(EXAMPLE, xml_folder)
    shutil.copytree(EXAMPLE, text_folder)
    (text_folder / "nvidia-smi-q.xml").unlink()
    shutil.copy(H100_TEXT, text_folder / "nvidia-smi-q.txt")
    by_xml, by_text = check_folder(one_h100(), xml_folder), check_folder(one_h100(), text_folder)
    assert by_text.passed and by_xml.passed
    assert [(c.name, c.passed, c.expected, c.observed) for c in by_text.checks] == [(c.name, c.passed, c.expected, c.observed) for c in by_xml.checks]
    assert {c.source for c in by_text.checks if c.name == "gpu.model"} == {"nvidia-smi -q (nvidia-smi-q.txt)"}


def test_eight_gpus_of_text_pass_a_p5_48xlarge_and_the_xml_wins_where_both_are_kept(tmp_path):
    folder = _text_folder(tmp_path, eight_h100_text())
    assert check_folder(P5, folder).failed == ()
    # Beside the XML the text is not read: the recorder's own output is judged.
    (folder / "nvidia-smi-q.txt").write_text("garbage", encoding="utf-8")
    shutil.copy(p5_folder(tmp_path / "again") / "nvidia-smi-q.xml", folder / "nvidia-smi-q.xml")
    assert check_folder(P5, folder).failed == ()


def test_gpuds_real_eight_h100_node_passes_a_p5_48xlarge_expectation(tmp_path):
    report = check_folder(P5, _text_folder(tmp_path, GPUD_H100_TEXT.read_text()))
    assert report.failed == ()
    observed = {check.name: check.observed for check in report.checks}
    assert observed["gpu.count"] == "8 attached, 8 listed"
    assert observed["gpu.model"] == "NVIDIA H100 80GB HBM3 on 8 GPUs"
    assert observed["gpu.pcie"] == "gen 5 x16 (now gen 5 x16) on 8 GPUs"
    # One of its GPUs was running a job (a python process, SW power cap active): a load reading, not a fault.
    assert [gpu.bus_id for gpu in parse_text(GPUD_H100_TEXT.read_text())[1]] == list(BUS_IDS)


def test_a_pending_row_remap_put_into_gpuds_real_node_fails_the_row_remap_check_naming_the_gpu(tmp_path):
    lines = GPUD_H100_TEXT.read_text().splitlines()
    # The sixth GPU (00000000:A8:00.0) is the one changed: its `Remapped Rows` section's `Pending : No` becomes `Yes`.
    gpu = lines.index("GPU 00000000:A8:00.0")
    remapped = lines.index("    Remapped Rows", gpu)
    pending = lines.index("        Pending                           : No", remapped)
    lines[pending] = "        Pending                           : Yes"
    report = check_folder(P5, _text_folder(tmp_path, "\n".join(lines) + "\n"))
    assert report.failed == ("gpu.row-remap",)
    assert [c.observed for c in report.checks if c.name == "gpu.row-remap"] == ["GPU 5 (00000000:A8:00.0): row remap pending"]


# One line of one GPU's text changed: (GPU, label path, new value, the check that must fail, what it must say it saw).
TEXT_FAULTS = {
    "a pending row remap": (5, "Remapped Rows/Pending", "Yes", "gpu.row-remap", "row remap pending"),
    "a remap failure": (2, "Remapped Rows/Remapping Failure Occurred", "Yes", "gpu.row-remap", "row remap failed"),
    "a page pending retirement": (1, "Retired Pages/Pending Page Blacklist", "Yes", "gpu.row-remap", "page retirement pending"),
    "ECC off": (3, "ECC Mode/Current", "Disabled", "gpu.ecc", "ECC disabled"),
    "an uncorrected DRAM error": (0, "ECC Errors/Volatile/DRAM Uncorrectable", "2", "gpu.uncorrected-ecc", "2 uncorrected errors"),
    "an uncorrected SRAM parity error": (7, "ECC Errors/Volatile/SRAM Uncorrectable Parity", "1", "gpu.uncorrected-ecc", "1 uncorrected errors"),
    "a lowered power limit": (2, "GPU Power Readings/Current Power Limit", "500.00 W", "gpu.power-limit", "500 W"),
    "a link that trains only to x8": (6, "PCI/GPU Link Info/Link Width/Max", "8x", "gpu.pcie", "gen 5 x8 (now gen 5 x16)"),
    "an H100 NVL among SXM5s": (4, "Product Name", "NVIDIA H100 NVL", "gpu.model", "NVIDIA H100 NVL"),
}


@pytest.mark.parametrize("fault", sorted(TEXT_FAULTS))
def test_each_fault_in_the_text_fails_exactly_its_check_naming_the_gpu(tmp_path, fault):
    gpu, path, value, name, seen = TEXT_FAULTS[fault]
    report = check_folder(P5, _text_folder(tmp_path, eight_h100_text(lambda blocks: set_value(blocks[gpu], path, value))))
    assert report.failed == (name,)
    assert next(check.observed for check in report.checks if check.name == name) == f"GPU {gpu} ({BUS_IDS[gpu]}): {seen}"


def test_a_gpu_missing_from_the_text_fails_the_count(tmp_path):
    def drop(blocks):
        del blocks[3]

    report = check_folder(P5, _text_folder(tmp_path, eight_h100_text(drop)))
    assert report.failed == ("gpu.count",)
    assert [c.observed for c in report.checks if c.name == "gpu.count"] == ["7 attached, 7 listed"]


def test_a_titan_v_from_gpud_reads_its_collapsed_sections_and_na_values_as_no_value():
    attached, [gpu] = parse_text(TITAN_V_TEXT.read_text())
    assert attached == 1
    assert (gpu.bus_id, gpu.name, gpu.memory_mib, gpu.power_limit_w) == ("00000000:01:00.0", "NVIDIA TITAN V", 12288, 250.0)
    # ECC `N/A`, `Remapped Rows : N/A` (a section printed as a value on Volta), the Volta ECC layout all `N/A`.
    assert (gpu.ecc_enabled, gpu.uncorrected_errors, gpu.remap_pending, gpu.remap_failed, gpu.retirement_pending) == (False, 0, False, False, False)
    # An idle desktop GPU at PCIe gen 1 that can train to gen 3.
    assert (gpu.pcie_max_generation, gpu.pcie_max_width, gpu.pcie_generation, gpu.pcie_width) == (3, 16, 1, 16)
    assert (gpu.c2c_mode, gpu.fabric_state, gpu.clique_id) == (None, None, None)


def test_the_text_tree_keeps_colons_in_values_strips_padded_labels_and_nests_by_indent():
    root = parse_tree(H100_TEXT.read_text())
    [gpu] = [child for child in root.children if child.label.startswith("GPU ")]
    assert root.text("Timestamp") == "Fri Nov 27 16:52:13 2026"
    assert gpu.text("PCI/Bus Id") == "00000000:00:06.0"
    # `GPU Memory Power Readings ` is printed with a trailing space.
    assert gpu.text("GPU Memory Power Readings/Average Power Draw") == "43.07 W"
    assert gpu.text("PCI/GPU Link Info/PCIe Generation/Max") == "5"
    assert gpu.text("Fabric/State") is None and gpu.find("Fabric/State") is not None


@pytest.mark.parametrize(
    ("text", "observed"),
    [
        (
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
            "no '==============NVSMI LOG==============' header: not the text of nvidia-smi -q; "
            'it printed "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver."',
        ),
        ("", "no '==============NVSMI LOG==============' header: not the text of nvidia-smi -q; it printed nothing"),
    ],
)
def test_text_that_is_not_nvidia_smi_q_fails_the_inventory_quoting_it(tmp_path, text, observed):
    report = check_folder(P5, _text_folder(tmp_path, text))
    assert report.failed == ("gpu.inventory",)
    assert [(c.expected, c.observed) for c in report.checks if c.name == "gpu.inventory"] == [("the text of nvidia-smi -q", observed)]


def test_with_neither_file_the_missing_check_names_both():
    from acceptance.evidence import commands
    from acceptance.run import _missing

    [smi] = [command for command in commands(P5) if command.file == "nvidia-smi-q.xml"]
    check = _missing(smi)
    assert (check.name, check.expected) == (
        "evidence.nvidia-smi-q.xml",
        "the output of `nvidia-smi -q -x` (or in nvidia-smi-q.txt that of `nvidia-smi -q`)",
    )


def _pcie(max_generation: str, max_width: str, generation: str = "5", width: str = "16x"):
    def change(blocks):
        set_value(blocks[0], "PCI/GPU Link Info/PCIe Generation/Max", max_generation)
        set_value(blocks[0], "PCI/GPU Link Info/PCIe Generation/Current", generation)
        set_value(blocks[0], "PCI/GPU Link Info/Link Width/Max", max_width)
        set_value(blocks[0], "PCI/GPU Link Info/Link Width/Current", width)

    checks = Checks("nvidia-smi -q")
    from acceptance.nvidia import gpu_text_checks

    gpu_text_checks(P5, eight_h100_text(change), checks)
    return next((c.passed, c.observed) for c in checks.made if c.name == "gpu.pcie")


def test_an_idle_gpu_at_current_x8_and_gen_1_with_max_gen_5_x16_does_not_fail_pcie():
    assert _pcie("5", "16x", generation="1", width="8x") == (True, "gen 5 x16 (now gen 1 x8), gen 5 x16 (now gen 5 x16) on 8 GPUs")


@pytest.mark.parametrize(
    ("max_generation", "max_width", "passed"),
    [("5", "16x", True), ("4", "16x", False), ("5", "8x", False), ("6", "16x", True), ("N/A", "16x", False), ("5", "N/A", False)],
)
def test_pcie_holds_each_half_of_the_maximum_link_at_its_line(max_generation, max_width, passed):
    assert _pcie(max_generation, max_width)[0] is passed


def test_the_p5_expectation_holds_the_product_name_an_h100_pcie_or_nvl_fails_it():
    from acceptance.nvidia import judge_gpus

    _, [h100] = parse_xml((EXAMPLE / "nvidia-smi-q.xml").read_text())
    for name, passed in (("NVIDIA H100 80GB HBM3", True), ("NVIDIA H100 PCIe", False), ("NVIDIA H100 NVL", False), ("NVIDIA H100 80GB HBM3 ", False)):
        checks = Checks("nvidia-smi -q")
        judge_gpus(replace(P5, accelerator_count=1), 1, [replace(h100, name=name)], checks)
        assert [(c.passed, c.expected) for c in checks.made if c.name == "gpu.model"] == [(passed, "every GPU named 'NVIDIA H100 80GB HBM3'")]


@pytest.mark.parametrize(
    ("model", "name", "passed"),
    [
        ("H200", "NVIDIA H200", True),
        # gpud's GH200 taken for an H200 (leptonai/gpud#1206): a word, not a substring.
        ("H200", "NVIDIA GH200 480GB", False),
        ("A100", "NVIDIA A100-SXM4-80GB", True),
        ("GB200", "NVIDIA GB200", True),
        ("B200", "NVIDIA GB200", False),
        ("h100", "NVIDIA H100 80GB HBM3", True),
    ],
)
def test_without_a_product_name_the_model_is_matched_as_a_word_of_the_name(model, name, passed):
    from acceptance.nvidia import judge_gpus

    _, [h100] = parse_xml((EXAMPLE / "nvidia-smi-q.xml").read_text())
    checks = Checks("nvidia-smi -q")
    judge_gpus(replace(P5, accelerator_count=1, accelerator_model=model, accelerator_product=None), 1, [replace(h100, name=name)], checks)
    assert [c.passed for c in checks.made if c.name == "gpu.model"] == [passed]


def test_the_pcie_check_says_it_holds_what_the_link_can_train_to_not_its_idle_speed():
    from acceptance.nvidia import gpu_text_checks

    checks = Checks("nvidia-smi -q")
    gpu_text_checks(P5, eight_h100_text(), checks)
    [pcie] = [c for c in checks.made if c.name == "gpu.pcie"]
    assert pcie.expected == "every GPU's link able to train to PCIe gen 5 x16 (the current values, lower when idle, not judged)"
