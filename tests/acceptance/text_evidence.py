"""Evidence in the text `nvidia-smi -q` prints, for the checker's tests: the real H100's text copied per GPU, and a GB200 tray derived from it.

eight H100s (p5.48xlarge)                    a GB200 tray (p6e-gb200.36xlarge)
GPU 00000000:53:00.0 ... GPU 00000000:CA:00.0  GPU 0..3: NVIDIA GB200, C2C Enabled,
(the capture's GPU section, one bus id each)   Fabric Completed/Success, clique 4026 of one cluster
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.acceptance.evidence import BUS_IDS, FIXTURES

TEXTS = FIXTURES / "nvidia-smi-text"
H100_TEXT = TEXTS / "h100-80gb-hbm3-580.159.04.txt"
TITAN_V_TEXT = TEXTS / "gpud-titan-v-560.35.03.txt"
# A real eight-GPU node's text: leptonai/gpud's 8 x H100 80GB HBM3 on driver 535.183.01 (bus ids 53 to CA, as on a p5).
GPUD_H100_TEXT = TEXTS / "gpud-8xh100-535.183.01.txt"
KERNEL_LOGS = FIXTURES / "kernel-log"
GB200_BUS_IDS = tuple(f"00000009:{bus}:00.0" for bus in ("01", "02", "03", "04"))
# A GB200 node's fabric as leptonai/gpud#1106 shows it (clique 4026, its cluster UUID, no health reported).
GB200_FABRIC = {"State": "Completed", "Status": "Success", "CliqueId": "4026", "ClusterUUID": "9c6f5af3-53bf-49b5-a436-b66766c413c3"}

Block = list[str]


def _split(text: str) -> tuple[Block, Block]:
    """The lines before the GPU section, and the GPU section (the capture has one GPU, last in the file)."""
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("GPU 0000"))
    return lines[:start], lines[start:]


def set_value(block: Block, path: str, value: str) -> None:
    """Set the value of the line at `path` (labels joined by `/`) in one GPU's block, keeping the column it is printed at."""
    depth, index = 1, 0
    for label in path.split("/"):
        indent = " " * (4 * depth)
        index = next(i for i in range(index + 1, len(block)) if block[i].startswith(indent + label) and block[i][len(indent)] != " ")
        depth += 1
    line = block[index]
    block[index] = line[: line.index(":") + 2] + value if ":" in line else line


def gpus_text(bus_ids: tuple[str, ...], change: Callable[[list[Block]], None] | None = None) -> str:
    """The capture's GPU section copied once per bus id, with `change` applied to the blocks, `Attached GPUs` set to match."""
    head, block = _split(H100_TEXT.read_text(encoding="utf-8"))
    blocks = []
    for bus_id in bus_ids:
        copy = [f"GPU {bus_id}", *block[1:]]
        set_value(copy, "PCI/Bus Id", bus_id)
        blocks.append(copy)
    if change:
        change(blocks)
    head = [line if not line.startswith("Attached GPUs") else line[: line.index(":") + 2] + str(len(blocks)) for line in head]
    return "\n".join(head + [line for b in blocks for line in [*b, ""]])


def eight_h100_text(change: Callable[[list[Block]], None] | None = None) -> str:
    """Eight of the real H100's GPU sections, one per p5 bus id."""
    return gpus_text(BUS_IDS, change)


def as_gb200(block: Block) -> None:
    """One GPU section made a GB200's: its name, its catalog memory and 1,200 W, C2C up and the fabric joined (gpud#1106's values)."""
    set_value(block, "Product Name", "NVIDIA GB200")
    set_value(block, "Product Architecture", "Blackwell")
    set_value(block, "GPU C2C Mode", "Enabled")
    set_value(block, "FB Memory Usage/Total", "189440 MiB")
    set_value(block, "GPU Power Readings/Current Power Limit", "1200.00 W")
    for label, value in GB200_FABRIC.items():
        set_value(block, f"Fabric/{label}", value)
    set_value(block, "Fabric/Health/Summary", "Not Supported")


def gb200_text(change: Callable[[list[Block]], None] | None = None) -> str:
    """A GB200 tray's four GPUs, healthy, with `change` applied after."""

    def build(blocks: list[Block]) -> None:
        for block in blocks:
            as_gb200(block)
        if change:
            change(blocks)

    return gpus_text(GB200_BUS_IDS, build)


def gb200_nvlinks(down: dict[int, int] | None = None) -> str:
    """`nvidia-smi nvlink -s` of a GB200 tray: 18 links per GPU at 53.125 GB/s (NVIDIA/k8s-test-infra#371), `down[gpu]` of them inactive."""
    lines = []
    for gpu in range(4):
        lines.append(f"GPU {gpu}: NVIDIA GB200 (UUID: GPU-00000000-0000-0000-0000-00000000000{gpu})")
        inactive = (down or {}).get(gpu, 0)
        lines += [f"\t Link {link}: {'<inactive>' if link >= 18 - inactive else '53.125 GB/s'}" for link in range(18)]
    return "\n".join(lines) + "\n"


def write(folder: Path, files: dict[str, str]) -> Path:
    """A folder holding `files` (name -> text)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder
