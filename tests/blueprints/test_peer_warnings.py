"""Warnings the peer tools give: idle EFA interfaces, reserved instances no pool can use (each with its place)."""

from __future__ import annotations

from pathlib import Path

from blueprints.loader import load_text
from tests.yaml_text import line_of, replace_once

ROOT = Path(__file__).resolve().parents[2]
P5 = (ROOT / "blueprints" / "examples" / "p5-capacity-block.yaml").read_text()


def warnings(text: str, code: str) -> list:
    return [finding for finding in load_text(text, "b.yaml").findings if finding.code == code]


def test_a_fabric_wiring_half_a_p5s_efa_interfaces_warns_with_the_count_that_uses_them_all():
    text = replace_once(P5, "nics_per_accelerator: 4", "nics_per_accelerator: 2")
    [finding] = warnings(text, "fabric.unused-nics")
    assert finding.severity == "warning" and finding.path == ("fabrics", 0, "nics_per_accelerator")
    assert "16 EFA interfaces, but the type has 32: 16 stay idle" in finding.message
    assert finding.hint.startswith("set nics_per_accelerator to 4")
    assert finding.line == line_of(text, "nics_per_accelerator: 2")


def test_a_fabric_that_wires_every_interface_gives_no_warning():
    assert warnings(P5, "fabric.unused-nics") == []


def test_a_block_larger_than_its_pool_warns_that_the_rest_is_paid_for_and_idle():
    text = replace_once(P5, "    nodes: 64\n", "    nodes: 48\n")
    [finding] = warnings(text, "capacity.reservation-unused")
    assert finding.path == ("pools", 0, "capacity", "instance_count") and finding.severity == "warning"
    assert "holds 64 instances, but pool 'train' can grow to only 48: 16 reserved instances" in finding.message
    assert finding.certificate == {"reservation": "cr-0a1b2c3d4e5f60718", "held": 64, "usable": 48}


def test_a_block_exactly_as_large_as_its_pool_gives_no_warning():
    assert warnings(P5, "capacity.reservation-unused") == []
