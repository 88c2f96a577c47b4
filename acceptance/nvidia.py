"""NVIDIA GPUs: `nvidia-smi -q` (inventory and health, its XML or its text) and `nvidia-smi nvlink -s` (links up).

The two formats of `nvidia-smi -q` are read into one record per GPU (acceptance/smi.py), so the XML the recorder
writes (`nvidia-smi-q.xml`) and the text an operator pastes (`nvidia-smi-q.txt`) are judged by the same checks.
The kernel log's checks are in acceptance/kernel_log.py; the NVLink fabric's (GB200) in acceptance/fabric.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from acceptance.expectation import Expectation
from acceptance.fabric import fabric_checks
from acceptance.report import Checks, printed
from acceptance.smi import Gpu, parse_text, parse_xml, per_gpu


def gpu_checks(expectation: Expectation, xml_text: str, checks: Checks) -> None:
    """Compare the GPUs `nvidia-smi -q -x` reports with the expectation; one named check per property."""
    _read_then_judge(expectation, xml_text, parse_xml, "an nvidia-smi -q -x document", checks)


def gpu_text_checks(expectation: Expectation, text: str, checks: Checks) -> None:
    """The same checks over the text `nvidia-smi -q` prints (what operators paste into tickets)."""
    _read_then_judge(expectation, text, parse_text, "the text of nvidia-smi -q", checks)


def _read_then_judge(expectation: Expectation, text: str, parse: Callable[[str], tuple[int, list[Gpu]]], wanted: str, checks: Checks) -> None:
    """Parse the output, then judge its GPUs; output that isn't what `wanted` names fails `gpu.inventory`, quoting it."""
    try:
        attached, gpus = parse(text)
    except ValueError as exc:
        checks.add("gpu.inventory", False, wanted, f"{exc}; it printed {printed(text)}")
        return
    judge_gpus(expectation, attached, gpus, checks)


def judge_gpus(expectation: Expectation, attached: int, gpus: list[Gpu], checks: Checks) -> None:
    """Every GPU check over the GPUs `nvidia-smi -q` listed, whichever format it printed."""
    indexed = list(enumerate(gpus))
    count = expectation.accelerator_count
    if count is not None:
        checks.add("gpu.count", attached == count == len(gpus), f"{count} GPUs", f"{attached} attached, {len(gpus)} listed")
    _model_and_memory(expectation, indexed, checks)
    if expectation.ecc:
        per_gpu(
            checks,
            "gpu.ecc",
            indexed,
            lambda g: not g.ecc_enabled,
            "ECC enabled on every GPU",
            lambda g: "ECC enabled" if g.ecc_enabled else "ECC disabled",
        )
    errors = "no volatile uncorrectable ECC errors"
    per_gpu(
        checks, "gpu.uncorrected-ecc", indexed, lambda g: g.uncorrected_errors > 0, errors, lambda g: f"{g.uncorrected_errors} uncorrected errors"
    )
    faults = "no pending row remap, no remap failure, no page pending retirement"
    per_gpu(checks, "gpu.row-remap", indexed, lambda g: bool(_memory_fault(g)), faults, lambda g: _memory_fault(g) or "no memory fault")
    _power_and_pcie(expectation, indexed, checks)
    if expectation.dcgm_level == 4:
        # DCGM's r4 runs on whole GPUs only (awsome-distributed-training's L4 preflight: "MIG off").
        mig = "MIG disabled on every GPU (DCGM r4 needs it off)"
        per_gpu(checks, "gpu.mig-off", indexed, lambda g: g.mig_enabled, mig, lambda g: "MIG enabled" if g.mig_enabled else "MIG disabled")
    fabric_checks(expectation, indexed, checks)


def _memory_fault(gpu: Gpu) -> str:
    """The GPU's pending or failed memory repairs, in words ("" when there is none)."""
    faults = (("row remap pending", gpu.remap_pending), ("row remap failed", gpu.remap_failed), ("page retirement pending", gpu.retirement_pending))
    return ", ".join(word for word, present in faults if present)


def _names_model(name: str, word: str) -> bool:
    """The product name holds the model as a word of its own: `H200` is in `NVIDIA H200` but not in `NVIDIA GH200 480GB`."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", name, re.IGNORECASE) is not None


def _model_and_memory(expectation: Expectation, indexed: list[tuple[int, Gpu]], checks: Checks) -> None:
    model, product = expectation.accelerator_model, expectation.accelerator_product
    if product is not None:
        # The full name where the catalog knows it: an H100 SXM5 (`NVIDIA H100 80GB HBM3`) is not an `NVIDIA H100 PCIe`.
        per_gpu(checks, "gpu.model", indexed, lambda g: g.name != product, f"every GPU named {product!r}", lambda g: g.name)
    elif model is not None:
        # gpud's GH200 misread as H200 (leptonai/gpud#1206) is why a word, not a substring, is matched.
        per_gpu(checks, "gpu.model", indexed, lambda g: not _names_model(g.name, model), f"every GPU's name holds {model!r}", lambda g: g.name)
    else:
        checks.skip("gpu.model", "the expectation names no model")
    floor = expectation.memory_mib_min
    if floor is None:
        checks.skip("gpu.memory", "the expectation gives no memory floor")
    else:
        per_gpu(checks, "gpu.memory", indexed, lambda g: (g.memory_mib or 0) < floor, f">= {floor} MiB per GPU", lambda g: f"{g.memory_mib} MiB")


def _power_and_pcie(expectation: Expectation, indexed: list[tuple[int, Gpu]], checks: Checks) -> None:
    watts = expectation.power_limit_w
    if watts is None:
        checks.skip("gpu.power-limit", "the catalog has no power figure for this accelerator")
    else:
        # Half a watt of slack: nvidia-smi prints the limit to the hundredth, and a deliberate cap is tens of watts.
        low = lambda g: g.power_limit_w is None or g.power_limit_w < watts - 0.5  # noqa: E731
        per_gpu(
            checks, "gpu.power-limit", indexed, low, f">= {watts:g} W per GPU", lambda g: f"{g.power_limit_w:g} W" if g.power_limit_w else "no limit"
        )
    generation, width = expectation.pcie_generation, expectation.pcie_width
    if generation is None or width is None:
        checks.skip("gpu.pcie", "no published PCIe generation and width for this accelerator")
        return
    # What the link can train to, not what it runs at now: `nvidia-smi --help-query-gpu` says the current generation and
    # width "may be reduced when the GPU is not in use", and the checker runs on an idle node. The current values are
    # reported; DCGM's PCIe test (`dcgmi diag -r 2` and up: the `standard` level and above) judges it under load.
    slow = lambda g: (g.pcie_max_generation or 0) < generation or (g.pcie_max_width or 0) < width  # noqa: E731
    per_gpu(
        checks,
        "gpu.pcie",
        indexed,
        slow,
        f"every GPU's link able to train to PCIe gen {generation} x{width} (the current values, lower when idle, not judged)",
        _link,
    )


def _link(gpu: Gpu) -> str:
    """`gen 5 x16 (now gen 1 x16)`: the link's maximum, then what it runs at."""
    now = f" (now gen {gpu.pcie_generation} x{gpu.pcie_width})" if gpu.pcie_generation is not None or gpu.pcie_width is not None else ""
    return f"gen {gpu.pcie_max_generation} x{gpu.pcie_max_width}{now}"


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
