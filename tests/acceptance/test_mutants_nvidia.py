"""The GPU checks (acceptance/nvidia.py) in the words a node's annotation carries, where mutation testing found them
unheld: every check's expected and observed text on a sound eight-GPU p5 node at the exhaustive level and on one with
a fault per check, output that is no `nvidia-smi -q` in either format, the skip reasons where the catalog gives no
figure, and the NVLink listing's edges (a link at the smallest speed, lines outside a GPU's block, no GPU count)."""

from __future__ import annotations

import dataclasses

from acceptance.nvidia import gpu_checks, gpu_text_checks, judge_gpus, nvlink_checks, parse_nvlinks
from acceptance.report import Checks
from acceptance.smi import parse_xml
from tests.acceptance.evidence import BUS_IDS, P5, eight_gpu_xml, set_text

EXHAUSTIVE = dataclasses.replace(P5, level="exhaustive")
PCIE = "every GPU's link able to train to PCIe gen 5 x16 (the current values, lower when idle, not judged)"
MEMORY_FAULTS = "no pending row remap, no remap failure, no page pending retirement"


def _made(judge, expectation, text: str) -> tuple[list[tuple[str, bool, str, str]], dict[str, str]]:
    checks = Checks(source="nvidia-smi-q.xml")
    judge(expectation, text, checks)
    return [(c.name, c.passed, c.expected, c.observed) for c in checks.made], checks.skipped


def test_a_sound_p5_node_at_the_exhaustive_level_passes_every_check_in_these_words():
    made, skipped = _made(gpu_checks, EXHAUSTIVE, eight_gpu_xml())
    assert made == [
        ("gpu.count", True, "8 GPUs", "8 attached, 8 listed"),
        ("gpu.model", True, "every GPU named 'NVIDIA H100 80GB HBM3'", "NVIDIA H100 80GB HBM3 on 8 GPUs"),
        ("gpu.memory", True, ">= 80281 MiB per GPU", "81559 MiB on 8 GPUs"),
        ("gpu.ecc", True, "ECC enabled on every GPU", "ECC enabled on 8 GPUs"),
        ("gpu.uncorrected-ecc", True, "no volatile uncorrectable ECC errors", "0 uncorrected errors on 8 GPUs"),
        ("gpu.row-remap", True, MEMORY_FAULTS, "no memory fault on 8 GPUs"),
        ("gpu.power-limit", True, ">= 700 W per GPU", "700 W on 8 GPUs"),
        ("gpu.pcie", True, PCIE, "gen 5 x16 (now gen 5 x16) on 8 GPUs"),
        ("gpu.mig-off", True, "MIG disabled on every GPU (DCGM r4 needs it off)", "MIG disabled on 8 GPUs"),
    ]
    assert skipped == {}


def test_ecc_off_on_one_gpu_and_mig_on_another_fail_their_checks_naming_each_gpu():
    def faults(gpus):
        set_text(gpus[0], "ecc_mode/current_ecc", "Disabled")
        set_text(gpus[1], "mig_mode/current_mig", "Enabled")

    made, _ = _made(gpu_checks, EXHAUSTIVE, eight_gpu_xml(faults))
    failed = [(name, observed) for name, passed, _, observed in made if not passed]
    assert failed == [("gpu.ecc", f"GPU 0 ({BUS_IDS[0]}): ECC disabled"), ("gpu.mig-off", f"GPU 1 ({BUS_IDS[1]}): MIG enabled")]


def test_below_the_exhaustive_level_mig_is_not_judged():
    made, _ = _made(gpu_checks, P5, eight_gpu_xml(lambda gpus: set_text(gpus[1], "mig_mode/current_mig", "Enabled")))
    assert "gpu.mig-off" not in [name for name, *_ in made]


def test_output_that_is_no_nvidia_smi_document_fails_the_inventory_naming_the_format_wanted_and_quoting_it():
    assert _made(gpu_checks, P5, "garbage")[0] == [
        ("gpu.inventory", False, "an nvidia-smi -q -x document", "not XML (syntax error: line 1, column 0); it printed 'garbage'")
    ]
    ((name, passed, expected, _),) = _made(gpu_text_checks, P5, "garbage")[0]
    assert (name, passed, expected) == ("gpu.inventory", False, "the text of nvidia-smi -q")


def test_figures_the_catalog_lacks_are_skipped_each_with_its_reason():
    bare = dataclasses.replace(P5, accelerator_product=None, accelerator_model=None, memory_mib_min=None, power_limit_w=None, pcie_width=None)
    made, skipped = _made(gpu_checks, bare, eight_gpu_xml())
    assert [name for name, *_ in made] == ["gpu.count", "gpu.ecc", "gpu.uncorrected-ecc", "gpu.row-remap"]
    assert skipped == {
        "gpu.model": "the expectation names no model",
        "gpu.memory": "the expectation gives no memory floor",
        "gpu.power-limit": "the catalog has no power figure for this accelerator",
        "gpu.pcie": "no published PCIe generation and width for this accelerator",
    }


def _nvlinks(expectation, text: str) -> tuple[bool, str, str]:
    checks = Checks(source="nvidia-smi nvlink -s")
    nvlink_checks(expectation, text, checks)
    ((check,),) = [checks.made]
    assert check.name == "gpu.nvlinks"
    return check.passed, check.expected, check.observed


def test_a_link_at_1_gb_s_is_up_and_one_at_0_is_down():
    assert parse_nvlinks("GPU 0: NVIDIA H100\n\t Link 0: 1 GB/s\n\t Link 1: 0 GB/s\n\t Link 2: <inactive>\n") == {0: (1, 3)}


def test_lines_before_the_first_gpu_and_between_gpus_are_not_links():
    text = "\t Link 0: 26.562 GB/s\nGPU 0: NVIDIA H100\n\t Link 0: 26.562 GB/s\n\nGPU 1: NVIDIA H100\nwarning: text\n\t Link 0: 26.562 GB/s\n"
    assert parse_nvlinks(text) == {0: (1, 1), 1: (1, 1)}


def test_gpus_short_of_links_are_each_named_and_unlisted_gpus_counted():
    text = "GPU 0: H100\n\t Link 0: 26.562 GB/s\nGPU 1: H100\n\t Link 0: <inactive>\nGPU 2: H100\n\t Link 0: <inactive>\n"
    expectation = dataclasses.replace(P5, nvlinks_per_gpu=1, accelerator_count=4)
    assert _nvlinks(expectation, text) == (False, "1 NVLinks up on each of 4 GPUs", "GPU 1: 0 up; GPU 2: 0 up; 1 GPU(s) not listed")


def test_without_a_gpu_count_only_the_gpus_listed_are_held_and_without_a_link_count_none_is_short():
    listed = "GPU 0: H100\n\t Link 0: 26.562 GB/s\n"
    assert _nvlinks(dataclasses.replace(P5, nvlinks_per_gpu=1, accelerator_count=None), listed) == (
        True,
        "1 NVLinks up on each of 0 GPUs",
        "1 GPUs with >= 1 up",
    )
    # The checker asks for the listing only where the design counts links (acceptance/evidence.py); called without one,
    # no GPU is short of it.
    down = "GPU 0: H100\n\t Link 0: <inactive>\n"
    assert _nvlinks(dataclasses.replace(P5, nvlinks_per_gpu=None, accelerator_count=1), down)[0] is True


def test_two_memory_faults_on_one_gpu_are_both_named():
    def faults(gpus):
        set_text(gpus[6], "remapped_rows/remapped_row_pending", "Yes")
        set_text(gpus[6], "remapped_rows/remapped_row_failure", "Yes")

    made, _ = _made(gpu_checks, P5, eight_gpu_xml(faults))
    assert [(n, p, o) for n, p, _, o in made if n == "gpu.row-remap"] == [
        ("gpu.row-remap", False, f"GPU 6 ({BUS_IDS[6]}): row remap pending, row remap failed")
    ]


def test_a_design_in_an_nvlink_domain_holds_the_listed_gpus_to_the_fabric_and_c2c():
    # The H100 capture has no fabric and no C2C figures: every GPU fails both, as a GB200 node that never joined would.
    made, _ = _made(gpu_checks, dataclasses.replace(P5, nvlink_fabric=True, c2c=True), eight_gpu_xml())
    assert [(n, p) for n, p, _, _ in made if n in ("gpu.fabric", "gpu.c2c")] == [("gpu.fabric", False), ("gpu.c2c", False)]


def test_the_pcie_observation_shows_the_current_link_where_either_half_of_it_is_reported():
    (sound,) = parse_xml(eight_gpu_xml())[1][:1]

    def pcie(**now) -> str:
        checks = Checks(source="nvidia-smi-q.xml")
        judge_gpus(P5, 1, [dataclasses.replace(sound, **now)], checks)
        return next(c.observed for c in checks.made if c.name == "gpu.pcie")

    assert pcie(pcie_generation=None, pcie_width=None) == "gen 5 x16 on 1 GPUs"
    assert pcie(pcie_generation=1, pcie_width=None) == "gen 5 x16 (now gen 1 xNone) on 1 GPUs"
    assert pcie(pcie_generation=None, pcie_width=8) == "gen 5 x16 (now gen None x8) on 1 GPUs"


def test_every_gpu_listed_with_its_links_up_passes_and_one_gpu_not_listed_fails_even_with_none_short():
    two = "GPU 0: H100\n\t Link 0: 26.562 GB/s\nGPU 1: H100\n\t Link 0: 26.562 GB/s\n"
    expectation = dataclasses.replace(P5, nvlinks_per_gpu=1, accelerator_count=2)
    assert _nvlinks(expectation, two) == (True, "1 NVLinks up on each of 2 GPUs", "2 GPUs with >= 1 up")
    three = dataclasses.replace(expectation, accelerator_count=3)
    assert _nvlinks(three, two) == (False, "1 NVLinks up on each of 3 GPUs", "2 GPUs with >= 1 up; 1 GPU(s) not listed")


def test_without_the_full_product_name_the_model_is_matched_as_a_word_of_the_name():
    by_model = dataclasses.replace(P5, accelerator_product=None, accelerator_model="h100")
    made, _ = _made(gpu_checks, by_model, eight_gpu_xml())
    assert made[1] == ("gpu.model", True, "every GPU's name holds 'h100'", "NVIDIA H100 80GB HBM3 on 8 GPUs")
    made, _ = _made(gpu_checks, dataclasses.replace(by_model, accelerator_model="H10"), eight_gpu_xml())
    assert made[1][:2] == ("gpu.model", False)


def test_a_gpu_with_no_memory_figure_is_under_even_a_1_mib_floor():
    xml = eight_gpu_xml(lambda gpus: gpus[1].find("fb_memory_usage").remove(gpus[1].find("fb_memory_usage/total")))
    made, _ = _made(gpu_checks, dataclasses.replace(P5, memory_mib_min=1), xml)
    assert made[2] == ("gpu.memory", False, ">= 1 MiB per GPU", f"GPU 1 ({BUS_IDS[1]}): None MiB")


def test_a_gpu_reporting_no_power_limit_or_no_link_maximum_fails_even_the_lowest_figure():
    made, _ = _made(gpu_checks, P5, eight_gpu_xml(lambda gpus: set_text(gpus[4], "gpu_power_readings/current_power_limit", "N/A")))
    assert [(p, o) for n, p, _, o in made if n == "gpu.power-limit"] == [(False, f"GPU 4 ({BUS_IDS[4]}): no limit")]
    lowest = dataclasses.replace(P5, pcie_generation=1, pcie_width=1)
    for path in ("pci/pci_gpu_link_info/pcie_gen/max_link_gen", "pci/pci_gpu_link_info/link_widths/max_link_width"):
        made, _ = _made(gpu_checks, lowest, eight_gpu_xml(lambda gpus, path=path: set_text(gpus[2], path, "N/A")))
        assert [(n, p) for n, p, _, _ in made if n == "gpu.pcie"] == [("gpu.pcie", False)]
