"""What `nvidia-smi -q` says about each GPU, read from its XML (`-x`) or from its text, into one record.

Both formats carry the same facts under different names. `FIELDS` pairs them, one row per fact the checks read:
the XML element path and the text label path, each from real outputs. XML: the H100 capture in
acceptance/examples (driver 580.159.04). Text: the same machine's `nvidia-smi -q` (tests/acceptance/fixtures) and
leptonai/gpud's recorded outputs of drivers 535 and 560 (an 8 x H100 80GB HBM3 node, an 8 x RTX 4090 node, a TITAN V;
tests/acceptance/fixtures/nvidia-smi-text/README.md). Where a driver generation renamed a field, each name is listed,
the newer first: the power limit (`gpu_power_readings/current_power_limit`, before 530 `power_readings/power_limit`),
and a page pending retirement (`pending_retirement` in the XML, `Pending Page Blacklist` in the text).

The fabric fields (`State`, `Status`, `CliqueId`, `ClusterUUID`, `Health/Summary` in the text; `fabric/state`,
`fabric/status`, `fabric/cliqueId`, `fabric/clusterUuid`, `fabric/health/summary` in the XML) and `GPU C2C Mode`
(`c2c_mode`) are printed by every 550+ driver, `N/A` where the GPU has no NVLink fabric or no C2C link; their
values on a GB200 are in acceptance/fabric.py.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import dataclass

from acceptance.report import Checks
from acceptance.smi_text import Section, gpu_sections, parse_tree

# fact -> (XML element paths, text label paths), each tried in order until one has a value.
FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "name": (("product_name",), ("Product Name",)),
    "memory": (("fb_memory_usage/total",), ("FB Memory Usage/Total",)),
    "ecc": (("ecc_mode/current_ecc",), ("ECC Mode/Current",)),
    "remap_pending": (("remapped_rows/remapped_row_pending",), ("Remapped Rows/Pending",)),
    "remap_failed": (("remapped_rows/remapped_row_failure",), ("Remapped Rows/Remapping Failure Occurred",)),
    "retirement_pending": (("retired_pages/pending_retirement", "retired_pages/pending_blacklist"), ("Retired Pages/Pending Page Blacklist",)),
    "power_limit": (
        ("gpu_power_readings/current_power_limit", "power_readings/power_limit"),
        ("GPU Power Readings/Current Power Limit", "Power Readings/Power Limit"),
    ),
    "pcie_max_generation": (("pci/pci_gpu_link_info/pcie_gen/max_link_gen",), ("PCI/GPU Link Info/PCIe Generation/Max",)),
    "pcie_generation": (("pci/pci_gpu_link_info/pcie_gen/current_link_gen",), ("PCI/GPU Link Info/PCIe Generation/Current",)),
    "pcie_max_width": (("pci/pci_gpu_link_info/link_widths/max_link_width",), ("PCI/GPU Link Info/Link Width/Max",)),
    "pcie_width": (("pci/pci_gpu_link_info/link_widths/current_link_width",), ("PCI/GPU Link Info/Link Width/Current",)),
    "mig": (("mig_mode/current_mig",), ("MIG Mode/Current",)),
    "c2c_mode": (("c2c_mode",), ("GPU C2C Mode",)),
    "fabric_state": (("fabric/state",), ("Fabric/State",)),
    "fabric_status": (("fabric/status",), ("Fabric/Status",)),
    "clique_id": (("fabric/cliqueId",), ("Fabric/CliqueId",)),
    "cluster_uuid": (("fabric/clusterUuid",), ("Fabric/ClusterUUID",)),
    "fabric_health": (("fabric/health/summary",), ("Fabric/Health/Summary",)),
}


@dataclass(frozen=True)
class Gpu:
    """One GPU as `nvidia-smi -q` reports it, the fields acceptance compares (None: the output gave no value, or `N/A`)."""

    bus_id: str
    name: str
    memory_mib: int | None
    ecc_enabled: bool
    uncorrected_errors: int
    remap_pending: bool
    remap_failed: bool
    retirement_pending: bool
    power_limit_w: float | None
    pcie_max_generation: int | None
    pcie_max_width: int | None
    pcie_generation: int | None = None
    pcie_width: int | None = None
    mig_enabled: bool = False
    c2c_mode: str | None = None
    fabric_state: str | None = None
    fabric_status: str | None = None
    clique_id: str | None = None
    cluster_uuid: str | None = None
    fabric_health: str | None = None


def number(text: str | None) -> float | None:
    """The leading number of a value such as `81559 MiB`, `700.00 W` or `16x`; None for `N/A` or nothing."""
    match = re.match(r"\s*(\d+(?:\.\d+)?)", text or "")
    return float(match.group(1)) if match else None


def _whole(text: str | None) -> int | None:
    value = number(text)
    return int(value) if value is not None else None


def _gpu(bus_id: str, value: Callable[[str], str | None], uncorrected: int) -> Gpu:
    """The record, from `value(fact)` (the fact's text, None for `N/A`) and the count of uncorrected errors."""
    return Gpu(
        bus_id=bus_id,
        name=value("name") or "?",
        memory_mib=_whole(value("memory")),
        ecc_enabled=value("ecc") == "Enabled",
        uncorrected_errors=uncorrected,
        remap_pending=value("remap_pending") == "Yes",
        remap_failed=value("remap_failed") == "Yes",
        retirement_pending=value("retirement_pending") == "Yes",
        power_limit_w=number(value("power_limit")),
        pcie_max_generation=_whole(value("pcie_max_generation")),
        pcie_max_width=_whole(value("pcie_max_width")),
        pcie_generation=_whole(value("pcie_generation")),
        pcie_width=_whole(value("pcie_width")),
        mig_enabled=value("mig") == "Enabled",
        c2c_mode=value("c2c_mode"),
        fabric_state=value("fabric_state"),
        fabric_status=value("fabric_status"),
        clique_id=value("clique_id"),
        cluster_uuid=value("cluster_uuid"),
        fabric_health=value("fabric_health"),
    )


def _first(paths: tuple[str, ...], read: Callable[[str], str | None]) -> str | None:
    return next((found for found in map(read, paths) if found is not None), None)


def _xml_text(gpu: ElementTree.Element, path: str) -> str | None:
    found = gpu.find(path)
    text = found.text.strip() if found is not None and found.text else None
    return None if text in (None, "", "N/A") else text


def _xml_reader(gpu: ElementTree.Element) -> Callable[[str], str | None]:
    """`value(fact)` over one `<gpu>` element: the first of the fact's XML paths that has a value."""

    def value(fact: str) -> str | None:
        return _first(FIELDS[fact][0], lambda path: _xml_text(gpu, path))

    return value


def _text_reader(gpu: Section) -> Callable[[str], str | None]:
    """`value(fact)` over one GPU's text section: the first of the fact's label paths that has a value."""

    def value(fact: str) -> str | None:
        return _first(FIELDS[fact][1], gpu.text)

    return value


def _xml_uncorrected(gpu: ElementTree.Element) -> int:
    """Volatile uncorrectable ECC errors: the `*uncorrectable*` counters (Hopper) or `double_bit/total` (older drivers)."""
    volatile = gpu.find("ecc_errors/volatile")
    if volatile is None:
        return 0
    counters = [element.text for element in volatile.iter() if "uncorrectable" in element.tag]
    counters += [element.text for element in volatile.findall("double_bit/total")]
    return int(sum(number(value) or 0 for value in counters))


def parse_xml(xml_text: str) -> tuple[int, list[Gpu]]:
    """`attached_gpus` and the GPUs of an `nvidia-smi -q -x` document; `ValueError` when it isn't one."""
    try:
        root = ElementTree.fromstring(xml_text)
    except ElementTree.ParseError as exc:
        raise ValueError(f"not XML ({exc})") from None
    if root.tag != "nvidia_smi_log":
        raise ValueError(f"the root element is <{root.tag}>, not <nvidia_smi_log>")
    gpus = []
    for element in root.findall("gpu"):
        gpus.append(_gpu(element.get("id", "?"), _xml_reader(element), _xml_uncorrected(element)))
    attached = number(root.findtext("attached_gpus"))
    return (int(attached) if attached is not None else len(gpus)), gpus


def _text_uncorrected(gpu: Section) -> int:
    """Volatile uncorrectable ECC errors in the text: every `... Uncorrectable ...` counter, or `Double Bit/Total` (Volta)."""
    volatile = gpu.find("ECC Errors/Volatile")
    if volatile is None:
        return 0
    counters = [child.value for child in volatile.children if "Uncorrectable" in child.label]
    counters.append(volatile.text("Double Bit/Total"))
    return int(sum(number(value) or 0 for value in counters))


def parse_text(text: str) -> tuple[int, list[Gpu]]:
    """`Attached GPUs` and the GPUs of the text `nvidia-smi -q` prints; `ValueError` when it isn't that text."""
    root = parse_tree(text)
    gpus = [_gpu(bus_id, _text_reader(section), _text_uncorrected(section)) for bus_id, section in gpu_sections(root)]
    attached = number(root.text("Attached GPUs"))
    return (int(attached) if attached is not None else len(gpus)), gpus


def _listing(gpus: list[tuple[int, Gpu]], value: Callable[[Gpu], str]) -> str:
    """`GPU 0 (00000000:00:06.0): 700 W; ...` for the GPUs given, with `value(gpu)` as each one's observation."""
    return "; ".join(f"GPU {index} ({gpu.bus_id}): {value(gpu)}" for index, gpu in gpus) if gpus else "none"


def per_gpu(
    checks: Checks, name: str, indexed: list[tuple[int, Gpu]], failing: Callable[[Gpu], bool], expected: str, describe: Callable[[Gpu], str]
) -> None:
    """One check over every GPU: it fails on any GPU `failing` picks (each listed with `describe`), and when there is no GPU."""
    bad = [(index, gpu) for index, gpu in indexed if failing(gpu)]
    everyone = ", ".join(sorted({describe(gpu) for _, gpu in indexed}))
    observed = _listing(bad, describe) if bad else (f"{everyone} on {len(indexed)} GPUs" if indexed else "no GPU")
    checks.add(name, bool(indexed) and not bad, expected, observed)
