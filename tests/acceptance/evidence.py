"""Evidence folders for the checker's tests: the real H100 capture, an eight-GPU node assembled from it, and faults derived from that.

one H100 (real)             p5.48xlarge (assembled)
+---------+                 +---------+---------+ ... 8 GPUs, 18 NVLinks each
| GPU 0   |                 | GPU 0   | GPU 1   |     32 EFA devices (sysfs; no fi_info, as on EKS)
+---------+                 +---------+---------+     DCGM r2: pass
"""

from __future__ import annotations

import copy
import shutil
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

from acceptance import Expectation

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "acceptance" / "examples" / "h100-80gb-hbm3"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Bus ids of the eight GPUs: made up, one per GPU, so a failure names which.
BUS_IDS = tuple(f"00000000:{bus}:00.0" for bus in ("53", "64", "75", "86", "97", "A8", "B9", "CA"))

P5 = Expectation(
    pool="train",
    instance_type="p5.48xlarge",
    level="standard",
    accelerator_kind="gpu",
    accelerator_count=8,
    accelerator_model="H100",
    accelerator_product="NVIDIA H100 80GB HBM3",
    memory_mib_min=80281,
    ecc=True,
    power_limit_w=700,
    pcie_generation=5,
    pcie_width=16,
    nvlinks_per_gpu=18,
    efa_devices=32,
)


def one_h100() -> Expectation:
    """The expectation shipped beside the real capture: one H100 80GB HBM3 at the inventory level."""
    return Expectation.from_json((EXAMPLE / "expectation.json").read_text(encoding="utf-8"))


def eight_gpu_xml(change: Callable[[list[ElementTree.Element]], None] | None = None) -> str:
    """The real capture's `<gpu>` copied eight times (one bus id each), with `change` applied to the GPUs."""
    root = ElementTree.fromstring((EXAMPLE / "nvidia-smi-q.xml").read_text(encoding="utf-8"))
    original = root.find("gpu")
    assert original is not None
    root.remove(original)
    gpus = []
    for bus_id in BUS_IDS:
        gpu = copy.deepcopy(original)
        gpu.set("id", bus_id)
        gpus.append(gpu)
    if change:
        change(gpus)
    for gpu in gpus:
        root.append(gpu)
    attached = root.find("attached_gpus")
    assert attached is not None
    attached.text = str(len(gpus))
    return ElementTree.tostring(root, encoding="unicode")


def p5_folder(into: Path, change: Callable[[list[ElementTree.Element]], None] | None = None) -> Path:
    """A p5.48xlarge node's evidence folder: the assembled nvidia-smi XML plus the built NVLink, DCGM, sysfs RDMA and dmesg files."""
    folder = into / "p5-node"
    shutil.copytree(FIXTURES / "p5-48xlarge", folder)
    (folder / "nvidia-smi-q.xml").write_text(eight_gpu_xml(change), encoding="utf-8")
    return folder


def real_folder(into: Path) -> Path:
    """A copy of the real one-H100 capture folder."""
    folder = into / "h100"
    shutil.copytree(EXAMPLE, folder)
    return folder


def set_text(gpu: ElementTree.Element, path: str, value: str) -> None:
    """Set one element's text in a `<gpu>` (the path must exist in the real capture)."""
    element = gpu.find(path)
    assert element is not None, path
    element.text = value
