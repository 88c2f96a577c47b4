"""Read YAML and remember where every value came from.

PyYAML's `compose` gives a node tree whose nodes carry their start marks; this
module turns that tree into plain Python data plus a `SourceMap` from blueprint
paths (`("pools", 1, "capacity", "zone")`) to positions. Duplicate keys, which
PyYAML silently accepts, are reported as findings. A file that can't be read or
parsed raises `SourceError`, the only exception that reaches the CLI (exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path as FilePath

import yaml

from blueprints.findings import Finding, Path, error

# libyaml's loader (PyYAML's C binding) parses several times faster than the pure-Python one and gives the
# same nodes, marks and errors; PyYAML wheels ship it, and a build without it falls back.
FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_data(text: str):
    """A trusted data file of railyard's own (catalog, pins, quotas), parsed with the fast loader."""
    return yaml.load(text, FAST_LOADER)


@dataclass(frozen=True)
class Position:
    """A 1-based place in a source file."""

    file: str
    line: int
    column: int


class SourceError(Exception):
    """The input can't be read at all: missing file, not YAML, not a mapping.

    Carries the file, line and column when YAML told us where it broke.
    """

    def __init__(self, message: str, file: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column


@dataclass
class SourceMap:
    """Positions of values (and of their keys) by blueprint path, plus source lines."""

    values: dict[Path, Position] = field(default_factory=dict)
    keys: dict[Path, Position] = field(default_factory=dict)
    lines: dict[str, list[str]] = field(default_factory=dict)

    def locate(self, path: Path, prefer_key: bool = False) -> Position | None:
        """Find the position of `path`, or of its nearest ancestor that exists.

        A missing field has no position of its own, so the finding points at the
        mapping that should have held it.
        """
        path = tuple(path)
        while True:
            table = (self.keys, self.values) if prefer_key else (self.values, self.keys)
            for positions in table:
                if path in positions:
                    return positions[path]
            if not path:
                return None
            path = path[:-1]

    def place(self, finding: Finding) -> Finding:
        """Return `finding` with file, line and column filled from this map."""
        if finding.line is not None:
            return finding
        prefer_key = finding.code == "schema.unknown-key"
        position = self.locate(finding.path, prefer_key=prefer_key)
        if position is None:
            return finding
        return finding.at(position.file, position.line, position.column)

    def source_line(self, file: str | None, line: int | None) -> str | None:
        """The text of a 1-based line of a loaded file, for carets in the CLI."""
        if file is None or line is None:
            return None
        lines = self.lines.get(file, [])
        return lines[line - 1] if 0 < line <= len(lines) else None

    def merged_with(self, other: SourceMap) -> SourceMap:
        """A new map holding both maps' positions; `other` wins on conflicts."""
        return SourceMap(
            values={**self.values, **other.values},
            keys={**self.keys, **other.keys},
            lines={**self.lines, **other.lines},
        )


class _Builder:
    """Walks a composed YAML node tree into data, positions and duplicate-key findings."""

    def __init__(self, file: str):
        self.file = file
        self.constructor = yaml.SafeLoader("")
        self.source_map = SourceMap()
        self.findings: list[Finding] = []

    def position(self, node: yaml.Node) -> Position:
        return Position(self.file, node.start_mark.line + 1, node.start_mark.column + 1)

    def build(self, node: yaml.Node, path: Path):
        self.source_map.values[path] = self.position(node)
        if isinstance(node, yaml.MappingNode):
            return self.build_mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, path + (index,)) for index, item in enumerate(node.value)]
        if node.tag == "tag:yaml.org,2002:merge" or isinstance(node, yaml.ScalarNode):
            return self.constructor.construct_object(node, deep=True)
        raise SourceError(f"unsupported YAML node {node.tag}", self.file, *self._line_col(node))

    def build_mapping(self, node: yaml.MappingNode, path: Path) -> dict:
        data: dict = {}
        for key_node, value_node in node.value:
            key = self.constructor.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool)):
                raise SourceError("mapping keys must be plain scalars", self.file, *self._line_col(key_node))
            key = str(key) if not isinstance(key, str) else key
            child = path + (key,)
            if key in data:
                first = self.source_map.keys[child]
                self.findings.append(
                    error(
                        "yaml.duplicate-key",
                        child,
                        f"key '{key}' appears twice in this mapping (first at line {first.line})",
                        "YAML keeps only the last value; delete or merge one of them",
                    ).at(self.file, key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                )
            self.source_map.keys[child] = self.position(key_node)
            data[key] = self.build(value_node, child)
        return data

    @staticmethod
    def _line_col(node: yaml.Node) -> tuple[int, int]:
        return node.start_mark.line + 1, node.start_mark.column + 1


def parse_yaml(text: str, file: str) -> tuple[object, SourceMap, list[Finding]]:
    """Parse YAML text into (data, source map, duplicate-key findings).

    Raises `SourceError` with the line and column of a syntax error.
    """
    try:
        node = yaml.compose(text, Loader=FAST_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        line = mark.line + 1 if mark else None
        column = mark.column + 1 if mark else None
        raise SourceError(f"YAML syntax error: {problem}", file, line, column) from None
    except yaml.YAMLError as exc:
        raise SourceError(f"YAML error: {exc}", file) from None
    builder = _Builder(file)
    builder.source_map.lines[file] = text.splitlines()
    if node is None:
        return None, builder.source_map, []
    try:
        data = builder.build(node, ())
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        raise SourceError(f"YAML value error: {exc.problem}", file, mark.line + 1 if mark else None, mark.column + 1 if mark else None) from None
    return data, builder.source_map, builder.findings


def read_yaml_file(path: str | FilePath) -> tuple[object, SourceMap, list[Finding]]:
    """Read and parse a YAML file; a missing or unreadable file raises `SourceError`."""
    file = str(path)
    try:
        text = FilePath(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SourceError(f"file not found: {file}", file) from None
    except IsADirectoryError:
        raise SourceError(f"{file} is a directory, not a blueprint file", file) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"can't read {file}: {exc}", file) from None
    return parse_yaml(text, file)
