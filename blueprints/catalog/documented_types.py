"""Instance types assembled from AWS's documentation, for the types no DescribeInstanceTypes answer within reach has.

`documented/<family>.json` is a DescribeInstanceTypes answer in AWS's shape, typed from AWS's documentation, and
`documented/<family>.sources.yaml` gives each of its values a source, a quote and a confidence, and names the fields
no source gives (left out of the JSON rather than guessed). The generator adds these entries under the API data
(`generate.py`): an API answer for the same type, moto's or an account's, replaces one, and the catalog's provenance
records which entries are documented rather than answered.

The two files are held to each other (`coverage_problems`): every value of the JSON has a source entry, every source
entry names a value of the JSON, and nothing listed as not published is in it. A field path is dotted, with `[i]` for
an item of a list of objects; a source entry may name several items at once (`NetworkCards[1,3,5]`), and a
not-published entry every item (`NetworkCards[]`) or a whole object (`EbsInfo`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

DOCUMENTED_DIR = Path(__file__).with_name("documented")
CONFIDENCES = ("documented", "secondary", "derived", "assumed")
_ITEMS = re.compile(r"\[([0-9, ]+)\]")


def documented_files() -> tuple[Path, ...]:
    """The documented answers the catalog is built with, in name order."""
    return tuple(sorted(DOCUMENTED_DIR.glob("*.json")))


def sources_file(answer: Path) -> Path:
    """The sources file beside a documented answer: `p6e-gb200.json` -> `p6e-gb200.sources.yaml`."""
    return answer.with_name(f"{answer.stem}.sources.yaml")


def field_paths(value: Any, prefix: str = "") -> Iterator[str]:
    """The path of every value in a DescribeInstanceTypes entry; a list of scalars (`InterfaceTypes`) is one value."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from field_paths(item, f"{prefix}.{key}" if prefix else key)
    elif isinstance(value, list) and any(isinstance(item, Mapping) for item in value):
        for index, item in enumerate(value):
            yield from field_paths(item, f"{prefix}[{index}]")
    else:
        yield prefix


def expand(path: str) -> list[str]:
    """The concrete paths a source entry names: `Cards[1,3].X` -> `Cards[1].X`, `Cards[3].X`."""
    match = _ITEMS.search(path)
    if match is None:
        return [path]
    head, tail = path[: match.start()], path[match.end() :]
    return [f"{head}[{index.strip()}]{rest}" for index in match.group(1).split(",") for rest in expand(tail)]


def _covers(absent: str, path: str) -> bool:
    """True when the not-published entry `absent` names `path` or an object above it (`[]` stands for any item)."""
    pattern = re.escape(absent).replace(r"\[\]", r"\[\d+\]")
    return re.fullmatch(rf"{pattern}(?:[.\[].*)?", path) is not None


def coverage_problems(entry: Mapping[str, Any], sources: Mapping[str, Any]) -> list[str]:
    """Everything that keeps `sources` from accounting for `entry`, one sentence each; none when they agree."""
    present = set(field_paths(entry))
    named: dict[str, str] = {}
    problems = []
    known = set(sources.get("sources") or {})
    for key, raw in (sources.get("fields") or {}).items():
        for path in expand(key):
            if path in named:
                problems.append(f"{path} has two source entries ({named[path]!r} and {key!r})")
            named[path] = key
        if not isinstance(raw, Mapping) or raw.get("source") not in known or not str(raw.get("quote") or "").strip():
            problems.append(f"fields.{key} needs a source named under `sources` and a quote")
        elif raw.get("confidence") not in CONFIDENCES:
            problems.append(f"fields.{key} confidence {raw.get('confidence')!r} is not one of {', '.join(CONFIDENCES)}")
    problems += [f"{path} has no source entry" for path in sorted(present - set(named))]
    problems += [f"fields.{named[path]} names {path}, which the answer does not have" for path in sorted(set(named) - present)]
    for absent in sources.get("not_published") or {}:
        problems += [f"not_published.{absent} names {path}, which the answer has" for path in sorted(present) if _covers(absent, path)]
    if sources.get("instance_type") != entry.get("InstanceType"):
        problems.append(f"the sources are for {sources.get('instance_type')!r}, the answer for {entry.get('InstanceType')!r}")
    return problems


def confidence_of(sources: Mapping[str, Any], path: str) -> str | None:
    """The confidence the sources give the value at `path` (None when no entry names it)."""
    for key, raw in (sources.get("fields") or {}).items():
        if path in expand(key):
            return str(raw.get("confidence"))
    return None
