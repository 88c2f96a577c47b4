"""What the NVIDIA driver wrote in the kernel log (`dmesg`): Xid events, and the GPUs it lost or could not start.

Two checks, each naming the GPUs by PCI address:
- `gpu.xid`: `NVRM: Xid (PCI:0000:53:00): 79, pid=..., GPU has fallen off the bus.` (NVIDIA's Xid catalog,
  docs.nvidia.com/deploy/xid-errors);
- `gpu.driver`: what newer drivers (570.x) log with no Xid at all. The lines, as published:
  - a GPU that fell off the bus, one message over three lines (NVIDIA/NVSentinel#155, driver 570.158.01):
        [ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0
                       NVRM: (PCI ID: 10de:26b5) installed in this system has
                       NVRM: fallen off the bus and is not responding to commands.
  - the probe that then fails, which names no address (same issue):
        [ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).
  - a GPU the driver could not initialise (Cyridd/cmpunlocker#4):
        [   21.091872] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:894)
  leptonai/gpud#1209 reports the same fallen-off-the-bus message with no Xid line beside it.
A node's first boot has run no job that could excuse any of them, so any one fails the node.
"""

from __future__ import annotations

import re

from acceptance.report import Checks

_XID = re.compile(r"NVRM: Xid \((PCI:[0-9A-Fa-f:.]+)\): (\d+)")
_ADDRESS = r"([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])"
# The message may be split over up to three lines (the driver prints one `NVRM:` line per part), or come whole.
# A line that opens another GPU's message ends the window, so one GPU's loss is never put on its neighbour.
_FALLEN = re.compile(r"NVRM: The NVIDIA GPU " + _ADDRESS + r"[^\n]*(?:\n(?![^\n]*The NVIDIA GPU )[^\n]*){0,2}?fallen off the bus")
_PROBE = re.compile(r"NVRM: The NVIDIA probe routine failed for (\d+) device\(s\)")
_INIT = re.compile(r"NVRM: GPU " + _ADDRESS + r": RmInitAdapter failed")


def xid_checks(text: str, checks: Checks) -> None:
    """No Xid event in the kernel log: before its first job a node has run nothing that could excuse one."""
    events = sorted({(pci, int(code)) for pci, code in _XID.findall(text)})
    checks.add("gpu.xid", not events, "no NVIDIA Xid event in the kernel log", ", ".join(f"Xid {code} on {pci}" for pci, code in events) or "none")


def driver_faults(text: str) -> list[str]:
    """Each GPU the driver lost or could not start, in words with its PCI address, then any failed probe (no address)."""
    faults = [f"{address.lower()} fell off the bus" for address in sorted({a.lower() for a in _FALLEN.findall(text)})]
    faults += [f"{address.lower()} RmInitAdapter failed" for address in sorted({a.lower() for a in _INIT.findall(text)})]
    # The driver logs the probe each time it loads; the largest count is how many devices it lost.
    failed = max((int(count) for count in _PROBE.findall(text)), default=0)
    if failed:
        faults.append(f"the probe failed for {failed} device(s)")
    return faults


def driver_checks(text: str, checks: Checks) -> None:
    """No GPU fallen off the bus, no failed probe, no failed adapter initialisation in the kernel log, Xid or not."""
    faults = driver_faults(text)
    expected = "no GPU fallen off the bus, no failed probe, no RmInitAdapter failure in the kernel log"
    checks.add("gpu.driver", not faults, expected, "; ".join(faults) or "none")


def kernel_log_checks(text: str, checks: Checks) -> None:
    """Both kernel-log checks over one `dmesg`."""
    xid_checks(text, checks)
    driver_checks(text, checks)
