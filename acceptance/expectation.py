"""The expectation: what one node of a pool must be, as plain JSON data.

railyard compiles it from the blueprint and the catalog (`railyard acceptance expect`); the
checker only reads it, so a reviewer can read exactly what a node is held to. A field set to
null (or left out) is not checked, and the report says so; an unknown field is an error, so a
typo never silently turns a check off.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

# The level names AWS PCS gives its deep health checks (QUICK, MEDIUM, LONG) plus DCGM's r4, and the
# DCGM diagnostic each runs (`dcgmi diag -r N`). `inventory` runs no diagnostic: the reads only.
LEVELS: dict[str, int | None] = {"inventory": None, "quick": 1, "standard": 2, "long": 3, "exhaustive": 4}


class ExpectationError(ValueError):
    """The expectation document can't be used: the message names the field, the bad value and what is allowed."""


@dataclass(frozen=True)
class Expectation:
    """What one node must show. Counts are per node; `memory_mib_min` and `power_limit_w` per accelerator."""

    pool: str
    instance_type: str
    level: str = "standard"
    accelerator_kind: str | None = None  # "gpu" (NVIDIA) or "neuron" (Trainium/Inferentia); None: no accelerator
    accelerator_count: int | None = None
    accelerator_model: str | None = None  # a word the product name holds, e.g. "H100" in "NVIDIA H100 80GB HBM3"
    accelerator_product: str | None = None  # the whole product name nvidia-smi prints, where the catalog knows it
    memory_mib_min: int | None = None
    ecc: bool | None = None
    power_limit_w: float | None = None
    pcie_generation: int | None = None
    pcie_width: int | None = None
    nvlinks_per_gpu: int | None = None
    nvlink_fabric: bool | None = None  # the GPUs join a multi-node NVLink domain (GB200): each must show its fabric joined
    c2c: bool | None = None  # Grace-Blackwell: each GPU's NVLink-C2C link to its CPU must be up
    efa_devices: int | None = None
    neuron_cores: int | None = None
    burn_in_seconds: int | None = None  # the pool's burn_in_minutes, in seconds: DCGM's stress plugins run that long
    memory_bandwidth_floor_mbs: int | None = None  # DCGM memory_bandwidth's minimum_bandwidth, MB/s per GPU, in the burn-in
    sources: dict[str, str] | None = None  # where each figure came from; carried into the report, never checked

    @property
    def dcgm_level(self) -> int | None:
        """The `dcgmi diag -r` level the expectation's level runs (None: no diagnostic)."""
        return LEVELS[self.level]

    @classmethod
    def from_dict(cls, document: Any) -> Expectation:
        """An expectation from its JSON object; `ExpectationError` for an unknown field, a wrong type or an unknown level."""
        if not isinstance(document, dict):
            raise ExpectationError(f"an expectation is a JSON object, not {type(document).__name__}")
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(document) - set(known))
        if unknown:
            raise ExpectationError(f"unknown field(s) {unknown}; allowed: {sorted(known)}")
        for name in ("pool", "instance_type"):
            if not isinstance(document.get(name), str):
                raise ExpectationError(f"{name!r} is required and must be a string, got {document.get(name)!r}")
        for name, value in document.items():
            _check_type(name, value, str(known[name].type))
        level = document.get("level", "standard")
        if level not in LEVELS:
            raise ExpectationError(f"level {level!r} is not one of {list(LEVELS)}")
        if document.get("accelerator_kind") not in (None, "gpu", "neuron"):
            raise ExpectationError(f"accelerator_kind {document['accelerator_kind']!r} is not one of 'gpu', 'neuron' or null")
        return cls(**document)

    @classmethod
    def from_json(cls, text: str) -> Expectation:
        """An expectation from JSON text; `ExpectationError` when it isn't JSON or isn't a valid expectation."""
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ExpectationError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        return cls.from_dict(document)

    def as_dict(self) -> dict[str, Any]:
        """The expectation as its JSON object (every field, nulls included, so nothing is implied)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _check_type(name: str, value: Any, annotation: str) -> None:
    """Raise `ExpectationError` when `value` does not fit the field's declared type (null always fits an optional)."""
    if value is None:
        if "None" in annotation:
            return
        raise ExpectationError(f"{name!r} can't be null")
    wanted: tuple[type, ...]
    if annotation.startswith("bool"):
        wanted = (bool,)
    elif annotation.startswith("int"):
        wanted = (int,)
    elif annotation.startswith("float"):
        wanted = (int, float)
    elif annotation.startswith("dict"):
        wanted = (dict,)
    else:
        wanted = (str,)
    # bool is an int in Python; a count given as `true` is still a mistake.
    if not isinstance(value, wanted) or (isinstance(value, bool) and bool not in wanted):
        raise ExpectationError(f"{name!r} must be {' or '.join(t.__name__ for t in wanted)}, got {value!r}")
