"""docs/acceptance.md's table of expectations per example pool is what `railyard acceptance expect` compiles today."""

from __future__ import annotations

import pytest

from acceptance import Expectation
from blueprints.catalog import load_catalog
from blueprints.loader import load_blueprint
from railyard.expectations import ExpectationNeeds, fabric_line, pool_expectation
from tests.acceptance.evidence import ROOT

DOC = (ROOT / "docs" / "acceptance.md").read_text(encoding="utf-8")
EXAMPLES = sorted((ROOT / "blueprints" / "examples").glob("*.yaml"))
# The largest durations measured on AWS per node (awsome-distributed-training's health-check README): r2, r4 in hours.
STANDARD_HOURS, EXHAUSTIVE_HOURS = 10.5 / 60, 2.25


def _held_to(expectation: Expectation) -> str:
    if expectation.accelerator_kind != "gpu":
        return "—"
    parts = ["ECC on"] if expectation.ecc else []
    parts.append(f"≥{expectation.power_limit_w:g} W")
    if expectation.pcie_generation:
        parts.append(f"PCIe gen{expectation.pcie_generation} x{expectation.pcie_width}")
    if expectation.nvlinks_per_gpu:
        parts.append(f"NVLink {expectation.nvlinks_per_gpu}")
    return ", ".join(parts)


def _row(example, pool, expectation: Expectation, line: str) -> str:
    # `nodes` is a fixed count or a {min, max, desired} range: the table costs the pool at its largest.
    nodes, count = getattr(pool.nodes, "max", pool.nodes), expectation.accelerator_count or 0
    if expectation.accelerator_kind == "gpu":
        accelerators = f"{count}x {expectation.accelerator_model} ≥{expectation.memory_mib_min} MiB"
        hours = f"{nodes * count * STANDARD_HOURS:.1f} / {nodes * count * EXHAUSTIVE_HOURS:.0f}"
    else:
        accelerators, hours = f"{count}x {expectation.accelerator_model}, {expectation.neuron_cores} cores", "— (no DCGM)"
    cells = [f"`{example.stem}`", pool.name, expectation.instance_type, str(nodes), accelerators, _held_to(expectation)]
    return "| " + " | ".join([*cells, str(expectation.efa_devices), line, hours]) + " |"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.stem)
def test_the_docs_table_holds_each_example_pools_compiled_expectation(example):
    blueprint = load_blueprint(example).blueprint
    assert blueprint is not None
    catalog = load_catalog()
    for pool in blueprint.pools:
        try:
            line = f"{fabric_line(blueprint, catalog, pool.name).line_gbs:g}"
        except ExpectationNeeds:
            line = "—"
        row = _row(example, pool, pool_expectation(blueprint, catalog, pool.name), line)
        assert row in DOC
