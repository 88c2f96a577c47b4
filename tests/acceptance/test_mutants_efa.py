"""The EFA count (acceptance/efa.py) at its edges, where mutation testing found it unheld: the listing written for a
node without RDMA devices, the sysfs the checker reads in its pod and outside it, the device names shown up to four
and not at five, comment and malformed lines of the listing, and the check's exact words."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from acceptance import efa
from acceptance.efa import default_sys_root, efa_checks, list_rdma_devices, parse_rdma_devices
from acceptance.report import Checks
from tests.acceptance.evidence import P5


def test_a_node_without_rdma_devices_is_listed_as_such_under_the_folder_it_read(tmp_path):
    assert list_rdma_devices(tmp_path) == (
        f"# {tmp_path}/class/infiniband: each RDMA device and the kernel driver bound to it\n# absent: the kernel registered no RDMA device\n"
    )


def test_the_pods_mount_of_the_hosts_sysfs_is_read_where_it_exists_else_this_machines_own(tmp_path, monkeypatch):
    monkeypatch.setattr(efa, "HOST_SYS", tmp_path)
    assert default_sys_root() == tmp_path
    monkeypatch.setattr(efa, "HOST_SYS", tmp_path / "absent")
    assert default_sys_root() == Path("/sys")


def test_comment_lines_and_lines_of_another_shape_are_not_devices():
    listing = "# /host/sys/class/infiniband: header\n#rdmap15s27 efa\nrdmap16s27 efa\nrdmap17s27\nrdmap18s27 efa extra\n\n"
    assert parse_rdma_devices(listing) == {"rdmap16s27": "efa"}


def _check(devices: int, wanted: int) -> tuple[bool, str, str]:
    checks = Checks(source="python3 -m acceptance rdma-devices (rdma-devices.txt)")
    efa_checks(dataclasses.replace(P5, efa_devices=wanted), "".join(f"rdmap{index}s27 efa\n" for index in range(devices)), checks)
    ((check,),) = [checks.made]
    assert check.name == "efa.devices"
    return check.passed, check.expected, check.observed


@pytest.mark.parametrize(
    ("devices", "wanted", "result"),
    [
        (4, 4, (True, "4 EFA devices (sysfs, driver efa)", "4 EFA devices (rdmap0s27, rdmap1s27, rdmap2s27, rdmap3s27)")),
        (5, 4, (False, "4 EFA devices (sysfs, driver efa)", "5 EFA devices")),
        (1, 1, (True, "1 EFA devices (sysfs, driver efa)", "1 EFA devices (rdmap0s27)")),
        (0, 1, (False, "1 EFA devices (sysfs, driver efa)", "0 EFA devices")),
    ],
)
def test_the_count_names_up_to_four_devices_and_passes_only_at_the_designs_number(devices, wanted, result):
    assert _check(devices, wanted) == result


def test_fi_info_blocks_start_only_at_an_unindented_provider_and_lines_of_no_field_are_passed_over():
    text = "provider: efa\n    domain: rdmap0s0-rdm\n----\n    type: FI_EP_RDM\nfi_getinfo: -61\nprovider: tcp\n    domain: eth0\n"
    assert efa.parse_fi_info(text) == [
        {"provider": "efa", "domain": "rdmap0s0-rdm", "type": "FI_EP_RDM", "fi_getinfo": "-61"},
        {"provider": "tcp", "domain": "eth0"},
    ]


def _libfabric(text: str, wanted: int = 1) -> tuple[bool, str, str]:
    checks = Checks(source="fi_info -p efa -t FI_EP_RDM (fi_info.txt)")
    efa.libfabric_checks(dataclasses.replace(P5, efa_devices=wanted), text, checks)
    ((check,),) = [checks.made]
    assert check.name == "efa.libfabric"
    return check.passed, check.expected, check.observed


def test_one_efa_domain_is_named_and_a_block_naming_no_domain_still_counts_once():
    assert _libfabric("provider: efa\n    domain: rdmap0s0-rdm\n    type: FI_EP_RDM\n") == (
        True,
        "1 EFA devices (provider efa, FI_EP_RDM)",
        "1 EFA devices (rdmap0s0-rdm)",
    )
    assert _libfabric("provider: efa\n    type: FI_EP_RDM\n") == (True, "1 EFA devices (provider efa, FI_EP_RDM)", "1 EFA devices ()")


def test_a_device_whose_driver_link_cannot_be_read_is_listed_with_a_dash_and_not_counted(tmp_path):
    folder = tmp_path / "class" / "infiniband"
    (folder / "rdmap16s27" / "device").mkdir(parents=True)
    (folder / "rdmap17s27" / "device").mkdir(parents=True)
    (folder / "rdmap17s27" / "device" / "driver").symlink_to("../../../bus/pci/drivers/efa")
    listing = list_rdma_devices(tmp_path)
    assert listing.splitlines()[1:] == ["rdmap16s27 -", "rdmap17s27 efa"]
    assert parse_rdma_devices(listing) == {"rdmap16s27": "-", "rdmap17s27": "efa"}


def test_rdma_devices_of_other_drivers_are_shown_sorted_after_the_efa_count():
    checks = Checks(source="rdma-devices.txt")
    listing = "rdmap0s27 efa\nmlx5_1 mlx5_core\nrdmap1s27 efa\nirdma0 irdma\n"
    efa_checks(dataclasses.replace(P5, efa_devices=2), listing, checks)
    assert [(c.passed, c.observed) for c in checks.made] == [
        (True, "2 EFA devices (rdmap0s27, rdmap1s27); other RDMA devices: irdma0 (irdma), mlx5_1 (mlx5_core)")
    ]
