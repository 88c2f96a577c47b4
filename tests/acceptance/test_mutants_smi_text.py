"""The tree the text of `nvidia-smi -q` draws (acceptance/smi_text.py), where mutation testing found it unheld:
sections nested by indent and closed by a shallower line, labels stripped of padding, values holding colons,
`N/A`, an empty value and a bare `label:` read as no value, tabs, blank lines, lines before the header ignored, each
GPU's section found by its bus id, and text without the header refused in words."""

from __future__ import annotations

import pytest

from acceptance.smi_text import HEADER, Section, gpu_sections, parse_tree

TEXT = f"""Timestamp : before the header, ignored
{HEADER}

Attached GPUs                             : 2
GPU 00000000:53:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    Bus Id                                : 00000000:53:00.0
    GPU Memory Power Readings{" "}
        Current Power Limit               : 700.00 W
    PCI
\t\tGPU Link Info
\t\t    Link Width
\t\t        Max                           : 16x
    Remapped Rows                         : N/A
    Serial Number                         :
    Pending:
GPU 00000000:64:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
"""


def test_sections_nest_by_indent_with_labels_stripped_values_holding_colons_and_tabs_expanded():
    root = parse_tree(TEXT)
    assert [child.label for child in root.children] == ["Attached GPUs", "GPU 00000000:53:00.0", "GPU 00000000:64:00.0"]
    gpu = root.children[1]
    assert gpu.text("Bus Id") == "00000000:53:00.0"
    assert gpu.text("GPU Memory Power Readings/Current Power Limit") == "700.00 W"
    assert gpu.text("PCI/GPU Link Info/Link Width/Max") == "16x"
    assert [child.label for child in gpu.children] == [
        "Product Name",
        "Bus Id",
        "GPU Memory Power Readings",
        "PCI",
        "Remapped Rows",
        "Serial Number",
        "Pending",
    ]


def test_na_an_empty_value_and_a_bare_label_with_a_colon_read_as_no_value_and_absent_paths_as_none():
    gpu = parse_tree(TEXT).children[1]
    assert [gpu.find(label).value for label in ("Remapped Rows", "Serial Number", "Pending")] == [None, None, None]
    assert gpu.text("PCI/No Such") is None
    assert gpu.find("No Such/Deeper") is None


def test_each_gpus_section_is_found_by_its_bus_id_in_the_order_printed_and_a_gpu_line_with_a_value_is_not_one():
    found = gpu_sections(parse_tree(TEXT + "GPU 00000000:75:00.0 : N/A extra\n"))
    assert [(bus_id, section.text("Product Name")) for bus_id, section in found] == [
        ("00000000:53:00.0", "NVIDIA H100 80GB HBM3"),
        ("00000000:64:00.0", "NVIDIA H100 80GB HBM3"),
    ]
    assert gpu_sections(Section("", children=[Section("GPU 00000000:53:00.0", "value")])) == []


def test_text_without_the_header_is_refused_saying_it_is_not_nvidia_smi_q():
    with pytest.raises(ValueError) as caught:
        parse_tree("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")
    assert str(caught.value) == "no '==============NVSMI LOG==============' header: not the text of nvidia-smi -q"


def test_the_root_is_an_unlabelled_section_holding_the_top_level_lines_as_the_exact_tree():
    text = f"{HEADER}\nAttached GPUs : 1\nGPU 00000000:53:00.0\n    Product Name : NVIDIA H100 80GB HBM3\n"
    assert parse_tree(text) == Section(
        "",
        None,
        [
            Section("Attached GPUs", "1"),
            Section("GPU 00000000:53:00.0", None, [Section("Product Name", "NVIDIA H100 80GB HBM3")]),
        ],
    )


def test_two_outputs_pasted_one_after_the_other_are_read_from_the_first_header_so_every_gpu_of_both_is_found():
    first = f"{HEADER}\nGPU 00000000:53:00.0\n    Product Name : NVIDIA H100 80GB HBM3\n"
    second = f"{HEADER}\nGPU 00000000:64:00.0\n    Product Name : NVIDIA H200\n"
    found = gpu_sections(parse_tree(first + second))
    assert [(bus_id, section.text("Product Name")) for bus_id, section in found] == [
        ("00000000:53:00.0", "NVIDIA H100 80GB HBM3"),
        ("00000000:64:00.0", "NVIDIA H200"),
    ]


def test_a_tab_indents_as_four_spaces_so_a_tab_indented_line_after_a_four_space_one_is_its_sibling_not_its_child():
    gpu = parse_tree(f"{HEADER}\nGPU 00000000:53:00.0\n    PCI\n\tBus Id : 00000000:53:00.0\n").children[0]
    assert [child.label for child in gpu.children] == ["PCI", "Bus Id"]
    assert gpu.children[0].children == []
