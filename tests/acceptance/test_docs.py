"""docs/acceptance.md's tables per example pool are what `railyard acceptance expect` compiles and `validate` prices today."""

from __future__ import annotations

import pytest

from acceptance import Expectation
from blueprints.catalog import load_catalog
from blueprints.catalog.prices import load_prices
from blueprints.loader import load_blueprint
from blueprints.models.acceptance import Acceptance
from railyard.expectations import ExpectationNeeds, fabric_line, pool_expectation
from tests.acceptance.evidence import ROOT
from topology.acceptance_cost import acceptance_costs
from topology.cluster.acceptance import plan_gates
from topology.cluster.scheduling import node_groups

DOC = (ROOT / "docs" / "acceptance.md").read_text(encoding="utf-8")
EXAMPLES = sorted((ROOT / "blueprints" / "examples").glob("*.yaml"))
# Minutes per node on an NVIDIA pool, by the published figures: r2's longest measured on AWS (10.5) and r4's (135), plus
# one for the reads (awsome-distributed-training's health-check README; NVIDIA's dcgmi-diag reference).
STANDARD_MINUTES, EXHAUSTIVE_MINUTES = 11.5, 136.0


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
    # `nodes` is a fixed count or a {min, max, desired} range: the table shows the pool at its largest.
    nodes, count = getattr(pool.nodes, "max", pool.nodes), expectation.accelerator_count or 0
    if expectation.accelerator_kind == "gpu":
        accelerators = f"{count}x {expectation.accelerator_model} ≥{expectation.memory_mib_min} MiB"
    else:
        accelerators = f"{count}x {expectation.accelerator_model}, {expectation.neuron_cores} cores"
    cells = [f"`{example.stem}`", pool.name, expectation.instance_type, str(nodes), accelerators, _held_to(expectation)]
    return "| " + " | ".join([*cells, str(expectation.efa_devices), line]) + " |"


def _gated(blueprint, level: str):
    return blueprint.model_copy(update={"pools": [pool.model_copy(update={"acceptance": Acceptance(level=level)}) for pool in blueprint.pools]})


def _cost_rows(example) -> list[str]:
    """The docs' cost rows of an example, every pool gated, from `plan_gates` and `acceptance_costs` (what validate prints)."""
    blueprint, catalog, prices = load_blueprint(example).blueprint, load_catalog(), load_prices()
    by_level = []
    for level in ("standard", "exhaustive"):
        gated = _gated(blueprint, level)
        gates = plan_gates(gated, node_groups(gated, catalog))
        by_level.append(list(zip(gates, acceptance_costs(gated, gates, prices), strict=True)))
    rows = []
    for (gate, cost), (deep, deep_cost) in zip(*by_level, strict=True):
        usd = "—" if cost.usd is None else f"{cost.usd:,.0f}"
        cells = [f"`{example.stem}`", gate.pool, blueprint.pools[gate.pool_index].instance_type, str(gate.max_nodes)]
        cells += [f"{gate.minutes:g} / {deep.minutes:g}", f"{cost.accelerator_hours:,.1f} / {deep_cost.accelerator_hours:,.1f}", usd]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.stem)
def test_the_docs_cost_table_holds_each_example_pools_priced_acceptance(example):
    rows = _cost_rows(example)
    assert rows and all(row in DOC for row in rows), [row for row in rows if row not in DOC]


def test_an_nvidia_pool_spends_the_published_minutes_and_a_neuron_pool_only_the_reads():
    p5 = next(path for path in EXAMPLES if path.stem == "p5-capacity-block")
    assert f"| 64 | {STANDARD_MINUTES:g} / {EXHAUSTIVE_MINUTES:g} | 98.1 / 1,160.5 |" in _cost_rows(p5)[0]
    trn2 = next(path for path in EXAMPLES if path.stem == "trn2-ultraserver")
    assert "| 1 / 1 |" in _cost_rows(trn2)[0]


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
