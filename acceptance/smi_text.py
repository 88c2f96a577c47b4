"""The text `nvidia-smi -q` prints, read as the tree its indentation draws.

The layout, as real outputs show it (the H100 capture in acceptance/examples, driver 580.159.04; leptonai/gpud's
test data from drivers 535 and 560; tests/acceptance/fixtures/nvidia-smi-text/README.md lists them):

    ==============NVSMI LOG==============
    Attached GPUs                             : 8
    GPU 00000000:53:00.0
        Product Name                          : NVIDIA H100 80GB HBM3
        PCI
            GPU Link Info
                Link Width
                    Max                       : 16x

A line is `label : value` or a bare `label` that opens a section; a line indented deeper than the one before belongs
to it. The label is padded with spaces to a column, and some labels keep a trailing space (`GPU Memory Power Readings `),
so labels are compared stripped. Values may hold colons (`Bus Id : 00000000:53:00.0`); only the first ` : ` splits.
A value nvidia-smi can't give reads `N/A` (read as no value). Each GPU's section opens with `GPU <bus id>` at the
left margin, and a section older drivers collapse prints as a value (`Remapped Rows : N/A` on a Volta).

NVIDIA publishes no grammar for this text (the XML's DTD is for `-x`), which is why `-x` is what `record` runs; this
reader is for the text operators paste into tickets. No library reads it: the parsers on PyPI read the XML or the
`--query-gpu` CSV.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HEADER = "==============NVSMI LOG=============="
_LINE = re.compile(r"^(?P<indent> *)(?P<label>[^:]*?)\s*(?:: (?P<value>.*)|:)?$")
_GPU = re.compile(r"^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])$")


@dataclass
class Section:
    """One line of the text and the lines indented under it: `label`, its `value` (None for `N/A` or a bare label)."""

    label: str
    value: str | None = None
    children: list[Section] = field(default_factory=list)

    def find(self, path: str) -> Section | None:
        """The first descendant along `path`, labels joined by `/` (`PCI/GPU Link Info/Link Width/Max`); None if absent."""
        here: Section | None = self
        for label in path.split("/"):
            here = next((child for child in here.children if child.label == label), None) if here else None
        return here

    def text(self, path: str) -> str | None:
        """The value at `path`, or None where the line is absent or reads `N/A`."""
        found = self.find(path)
        return found.value if found else None


def parse_tree(text: str) -> Section:
    """The whole output as one root section; `ValueError` when the text has no `NVSMI LOG` header (it isn't `nvidia-smi -q`)."""
    if HEADER not in text:
        raise ValueError(f"no {HEADER!r} header: not the text of nvidia-smi -q")
    root = Section("")
    # The open sections, each with its indent; the root sits at -1 so every line nests under it.
    stack: list[tuple[int, Section]] = [(-1, root)]
    for raw in text[text.index(HEADER) + len(HEADER) :].splitlines():
        line = raw.expandtabs(4).rstrip()
        section, indent = _section(line)
        if section is None:
            continue
        while stack[-1][0] >= indent:
            stack.pop()
        stack[-1][1].children.append(section)
        stack.append((indent, section))
    return root


def _section(line: str) -> tuple[Section | None, int]:
    """The section one line opens and its indent; None for a blank line or one that is neither `label` nor `label : value`."""
    if _GPU.match(line):
        return Section(line), 0
    match = _LINE.match(line)
    if not line.strip() or not match:
        return None, 0
    value = (match.group("value") or "").strip()
    return Section(match.group("label").strip(), None if value in ("", "N/A") else value), len(match.group("indent"))


def gpu_sections(root: Section) -> list[tuple[str, Section]]:
    """Each GPU's bus id and section, in the order printed (`GPU 00000000:53:00.0` at the left margin)."""
    found = []
    for child in root.children:
        match = _GPU.match(child.label) if child.value is None else None
        if match:
            found.append((match.group(1), child))
    return found
