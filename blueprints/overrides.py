"""Environment overrides: one blueprint, several environments.

An environment (a Pulumi stack) keeps its differences from the base blueprint
in its stack config, under `railyard:overrides`, as a partial blueprint. The
merge is a deep merge with one extra rule: a list of named items (pools,
fabrics, storage, zones, blocks) merges item by item on `name`, so
`pools: [{name: train, nodes: 2}]` changes only that pool's node count. An
override that names an item the blueprint doesn't have is an error (with the
closest names), never a silent addition. The merged document is then
validated like any blueprint, so a bad override is reported against the stack
file's own line.
"""

from __future__ import annotations

import difflib
from typing import Any

from blueprints.findings import Finding, Path, error, format_path
from blueprints.source import SourceMap


def _named_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, dict) and "name" in item for item in value)


class _Merger:
    def __init__(self, base_map: SourceMap, override_map: SourceMap):
        self.values = dict(base_map.values)
        self.keys = dict(base_map.keys)
        self.override_map = override_map
        self.findings: list[Finding] = []

    def take_positions(self, source: Path, target: Path) -> None:
        """Copy the override's positions under `source` to the merged path `target`."""
        for table, positions in ((self.override_map.values, self.values), (self.override_map.keys, self.keys)):
            for path, position in table.items():
                if path[: len(source)] == source:
                    positions[target + path[len(source) :]] = position

    def merge(self, base: Any, override: Any, source: Path, target: Path) -> Any:
        if isinstance(base, dict) and isinstance(override, dict):
            if "kind" in override and override.get("kind") != base.get("kind"):
                # A different variant (on_demand instead of capacity_block) replaces the whole object.
                self.take_positions(source, target)
                return override
            merged = dict(base)
            for key, value in override.items():
                if key in base:
                    merged[key] = self.merge(base[key], value, source + (key,), target + (key,))
                else:
                    merged[key] = value
                    self.take_positions(source + (key,), target + (key,))
            return merged
        if _named_list(base) and _named_list(override):
            return self.merge_named(base, override, source, target)
        self.take_positions(source, target)
        return override

    def merge_named(self, base: list[dict[str, Any]], override: list[dict[str, Any]], source: Path, target: Path) -> list[dict[str, Any]]:
        merged = list(base)
        names = [item["name"] for item in base]
        for index, item in enumerate(override):
            if item["name"] not in names:
                close = difflib.get_close_matches(str(item["name"]), [str(n) for n in names], n=1)
                hint = f"did you mean '{close[0]}'? " if close else ""
                self.findings.append(
                    error(
                        "override.unknown-name",
                        source + (index, "name"),
                        f"the override names '{item['name']}' but {format_path(target)} has only {names}",
                        hint + "overrides change existing items; add new items to the blueprint itself",
                    )
                )
                continue
            position = names.index(item["name"])
            merged[position] = self.merge(base[position], item, source + (index,), target + (position,))
        return merged


def apply_overrides(
    data: dict[str, Any], base_map: SourceMap, overrides: dict[str, Any], override_map: SourceMap, override_root: Path = ()
) -> tuple[dict[str, Any], SourceMap, list[Finding]]:
    """Deep-merge `overrides` into blueprint `data`.

    Returns the merged data, a source map in which overridden values point at
    the override's file and line, and findings for overrides naming unknown
    items (placed at the override's own position, found under `override_root`
    in `override_map`).
    """
    merger = _Merger(base_map, override_map)
    local = SourceMap(
        values={path[len(override_root) :]: pos for path, pos in override_map.values.items() if path[: len(override_root)] == override_root},
        keys={path[len(override_root) :]: pos for path, pos in override_map.keys.items() if path[: len(override_root)] == override_root},
    )
    merger.override_map = local
    merged = merger.merge(data, overrides, (), ())
    placed = [local.place(finding) for finding in merger.findings]
    merged_map = SourceMap(values=merger.values, keys=merger.keys, lines={**base_map.lines, **override_map.lines})
    return merged, merged_map, placed
