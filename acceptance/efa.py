"""EFA devices, counted from what every EFA node has: the kernel's RDMA devices in sysfs; libfabric's listing where it exists.

**The count (`efa.devices`)** reads `/sys/class/infiniband/<device>`: each RDMA device the kernel registered, and
the driver bound to its PCI function (`<device>/device/driver`, a link ending in the driver's name, `efa` for an
EFA device; the kernel's sysfs-class-infiniband ABI). That is the kernel module's own evidence, present on every
node with EFA whatever user space it carries. EKS's AL2023 AMIs install EFA with `efa_installer.sh --minimal -y`
(awslabs/amazon-eks-ami `templates/al2023/provisioners/install-efa.sh` @ v20260724), which AWS documents as "without
Libfabric and Open MPI" (EC2 user guide, "Get started with EFA"): there is no `fi_info` on those nodes, so a check
that needed it would hold every EFA node for ever. `python -m acceptance rdma-devices` writes the listing, one
`<device> <driver>` line each (`rdmap16s27 efa`), after a `#` line naming the folder it read; a folder that isn't
there is written as such, and counts no device: it is what a node without EFA shows, not missing evidence.

**The richer check (`efa.libfabric`)**, only where `fi_info` really is (a custom AMI with the full installer, or an
image that carries libfabric): `fi_info -p efa -t FI_EP_RDM` lists one block per device (`provider: efa`, indented
`fabric`, `domain: <device>-rdm`, `version`, `type: FI_EP_RDM`, `protocol: FI_PROTO_EFA`; AWS's EFA guide, in the
block layout of real libfabric 1.17.0 output, /work/shared/fixtures/libfabric), counted by distinct RDM domain. A
machine without the EFA provider or device prints nothing and `fi_getinfo: -61` (FI_ENODATA) on standard error,
which the recorder keeps in the same file. Where `fi_info` isn't installed the check is skipped, saying why.
Not verified on real EFA hardware: both fixtures with EFA devices are built from the documented formats.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from acceptance.expectation import Expectation
from acceptance.report import Checks

# Where the checker pod mounts the host's sysfs (read-only, a hostPath of type Directory: /sys is on every node).
HOST_SYS = Path("/host/sys")


def list_rdma_devices(sys_root: Path) -> str:
    """The RDMA devices under `<sys_root>/class/infiniband`, one `<device> <driver>` line each, sorted, after a header.

    The driver is the last part of the `device/driver` link's target; a device whose link can't be read is listed
    with `-`, so it is seen and not counted as EFA.
    """
    folder = sys_root / "class" / "infiniband"
    lines = [f"# {folder}: each RDMA device and the kernel driver bound to it"]
    if not folder.is_dir():
        return "\n".join([*lines, "# absent: the kernel registered no RDMA device"]) + "\n"
    for device in sorted(folder.iterdir()):
        try:
            driver = os.path.basename(os.readlink(device / "device" / "driver"))
        except OSError:
            driver = "-"
        lines.append(f"{device.name} {driver}")
    return "\n".join(lines) + "\n"


def default_sys_root() -> Path:
    """The host's sysfs as the checker pod mounts it, else this machine's own `/sys` (a node's shell, a test)."""
    return HOST_SYS if HOST_SYS.is_dir() else Path("/sys")


def parse_rdma_devices(text: str) -> dict[str, str]:
    """The listing `list_rdma_devices` writes, as device -> driver (comment and malformed lines left out)."""
    devices: dict[str, str] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 2 and not line.startswith("#"):
            devices[fields[0]] = fields[1]
    return devices


def efa_checks(expectation: Expectation, text: str, checks: Checks) -> None:
    """The kernel lists exactly the design's number of RDMA devices bound to the `efa` driver."""
    devices = parse_rdma_devices(text)
    efa = sorted(name for name, driver in devices.items() if driver == "efa")
    others = sorted(f"{name} ({driver})" for name, driver in devices.items() if driver != "efa")
    observed = f"{len(efa)} EFA devices" + (f" ({', '.join(efa)})" if 0 < len(efa) <= 4 else "")
    if others:
        observed += f"; other RDMA devices: {', '.join(others)}"
    checks.add("efa.devices", len(efa) == expectation.efa_devices, f"{expectation.efa_devices} EFA devices (sysfs, driver efa)", observed)


def parse_fi_info(text: str) -> list[dict[str, str]]:
    """The blocks of `fi_info` output, each a dict of its fields (`provider`, `fabric`, `domain`, `type`, ...)."""
    blocks: list[dict[str, str]] = []
    for line in text.splitlines():
        match = re.match(r"^(\s*)([a-z_]+):\s*(.*)$", line)
        if not match:
            continue
        indent, key, value = match.groups()
        if key == "provider" and not indent:
            blocks.append({"provider": value.strip()})
        elif blocks:
            blocks[-1][key] = value.strip()
    return blocks


def libfabric_checks(expectation: Expectation, text: str, checks: Checks) -> None:
    """Where `fi_info` exists: the EFA provider lists exactly the design's number of devices for reliable datagram endpoints."""
    domains = sorted({b.get("domain", "") for b in parse_fi_info(text) if b["provider"] == "efa" and b.get("type") == "FI_EP_RDM"})
    error = re.search(r"fi_getinfo: (-?\d+)", text)
    if not domains and error:
        meaning = " (FI_ENODATA: no efa provider or device)" if error.group(1) == "-61" else ""
        observed = f"no EFA device: libfabric answered fi_getinfo {error.group(1)}{meaning}"
    else:
        observed = f"{len(domains)} EFA devices" + (f" ({', '.join(domains)})" if 0 < len(domains) <= 4 else "")
    checks.add("efa.libfabric", len(domains) == expectation.efa_devices, f"{expectation.efa_devices} EFA devices (provider efa, FI_EP_RDM)", observed)
