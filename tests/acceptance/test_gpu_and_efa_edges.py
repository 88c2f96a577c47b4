"""The node checker's GPU and EFA verdicts at their edges, on the real H100 capture copied to eight GPUs
(`evidence.eight_gpu_xml`): `attached_gpus` disagreeing with the GPUs listed either way, a row remap that failed, a
page pending retirement, a single uncorrectable ECC error, memory exactly at the floor and one MiB under, the power
limit's half-watt slack, and the EFA count exactly, one under and one over. Only `gpu_checks` and the checks' names
are used, which the node checker keeps whichever `nvidia-smi` format it reads."""

from __future__ import annotations

import dataclasses

import pytest

from acceptance import efa
from acceptance.nvidia import gpu_checks
from acceptance.report import Checks
from tests.acceptance.evidence import BUS_IDS, P5, eight_gpu_xml, set_text


def _checks(xml: str, expectation=P5) -> dict[str, tuple[bool, str]]:
    checks = Checks(source="nvidia-smi -q -x")
    gpu_checks(expectation, xml, checks)
    return {check.name: (check.passed, check.observed) for check in checks.made}


def _on_gpu(index: int, path: str, value: str) -> str:
    return eight_gpu_xml(lambda gpus: set_text(gpus[index], path, value))


def test_eight_sound_gpus_pass_every_check():
    assert all(passed for passed, _ in _checks(eight_gpu_xml()).values())


@pytest.mark.parametrize(("attached", "listed", "passed"), [(8, 8, True), (7, 8, False), (9, 8, False), (8, 7, False)])
def test_the_count_needs_attached_gpus_and_the_gpus_listed_both_at_the_design(attached, listed, passed):
    xml = eight_gpu_xml(lambda gpus: gpus.pop() if listed < 8 else None)
    xml = xml.replace(f"<attached_gpus>{listed}</attached_gpus>", f"<attached_gpus>{attached}</attached_gpus>")
    assert _checks(xml)["gpu.count"] == (passed, f"{attached} attached, {listed} listed")


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("remapped_rows/remapped_row_failure", "row remap failed"),
        ("remapped_rows/remapped_row_pending", "row remap pending"),
        ("retired_pages/pending_retirement", "page retirement pending"),
    ],
)
def test_each_memory_fault_on_one_gpu_fails_the_row_remap_check_naming_that_gpu(path, words):
    assert _checks(_on_gpu(5, path, "Yes"))["gpu.row-remap"] == (False, f"GPU 5 ({BUS_IDS[5]}): {words}")


@pytest.mark.parametrize(("count", "passed"), [("0", True), ("1", False), ("N/A", True)])
def test_a_single_uncorrectable_ecc_error_fails(count, passed):
    passed_, observed = _checks(_on_gpu(2, "ecc_errors/volatile/dram_uncorrectable", count))["gpu.uncorrected-ecc"]
    assert passed_ is passed
    assert observed == ("0 uncorrected errors on 8 GPUs" if passed else f"GPU 2 ({BUS_IDS[2]}): 1 uncorrected errors")


@pytest.mark.parametrize(("total", "passed"), [("80281 MiB", True), ("80280 MiB", False), ("81559 MiB", True)])
def test_memory_exactly_at_the_floor_passes_and_one_mib_under_fails(total, passed):
    # P5's floor is 80,281 MiB.
    assert _checks(_on_gpu(3, "fb_memory_usage/total", total))["gpu.memory"][0] is passed


def test_a_gpu_with_no_memory_figure_is_under_any_floor():
    xml = eight_gpu_xml(lambda gpus: gpus[1].find("fb_memory_usage").remove(gpus[1].find("fb_memory_usage/total")))
    assert _checks(xml)["gpu.memory"] == (False, f"GPU 1 ({BUS_IDS[1]}): None MiB")


@pytest.mark.parametrize(("limit", "passed"), [("700.00 W", True), ("699.50 W", True), ("699.49 W", False), ("N/A", False)])
def test_the_power_limit_allows_half_a_watt_of_rounding_and_no_more(limit, passed):
    gpus = _checks(_on_gpu(4, "gpu_power_readings/current_power_limit", limit))
    assert gpus["gpu.power-limit"][0] is passed


def test_ecc_disabled_fails_only_where_the_design_wants_ecc():
    xml = _on_gpu(0, "ecc_mode/current_ecc", "Disabled")
    assert _checks(xml)["gpu.ecc"] == (False, f"GPU 0 ({BUS_IDS[0]}): ECC disabled")
    assert "gpu.ecc" not in _checks(xml, dataclasses.replace(P5, ecc=False))


FI_INFO = "provider: efa\n    fabric: efa\n    domain: {device}-rdm\n    version: 120.0\n    type: FI_EP_RDM\n    protocol: FI_PROTO_EFA\n"


def _efa(devices: int, extra: str = "") -> tuple[bool, str]:
    # The libfabric judge: `efa_checks` today, `libfabric_checks` once the count is read from sysfs (issue 48); its
    # verdict on a `fi_info` listing is the same either way.
    judge = getattr(efa, "libfabric_checks", efa.efa_checks)
    checks = Checks(source="fi_info")
    judge(dataclasses.replace(P5, efa_devices=4), "".join(FI_INFO.format(device=f"rdmap{index}s0") for index in range(devices)) + extra, checks)
    ((_, passed, _, observed),) = [(c.name, c.passed, c.expected, c.observed) for c in checks.made]
    return passed, observed


def test_the_efa_count_passes_exactly_at_the_design_and_fails_one_under_or_over():
    assert _efa(4) == (True, "4 EFA devices (rdmap0s0-rdm, rdmap1s0-rdm, rdmap2s0-rdm, rdmap3s0-rdm)")
    assert _efa(3) == (False, "3 EFA devices (rdmap0s0-rdm, rdmap1s0-rdm, rdmap2s0-rdm)")
    assert _efa(5) == (False, "5 EFA devices")


def test_a_device_listed_twice_another_provider_and_another_endpoint_type_are_not_counted():
    doubled = FI_INFO.format(device="rdmap0s0")
    tcp = FI_INFO.format(device="eth0").replace("provider: efa", "provider: tcp")
    dgram = FI_INFO.format(device="rdmap9s0").replace("FI_EP_RDM", "FI_EP_DGRAM")
    assert _efa(3, doubled + tcp + dgram) == (False, "3 EFA devices (rdmap0s0-rdm, rdmap1s0-rdm, rdmap2s0-rdm)")


def test_no_provider_says_what_libfabric_answered():
    assert _efa(0, "fi_getinfo: -61\n") == (False, "no EFA device: libfabric answered fi_getinfo -61 (FI_ENODATA: no efa provider or device)")
    assert _efa(0, "fi_getinfo: -2\n") == (False, "no EFA device: libfabric answered fi_getinfo -2")
    assert _efa(0) == (False, "0 EFA devices")
