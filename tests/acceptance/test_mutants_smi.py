"""Reading `nvidia-smi -q` (acceptance/smi.py) into GPU records, where mutation testing found it unheld: the real H100
capture read field for field from its XML and from its text alike, the Titan V's text (ECC off, an idle link below its
maximum), every volatile uncorrectable counter summed in either format (Volta's `double_bit/total` too), values that
are blank or `N/A`, a document without `attached_gpus` or a GPU id, XML of another root, and `number`'s readings."""

from __future__ import annotations

import pytest

from acceptance.report import Checks
from acceptance.smi import Gpu, number, parse_text, parse_xml, per_gpu
from tests.acceptance.evidence import EXAMPLE
from tests.acceptance.text_evidence import H100_TEXT, TITAN_V_TEXT, gb200_text, set_value

XML = (EXAMPLE / "nvidia-smi-q.xml").read_text(encoding="utf-8")
H100 = Gpu(
    bus_id="00000000:00:06.0",
    name="NVIDIA H100 80GB HBM3",
    memory_mib=81559,
    ecc_enabled=True,
    uncorrected_errors=0,
    remap_pending=False,
    remap_failed=False,
    retirement_pending=False,
    power_limit_w=700.0,
    pcie_max_generation=5,
    pcie_max_width=16,
    pcie_generation=5,
    pcie_width=16,
    mig_enabled=False,
    c2c_mode="Disabled",
)


def test_the_real_h100_capture_reads_the_same_record_from_its_xml_and_its_text():
    assert parse_xml(XML) == (1, [H100])
    assert parse_text(H100_TEXT.read_text(encoding="utf-8")) == (1, [H100])


def test_the_titan_vs_text_reads_ecc_off_and_an_idle_gen_1_link_able_to_train_to_gen_3():
    (attached, (gpu,)) = parse_text(TITAN_V_TEXT.read_text(encoding="utf-8"))
    assert (attached, gpu.name, gpu.memory_mib, gpu.ecc_enabled, gpu.power_limit_w) == (1, "NVIDIA TITAN V", 12288, False, 250.0)
    assert (gpu.pcie_max_generation, gpu.pcie_max_width, gpu.pcie_generation, gpu.pcie_width, gpu.c2c_mode) == (3, 16, 1, 16, None)


def test_every_volatile_uncorrectable_counter_is_summed_in_the_xml_and_the_aggregate_is_not():
    changed = XML.replace("<sram_uncorrectable_parity>0</sram_uncorrectable_parity>", "<sram_uncorrectable_parity>2</sram_uncorrectable_parity>", 1)
    changed = changed.replace("<dram_uncorrectable>0</dram_uncorrectable>", "<dram_uncorrectable>3</dram_uncorrectable>", 1)
    assert parse_xml(changed)[1][0].uncorrected_errors == 5
    volta = XML.replace("<dram_uncorrectable>0</dram_uncorrectable>", "<double_bit><total>4</total></double_bit>", 1)
    assert parse_xml(volta)[1][0].uncorrected_errors == 4
    assert parse_xml(XML.replace("<volatile>", "<volatile_gone>", 1).replace("</volatile>", "</volatile_gone>", 1))[1][0].uncorrected_errors == 0


def test_every_volatile_uncorrectable_counter_is_summed_in_the_text():
    text = H100_TEXT.read_text(encoding="utf-8")
    volatile = text.index("        Volatile\n")
    head, tail = text[:volatile], text[volatile:]
    tail = tail.replace("SRAM Uncorrectable Parity                  : 0", "SRAM Uncorrectable Parity                  : 2", 1)
    tail = tail.replace("DRAM Uncorrectable                         : 0", "DRAM Uncorrectable                         : 3", 1)
    assert parse_text(head + tail)[1][0].uncorrected_errors == 5


def test_blank_and_na_values_read_as_none_and_a_padded_value_is_stripped():
    xml = XML.replace("<product_name>NVIDIA H100 80GB HBM3</product_name>", "<product_name>  </product_name>")
    xml = xml.replace("<current_power_limit>700.00 W</current_power_limit>", "<current_power_limit>N/A</current_power_limit>")
    xml = xml.replace("<current_ecc>Enabled</current_ecc>", "<current_ecc> Enabled </current_ecc>")
    gpu = parse_xml(xml)[1][0]
    assert (gpu.name, gpu.power_limit_w, gpu.ecc_enabled) == ("?", None, True)


def test_without_attached_gpus_the_gpus_listed_are_counted_and_a_gpu_without_an_id_is_shown_as_a_question_mark():
    xml = XML.replace("<attached_gpus>1</attached_gpus>", "").replace('<gpu id="00000000:00:06.0">', "<gpu>")
    attached, gpus = parse_xml(xml)
    assert (attached, gpus[0].bus_id) == (1, "?")


def test_xml_of_another_root_or_no_xml_is_refused_saying_what_it_is():
    with pytest.raises(ValueError, match=r"^the root element is <log>, not <nvidia_smi_log>$"):
        parse_xml("<log/>")
    with pytest.raises(ValueError, match=r"^not XML \(syntax error: line 1, column 0\)$"):
        parse_xml("NVIDIA-SMI has failed")


@pytest.mark.parametrize(("text", "value"), [("81559 MiB", 81559.0), (" 700.00 W", 700.0), ("16x", 16.0), ("N/A", None), (None, None), ("", None)])
def test_number_reads_the_leading_figure_of_a_value(text, value):
    assert number(text) == value


def test_a_check_over_no_gpu_fails_saying_so():
    checks = Checks(source="nvidia-smi")
    per_gpu(checks, "gpu.ecc", [], lambda gpu: False, "ECC enabled on every GPU", lambda gpu: "ECC enabled")
    assert [(c.passed, c.observed) for c in checks.made] == [(False, "no GPU")]


def test_a_gb200_trays_text_reads_its_fabric_c2c_and_mig_fields():
    attached, gpus = parse_text(gb200_text(lambda blocks: set_value(blocks[1], "MIG Mode/Current", "Enabled")))
    first = gpus[0]
    assert (attached, len(gpus), first.name, first.c2c_mode, first.mig_enabled, gpus[1].mig_enabled) == (4, 4, "NVIDIA GB200", "Enabled", False, True)
    assert (first.fabric_state, first.fabric_status, first.clique_id, first.cluster_uuid, first.fabric_health) == (
        "Completed",
        "Success",
        "4026",
        "9c6f5af3-53bf-49b5-a436-b66766c413c3",
        "Not Supported",
    )


def test_attached_gpus_is_read_as_printed_even_where_it_disagrees_with_the_gpus_listed():
    assert parse_xml(XML.replace("<attached_gpus>1</attached_gpus>", "<attached_gpus>2</attached_gpus>"))[0] == 2
    text = gb200_text().replace("Attached GPUs                                          : 4", "Attached GPUs : 3")
    assert parse_text(text)[0] == 3
    assert parse_text(gb200_text())[0] == 4


def test_gpus_failing_a_check_are_each_named_in_order():
    checks = Checks(source="nvidia-smi")
    gpus = [(0, H100), (1, H100), (2, H100)]
    per_gpu(checks, "gpu.ecc", gpus, lambda gpu: True, "ECC enabled on every GPU", lambda gpu: "ECC disabled")
    assert checks.made[0].observed == f"GPU 0 ({H100.bus_id}): ECC disabled; GPU 1 ({H100.bus_id}): ECC disabled; GPU 2 ({H100.bus_id}): ECC disabled"
