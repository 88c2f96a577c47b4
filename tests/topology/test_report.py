"""The report: `validate --json` gains fabrics, power, blast_radius and storage, deterministically.

The examples stay clean; bad inputs are skipped, not crashed on.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from railyard.pipeline import validate
from tests.topology.factory import block, blueprint, check, codes, fabric, pool, zone
from tests.topology.fixtures import ALL_FABRICS, tor_clos

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "blueprints" / "examples").glob("*.yaml"))
FABRIC_KEYS = {"name", "kind", "accelerators", "hosts", "switches", "links", "oversubscription", "bisection_tbps", "max_switch_hops", "graph"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_every_example_validates_with_no_error(path):
    result = validate(str(path))
    assert result.ok, [finding.code for finding in result.findings if finding.is_error]


def test_the_cli_exits_0_on_an_example_and_its_json_carries_the_design_figures():
    completed = subprocess.run(
        [sys.executable, "-m", "railyard", "validate", "blueprints/examples/p5-capacity-block.yaml", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    document = json.loads(completed.stdout)
    assert {"fabrics", "power", "blast_radius", "storage"} <= set(document)
    ultra = document["fabrics"][0]
    assert set(ultra) >= FABRIC_KEYS
    assert ultra["switches"] == {"leaf": 64, "spine": 32, "core": 0} and ultra["max_switch_hops"] == {
        "same_rail": 3,
        "cross_rail": 3,
        "cross_rail_fabric": 3,
        "cross_rail_scale_up": 4,
    }
    assert set(ultra["links"]) == {"host_leaf", "leaf_spine", "spine_core"} and set(ultra["graph"]) >= {"nodes", "edges"}
    assert {"it_kw", "facility_kw", "zones"} <= set(document["power"])


def test_the_same_blueprint_gives_byte_identical_json():
    first = json.dumps(validate(str(ROOT / "blueprints/examples/heterogeneous.yaml")).as_json(), sort_keys=True)
    second = json.dumps(validate(str(ROOT / "blueprints/examples/heterogeneous.yaml")).as_json(), sort_keys=True)
    assert first == second


def test_tables_show_the_same_figures_as_the_json():
    report = check(tor_clos())
    tables = {title: (headers, rows) for title, headers, rows in report.tables()}
    scale_up = "Scale-up domains (NVLink / NeuronLink)"
    assert set(tables) == {"Fabrics", "Pools on fabrics", "Power (kW)", "Blast radius (worst single failure the pool must survive)", scale_up}
    headers, rows = tables["Fabrics"]
    row = dict(zip(headers, rows[0], strict=True))
    assert (row["fabric"], row["leaf"], row["spine"], row["hops same/cross"]) == ("tor", "3", "1", "3/3")
    [domain] = report.figures["scale_up"]
    headers, rows = tables[scale_up]
    row = dict(zip(headers, rows[0], strict=True))
    assert row["pool"] == domain["pool"] and row["accelerators on hosts"] == f"{domain['accelerators_per_domain']} on {domain['hosts_per_domain']}"
    assert row["unknown"] == ", ".join(domain["unknown"])


def test_every_fixture_report_is_json_serializable():
    for make in ALL_FABRICS.values():
        json.dumps(check(make()).as_json(), sort_keys=True)


def test_checks_whose_inputs_failed_are_skipped_not_crashed_on():
    """An unknown instance type, an unknown domain and a fabric whose NIC ports can't split over its planes."""
    model = blueprint(
        [zone("z", [block("b", racks=2, hosts_per_rack=2)])],
        [
            pool("ghost", "p9.48xlarge", 2, ["b"], fabric="split"),
            pool("lost", "g6e.xlarge", 1, ["nowhere"]),
            pool("ok", "g6e.8xlarge", 2, ["b"], fabric="split"),
        ],
        [fabric("split", "rail_optimized_clos", 8, planes=2, ports_per_nic=1)],
    )
    report = check(model)
    assert codes(report) == ["topology.planes"]
    assert report.figures["fabrics"] == []
    assert [entry["pool"] for entry in report.figures["placement"]] == ["ghost", "ok"]
