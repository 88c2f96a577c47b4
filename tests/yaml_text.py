"""Editing blueprint YAML text in tests: replace one unique snippet, write an edited copy, find the line an anchor is on."""

from __future__ import annotations

from pathlib import Path


def replace_once(text: str, old: str, new: str) -> str:
    """`text` with the one occurrence of `old` replaced by `new` (fails loudly if it isn't unique)."""
    assert text.count(old) == 1, f"snippet {old!r} must occur exactly once"
    return text.replace(old, new)


def line_of(text: str, anchor: str) -> int:
    """The 1-based line of the one line containing `anchor`."""
    lines = [number for number, line in enumerate(text.splitlines(), 1) if anchor in line]
    assert len(lines) == 1, f"anchor {anchor!r} must be on exactly one line, found {lines}"
    return lines[0]


def edited_copy(source: Path, directory: Path, *edits: tuple[str, str]) -> Path:
    """A copy of `source` under `directory`, same file name, with each (old, new) snippet replaced once."""
    text = source.read_text()
    for old, new in edits:
        text = replace_once(text, old, new)
    path = directory / source.name
    path.write_text(text)
    return path
