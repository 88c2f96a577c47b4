"""The kernel log's checks (acceptance/kernel_log.py) in their exact words, where mutation testing found them unheld:
Xid events on two GPUs, each named once and in order, with the check's expectation; the driver check's expectation;
faults of each kind together in one log; and a probe that failed for no device."""

from __future__ import annotations

from acceptance.kernel_log import driver_faults, kernel_log_checks
from acceptance.report import Checks

XID_79 = "[ 100.1] NVRM: Xid (PCI:0000:b3:00): 79, pid=1234, name=python, GPU has fallen off the bus.\n"
XID_48 = "[ 90.5] NVRM: Xid (PCI:0000:53:00): 48, pid=77, name=python, An uncorrectable double bit error (DBE) has been detected.\n"


def _made(text: str) -> list[tuple[str, bool, str, str]]:
    checks = Checks(source="dmesg")
    kernel_log_checks(text, checks)
    return [(c.name, c.passed, c.expected, c.observed) for c in checks.made]


def test_xid_events_on_two_gpus_are_each_named_once_in_order_and_a_clean_log_passes_both_checks():
    assert _made(XID_79 + XID_48 + XID_79)[0] == (
        "gpu.xid",
        False,
        "no NVIDIA Xid event in the kernel log",
        "Xid 48 on PCI:0000:53:00, Xid 79 on PCI:0000:b3:00",
    )
    assert _made("[ 1.0] Linux version 6.1\n") == [
        ("gpu.xid", True, "no NVIDIA Xid event in the kernel log", "none"),
        ("gpu.driver", True, "no GPU fallen off the bus, no failed probe, no RmInitAdapter failure in the kernel log", "none"),
    ]


def test_every_kind_of_driver_fault_in_one_log_is_named_in_one_observation():
    log = (
        "NVRM: The NVIDIA GPU 0000:B3:00.0 (PCI ID: 10de:2330) installed in this system has fallen off the bus.\n"
        "NVRM: GPU 0000:1A:00.0: RmInitAdapter failed! (0x22:0x56:884)\n"
        "NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
    )
    assert _made(log)[1] == (
        "gpu.driver",
        False,
        "no GPU fallen off the bus, no failed probe, no RmInitAdapter failure in the kernel log",
        "0000:b3:00.0 fell off the bus; 0000:1a:00.0 RmInitAdapter failed; the probe failed for 1 device(s)",
    )


def test_a_probe_that_failed_for_no_device_is_no_fault():
    assert driver_faults("NVRM: The NVIDIA probe routine failed for 0 device(s).\n") == []
