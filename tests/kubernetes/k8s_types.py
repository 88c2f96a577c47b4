"""Hold a Kubernetes object written as a plain dict to the pinned pulumi-kubernetes input types.

Each `*ArgsDict` TypedDict of pulumi-kubernetes is generated from the Kubernetes OpenAPI schema of its
version: its keys are the object's fields (snake_case, mapped from the API's camelCase by the package's
own `_tables`), its required keys the schema's. `conforms` walks the dict and names the first field the
type doesn't have, or a required field the dict lacks.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from pulumi_kubernetes import _tables

NESTED = re.compile(r"ForwardRef\('(?:_(\w+)\.(\w+)\.)?(\w+ArgsDict)'\)")


def _type(group: str, version: str, name: str) -> Any:
    return getattr(importlib.import_module(f"pulumi_kubernetes.{group}.{version}._inputs"), name)


def conforms(value: Any, group: str, version: str, name: str, path: str = "") -> list[str]:
    """What in `value` the type `pulumi_kubernetes.<group>.<version>.<name>` does not allow (empty: it conforms)."""
    cls = _type(group, version, name)
    if not isinstance(value, dict):
        return [f"{path or name}: {type(value).__name__}, not an object"]
    problems = []
    # pulumi-kubernetes' table lacks some newer fields (a pod's `resourceClaims`): those are converted as the SDK names them.
    keys = {_tables.CAMEL_TO_SNAKE_CASE_TABLE.get(key) or re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower(): key for key in value}
    problems += [f"{path}.{camel}: no such field in {name}" for snake, camel in keys.items() if snake not in cls.__annotations__]
    problems += [f"{path}: {name} requires {key}" for key in sorted(cls.__required_keys__ - set(keys))]
    for snake, camel in keys.items():
        match = NESTED.search(str(cls.__annotations__.get(snake, "")))
        if match is None:
            continue
        where = (match.group(1), match.group(2)) if match.group(1) else (group, version)
        items = value[camel] if isinstance(value[camel], list) else [value[camel]]
        for index, item in enumerate(items):
            problems += conforms(item, *where, match.group(3), f"{path}.{camel}" + (f"[{index}]" if isinstance(value[camel], list) else ""))
    return problems
