"""NVIDIA GPUs: `nvidia-smi -q -x` (inventory and health), `nvidia-smi nvlink -s` (links up) and Xid events in `dmesg`.

The XML element names are those of a real `nvidia-smi -q -x` from driver 580.159.04 on an
H100 80GB HBM3 (tests/acceptance/fixtures and /work/shared/fixtures/nvidia-h100): `fb_memory_usage/total`,
`ecc_mode/current_ecc`, `ecc_errors/volatile/*uncorrectable*`, `remapped_rows/remapped_row_pending`,
`retired_pages/pending_retirement`, `gpu_power_readings/current_power_limit`,
`pci/pci_gpu_link_info/pcie_gen/max_link_gen`, `link_widths/current_link_width` and `mig_mode/current_mig`. Older
drivers name the power element `power_readings/power_limit`; both are read.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import dataclass

from acceptance.expectation import Expectation
from acceptance.report import Checks, printed


@dataclass(frozen=True)
class Gpu:
    """What one `<gpu>` element of `nvidia-smi -q -x` says, the fields acceptance compares."""

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
    pcie_width: int | None
    mig_enabled: bool = False


def _number(text: str | None) -> float | None:
    """The leading number of a value such as `81559 MiB`, `700.00 W` or `16x`; None for `N/A` or nothing."""
    match = re.match(r"\s*(\d+(?:\.\d+)?)", text or "")
    return float(match.group(1)) if match else None


def _text(gpu: ElementTree.Element, path: str) -> str | None:
    found = gpu.find(path)
    return found.text.strip() if found is not None and found.text else None


def _uncorrected(gpu: ElementTree.Element) -> int:
    """Volatile uncorrectable ECC errors: the `*uncorrectable*` counters (Hopper) or `double_bit/total` (older drivers)."""
    volatile = gpu.find("ecc_errors/volatile")
    if volatile is None:
        return 0
    counters = [element.text for element in volatile.iter() if "uncorrectable" in element.tag]
    counters += [element.text for element in volatile.findall("double_bit/total")]
    return int(sum(_number(value) or 0 for value in counters))


def parse_gpus(xml_text: str) -> tuple[int, list[Gpu]]:
    """`attached_gpus` and the GPUs of an `nvidia-smi -q -x` document; `ValueError` when it isn't one."""
    try:
        root = ElementTree.fromstring(xml_text)
    except ElementTree.ParseError as exc:
        raise ValueError(f"not XML ({exc})") from None
    if root.tag != "nvidia_smi_log":
        raise ValueError(f"the root element is <{root.tag}>, not <nvidia_smi_log>")
    gpus = []
    for gpu in root.findall("gpu"):
        power = _text(gpu, "gpu_power_readings/current_power_limit") or _text(gpu, "power_readings/power_limit")
        memory = _number(_text(gpu, "fb_memory_usage/total"))
        generation = _number(_text(gpu, "pci/pci_gpu_link_info/pcie_gen/max_link_gen"))
        width = _number(_text(gpu, "pci/pci_gpu_link_info/link_widths/current_link_width"))
        gpus.append(
            Gpu(
                bus_id=gpu.get("id", "?"),
                name=_text(gpu, "product_name") or "?",
                memory_mib=int(memory) if memory is not None else None,
                ecc_enabled=_text(gpu, "ecc_mode/current_ecc") == "Enabled",
                uncorrected_errors=_uncorrected(gpu),
                remap_pending=_text(gpu, "remapped_rows/remapped_row_pending") == "Yes",
                remap_failed=_text(gpu, "remapped_rows/remapped_row_failure") == "Yes",
                retirement_pending=_text(gpu, "retired_pages/pending_retirement") == "Yes",
                power_limit_w=_number(power),
                pcie_max_generation=int(generation) if generation is not None else None,
                pcie_width=int(width) if width is not None else None,
                mig_enabled=_text(gpu, "mig_mode/current_mig") == "Enabled",
            )
        )
    attached = _number(root.findtext("attached_gpus"))
    return (int(attached) if attached is not None else len(gpus)), gpus


def _listing(gpus: list[tuple[int, Gpu]], value: Callable[[Gpu], str]) -> str:
    """`GPU 0 (00000000:00:06.0): 700 W; ...` for the GPUs given, with `value(gpu)` as each one's observation."""
    return "; ".join(f"GPU {index} ({gpu.bus_id}): {value(gpu)}" for index, gpu in gpus) if gpus else "none"


def _per_gpu(
    checks: Checks, name: str, indexed: list[tuple[int, Gpu]], failing: Callable[[Gpu], bool], expected: str, describe: Callable[[Gpu], str]
) -> None:
    """One check over every GPU: it fails on any GPU `failing` picks (each listed with `describe`), and when there is no GPU."""
    bad = [(index, gpu) for index, gpu in indexed if failing(gpu)]
    everyone = ", ".join(sorted({describe(gpu) for _, gpu in indexed}))
    observed = _listing(bad, describe) if bad else (f"{everyone} on {len(indexed)} GPUs" if indexed else "no GPU")
    checks.add(name, bool(indexed) and not bad, expected, observed)


def gpu_checks(expectation: Expectation, xml_text: str, checks: Checks) -> None:
    """Compare the GPUs `nvidia-smi -q -x` reports with the expectation; one named check per property."""
    try:
        attached, gpus = parse_gpus(xml_text)
    except ValueError as exc:
        checks.add("gpu.inventory", False, "an nvidia-smi -q -x document", f"{exc}; it printed {printed(xml_text)}")
        return
    indexed = list(enumerate(gpus))
    count = expectation.accelerator_count
    if count is not None:
        checks.add("gpu.count", attached == count == len(gpus), f"{count} GPUs", f"{attached} attached, {len(gpus)} listed")
    _model_and_memory(expectation, indexed, checks)
    if expectation.ecc:
        _per_gpu(
            checks,
            "gpu.ecc",
            indexed,
            lambda g: not g.ecc_enabled,
            "ECC enabled on every GPU",
            lambda g: "ECC enabled" if g.ecc_enabled else "ECC disabled",
        )
    errors = "no volatile uncorrectable ECC errors"
    _per_gpu(
        checks, "gpu.uncorrected-ecc", indexed, lambda g: g.uncorrected_errors > 0, errors, lambda g: f"{g.uncorrected_errors} uncorrected errors"
    )
    faults = "no pending row remap, no remap failure, no page pending retirement"
    _per_gpu(checks, "gpu.row-remap", indexed, lambda g: bool(_memory_fault(g)), faults, lambda g: _memory_fault(g) or "no memory fault")
    _power_and_pcie(expectation, indexed, checks)
    if expectation.dcgm_level == 4:
        # DCGM's r4 runs on whole GPUs only (awsome-distributed-training's L4 preflight: "MIG off").
        mig = "MIG disabled on every GPU (DCGM r4 needs it off)"
        _per_gpu(checks, "gpu.mig-off", indexed, lambda g: g.mig_enabled, mig, lambda g: "MIG enabled" if g.mig_enabled else "MIG disabled")


def _memory_fault(gpu: Gpu) -> str:
    """The GPU's pending or failed memory repairs, in words ("" when there is none)."""
    faults = (("row remap pending", gpu.remap_pending), ("row remap failed", gpu.remap_failed), ("page retirement pending", gpu.retirement_pending))
    return ", ".join(word for word, present in faults if present)


def _model_and_memory(expectation: Expectation, indexed: list[tuple[int, Gpu]], checks: Checks) -> None:
    model = expectation.accelerator_model
    if model is None:
        checks.skip("gpu.model", "the expectation names no model")
    else:
        _per_gpu(checks, "gpu.model", indexed, lambda g: model.lower() not in g.name.lower(), f"every GPU's name holds {model!r}", lambda g: g.name)
    floor = expectation.memory_mib_min
    if floor is None:
        checks.skip("gpu.memory", "the expectation gives no memory floor")
    else:
        _per_gpu(checks, "gpu.memory", indexed, lambda g: (g.memory_mib or 0) < floor, f">= {floor} MiB per GPU", lambda g: f"{g.memory_mib} MiB")


def _power_and_pcie(expectation: Expectation, indexed: list[tuple[int, Gpu]], checks: Checks) -> None:
    watts = expectation.power_limit_w
    if watts is None:
        checks.skip("gpu.power-limit", "the catalog has no power figure for this accelerator")
    else:
        # Half a watt of slack: nvidia-smi prints the limit to the hundredth, and a deliberate cap is tens of watts.
        low = lambda g: g.power_limit_w is None or g.power_limit_w < watts - 0.5  # noqa: E731
        _per_gpu(
            checks, "gpu.power-limit", indexed, low, f">= {watts:g} W per GPU", lambda g: f"{g.power_limit_w:g} W" if g.power_limit_w else "no limit"
        )
    generation, width = expectation.pcie_generation, expectation.pcie_width
    if generation is None or width is None:
        checks.skip("gpu.pcie", "no published PCIe generation and width for this accelerator")
        return
    # The link's maximum generation, not the current one: an idle GPU trains its link down to save power.
    # The width does not change with load, so the current width is what is compared.
    slow = lambda g: (g.pcie_max_generation or 0) < generation or g.pcie_width != width  # noqa: E731
    _per_gpu(
        checks, "gpu.pcie", indexed, slow, f"PCIe gen {generation} x{width} on every GPU", lambda g: f"gen {g.pcie_max_generation} x{g.pcie_width}"
    )


_LINK = re.compile(r"^\s*Link (\d+):\s*(.*)$")
_GPU_HEADER = re.compile(r"^GPU (\d+):")


def parse_nvlinks(text: str) -> dict[int, tuple[int, int]]:
    """Per GPU index, (links up, links listed) from `nvidia-smi nvlink -s`; a link is up when it reports a speed above 0."""
    links: dict[int, list[bool]] = {}
    current: int | None = None
    for line in text.splitlines():
        header = _GPU_HEADER.match(line)
        if header:
            current = int(header.group(1))
            links[current] = []
            continue
        link = _LINK.match(line)
        if link and current is not None:
            speed = re.match(r"(\d+(?:\.\d+)?)\s*GB/s", link.group(2))
            links[current].append(bool(speed) and float(speed.group(1)) > 0)  # type: ignore[union-attr]
    return {gpu: (sum(states), len(states)) for gpu, states in links.items()}


def nvlink_checks(expectation: Expectation, text: str, checks: Checks) -> None:
    """Every GPU the design has shows at least the design's NVLinks up (`<inactive>` or `0 GB/s` is down)."""
    wanted, count = expectation.nvlinks_per_gpu, expectation.accelerator_count or 0
    links = parse_nvlinks(text)
    short = {gpu: up for gpu, (up, _) in links.items() if up < (wanted or 0)}
    missing = count - len(links)
    seen = "; ".join(f"GPU {gpu}: {up} up" for gpu, up in sorted(short.items())) if short else f"{len(links)} GPUs with >= {wanted} up"
    if missing > 0:
        seen += f"; {missing} GPU(s) not listed"
    checks.add("gpu.nvlinks", not short and missing <= 0, f"{wanted} NVLinks up on each of {count} GPUs", seen)


# The driver's kernel-log line: `NVRM: Xid (PCI:0000:53:00): 79, pid=..., GPU has fallen off the bus.`
_XID = re.compile(r"NVRM: Xid \((PCI:[0-9A-Fa-f:.]+)\): (\d+)")


def xid_checks(text: str, checks: Checks) -> None:
    """No Xid event in the kernel log: before its first job a node has run nothing that could excuse one."""
    events = sorted({(pci, int(code)) for pci, code in _XID.findall(text)})
    checks.add("gpu.xid", not events, "no NVIDIA Xid event in the kernel log", ", ".join(f"Xid {code} on {pci}" for pci, code in events) or "none")
