"""Read YAML and remember where every value came from.

PyYAML's `compose` gives a node tree whose nodes carry their start marks; this
module turns that tree into plain Python data plus a `SourceMap` from blueprint
paths (`("pools", 1, "capacity", "zone")`) to positions. Duplicate keys, which
PyYAML silently accepts, are reported as findings. A file that can't be read or
parsed raises `SourceError`, the only exception that reaches the CLI (exit 2).
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path as FilePath
from typing import Any

import yaml

from blueprints.findings import Finding, Path, error
from blueprints.records import record
from blueprints.yaml_syntax import syntax_finding

# libyaml's loader (PyYAML's C binding) parses several times faster than the pure-Python one and gives the
# same nodes, marks and errors; PyYAML wheels ship it, and a build without it falls back.
FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# Bounds on what a blueprint file may be, so no input can exhaust memory, the stack or the clock: a real blueprint
# is a few kilobytes (rail-131k is 4 KB, 800 team pools 150 KB), a few levels deep, and uses aliases sparingly.
MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 64
MAX_VALUES = 250_000


def load_data(text: str) -> Any:
    """A trusted data file of railyard's own (catalog, pins, quotas), parsed with the fast loader."""
    return yaml.load(text, FAST_LOADER)


@record
class Position:
    """A 1-based place in a source file."""

    file: str
    line: int
    column: int


class SourceError(Exception):
    """The input can't be read at all: missing file, not YAML, not a mapping.

    Carries the file, line and column when YAML told us where it broke.
    """

    def __init__(self, message: str, file: str, line: int | None = None, column: int | None = None, finding: Finding | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        # A YAML syntax error also comes as a finding (`yaml.syntax`), with the file's lines to frame it.
        self.finding = finding
        self.lines: list[str] = []


@record(frozen=False)
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
        self.built = 0
        self.open: set[int] = set()  # the collection nodes on the path being built: an alias back to one is a cycle

    def position(self, node: yaml.Node) -> Position:
        return Position(self.file, node.start_mark.line + 1, node.start_mark.column + 1)

    def build(self, node: yaml.Node, path: Path) -> Any:
        self._within_bounds(node, path)
        self.source_map.values[path] = self.position(node)
        if isinstance(node, yaml.ScalarNode) or node.tag == "tag:yaml.org,2002:merge":
            try:
                return self.constructor.construct_object(node, deep=True)
            except ValueError as exc:  # a timestamp YAML resolves but no calendar has (2026-12-41)
                raise SourceError(
                    f"YAML value error: {node.value!r} reads as a date or time, but {exc}; write a real one, such as 2026-12-01T11:30:00Z",
                    self.file,
                    *self._line_col(node),
                ) from None
        if not isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            raise SourceError(f"unsupported YAML node {node.tag}", self.file, *self._line_col(node))
        self.open.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                return self.build_mapping(node, path)
            return [self.build(item, path + (index,)) for index, item in enumerate(node.value)]
        finally:
            self.open.discard(id(node))

    def _within_bounds(self, node: yaml.Node, path: Path) -> None:
        """Refuse an alias that contains itself, a document that aliases expand past MAX_VALUES, and deep nesting."""
        if id(node) in self.open:
            raise SourceError(
                "a YAML alias (*name) refers to a mapping or list that contains it, so the document never ends; "
                "repeat the values instead of aliasing their container",
                self.file,
                *self._line_col(node),
            )
        self.built += 1
        if self.built > MAX_VALUES:
            raise SourceError(
                f"the document holds more than {MAX_VALUES:,} values once its YAML aliases (*name) are expanded; "
                "a blueprint needs far fewer, so an alias is probably repeating a large part of the file",
                self.file,
                *self._line_col(node),
            )
        if len(path) > MAX_DEPTH:
            raise SourceError(f"values are nested more than {MAX_DEPTH} levels deep here; a blueprint needs a few", self.file, *self._line_col(node))

    def build_mapping(self, node: yaml.MappingNode, path: Path) -> dict[str, Any]:
        data: dict[str, Any] = {}
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


def _check_nesting(text: str, file: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH before composing: libyaml composes recursively, in C, and a deep enough
    document overflows its stack. The event stream is flat, so counting depth over it is safe at any depth."""
    depth = 0
    for event in yaml.parse(text, Loader=FAST_LOADER):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                assert mark is not None, "PyYAML's parser marks every event it emits"
                raise SourceError(
                    f"values are nested more than {MAX_DEPTH} levels deep here; a blueprint needs a few", file, mark.line + 1, mark.column + 1
                )
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def parse_yaml(text: str, file: str) -> tuple[object, SourceMap, list[Finding]]:
    """Parse YAML text into (data, source map, duplicate-key findings).

    Raises `SourceError` with the line and column of a syntax error.
    """
    try:
        _check_nesting(text, file)
        node = yaml.compose(text, Loader=FAST_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        line = mark.line + 1 if mark else None
        column = mark.column + 1 if mark else None
        opened = exc.context_mark.line + 1 if exc.context_mark is not None and exc.problem_mark is not None else None
        lines = text.splitlines()
        broken = lines[line - 1] if line is not None and 0 < line <= len(lines) else ""
        failure = SourceError(f"YAML syntax error: {problem}", file, line, column, syntax_finding(problem, file, line, column, opened, broken))
        failure.lines = lines
        raise failure from None
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
        size = FilePath(path).stat().st_size
        if size > MAX_BYTES:
            raise SourceError(
                f"the file is {size / 2**20:.1f} MiB; a blueprint is limited to {MAX_BYTES // 2**20} MiB (real ones are kilobytes)", file
            )
        text = FilePath(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SourceError(f"file not found: {file}", file) from None
    except IsADirectoryError:
        raise SourceError(f"{file} is a directory, not a blueprint file", file) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"can't read {file}: {exc}", file) from None
    return parse_yaml(text, file)
