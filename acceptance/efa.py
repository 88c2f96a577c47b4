"""EFA devices as libfabric lists them: `fi_info -p efa -t FI_EP_RDM`.

Each device is one block: `provider: efa`, then indented `fabric`, `domain: <device>-rdm`,
`version`, `type: FI_EP_RDM`, `protocol: FI_PROTO_EFA` (AWS EFA guide, "Get started with EFA";
the block layout is that of real libfabric 1.17.0 output, /work/shared/fixtures/libfabric). Devices are
counted by distinct RDM domain. A machine without the EFA provider or device prints nothing and
`fi_getinfo: -61` (FI_ENODATA) on standard error, which the recorder keeps in the same file.
Not verified on real EFA hardware: the fixture with EFA devices is assembled from AWS's documented format.
"""

from __future__ import annotations

import re

from acceptance.expectation import Expectation
from acceptance.report import Checks


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


def efa_checks(expectation: Expectation, text: str, checks: Checks) -> None:
    """The EFA provider lists exactly the design's number of devices for reliable datagram endpoints."""
    domains = sorted({b.get("domain", "") for b in parse_fi_info(text) if b["provider"] == "efa" and b.get("type") == "FI_EP_RDM"})
    error = re.search(r"fi_getinfo: (-?\d+)", text)
    if not domains and error:
        meaning = " (FI_ENODATA: no efa provider or device)" if error.group(1) == "-61" else ""
        observed = f"no EFA device: libfabric answered fi_getinfo {error.group(1)}{meaning}"
    else:
        observed = f"{len(domains)} EFA devices" + (f" ({', '.join(domains)})" if 0 < len(domains) <= 4 else "")
    checks.add("efa.devices", len(domains) == expectation.efa_devices, f"{expectation.efa_devices} EFA devices (provider efa, FI_EP_RDM)", observed)
