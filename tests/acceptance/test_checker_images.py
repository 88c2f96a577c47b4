"""The images the gate runs, from their publishers: docs/pins.md states each one's Python and tools as the table has
them, the checker runs only where its Python is stated and new enough, and the shipped checker itself runs on that
Python (and fails, loudly, below its floor)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from blueprints.catalog import load_catalog
from blueprints.catalog.pins import load_pins
from blueprints.loader import load_blueprint
from components.kubernetes.acceptance import daemon_set
from railyard.checker_bundle import checker_bundle, package_sources
from tests.kubernetes.fixtures import EXAMPLES
from tests.kubernetes.test_acceptance_gate import with_acceptance_everywhere
from topology.cluster.acceptance import plan_gates
from topology.cluster.scheduling import node_groups

ROOT = Path(__file__).resolve().parents[2]
IMAGES = yaml.safe_load((ROOT / "blueprints" / "catalog" / "node_images.yaml").read_text(encoding="utf-8"))["images"]
PINS_DOC = (ROOT / "docs" / "pins.md").read_text(encoding="utf-8")
# The checker's floor: `from datetime import UTC` (acceptance/kube.py, replace.py, sigv4.py), new in Python 3.11.
FLOOR = (3, 11)
# Modules PEP 594 removed in Python 3.13: a checker importing one would fail in the 3.13 image.
REMOVED_IN_3_13 = {"aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "mailcap", "msilib", "nis", "nntplib"}
REMOVED_IN_3_13 |= {"ossaudiodev", "pipes", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib", "lib2to3"}
EVIDENCE = ROOT / "acceptance" / "examples" / "h100-80gb-hbm3"


def _version(text: str) -> tuple[int, int]:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


def _doc_rows() -> list[list[str]]:
    section = PINS_DOC[PINS_DOC.index("## What each image carries") :]
    table = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| ---")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in table[1:]]


def _expected_rows() -> list[list[str]]:
    rows = []
    for key, image in IMAGES.items():
        tools = [f"`{tool}`" for tool in image["tools"]] + [f"`{tool}` (the NVIDIA runtime's, from the host)" for tool in image.get("injected", [])]
        rows.append([load_pins().image(key).reference, image["python"] or "none used", ", ".join(tools), "; ".join(image["sources"])])
    return rows


def test_pins_md_states_every_images_python_and_tools_as_the_table_has_them():
    assert _doc_rows() == _expected_rows()
    assert set(IMAGES) == {pin.key for pin in load_pins().images} - {"eks_ami"}


def test_a_python_version_read_from_a_tag_is_the_one_the_tag_names():
    # The Neuron DLC's tag carries it (py312); the Python image's tag is its minor version.
    assert re.search(r"-py(\d)(\d+)-", load_pins().image("neuron_collectives").tag).groups() == ("3", "12")
    assert IMAGES["neuron_collectives"]["python"] == "3.12"
    assert load_pins().image("gate_keeper_python").tag == f"{IMAGES['gate_keeper_python']['python']}-slim"


def test_every_container_that_runs_the_checker_uses_an_image_whose_python_is_stated_and_at_least_3_11():
    catalog, seen = load_catalog(), set()
    for path in sorted(EXAMPLES.glob("*.yaml")):
        blueprint = with_acceptance_everywhere(load_blueprint(str(path)).blueprint)
        gates = plan_gates(blueprint, node_groups(blueprint, catalog))
        bundle = checker_bundle(blueprint, catalog, gates)
        for gate in gates:
            pod = daemon_set(gate, bundle)["template"]["spec"]
            for container in pod.get("initContainers", []) + pod["containers"]:
                key = next(pin.key for pin in load_pins().images if pin.reference == container["image"])
                runs_python = "python3 -m acceptance" in json.dumps(container["command"])
                if runs_python:
                    assert IMAGES[key]["python"] is not None and _version(IMAGES[key]["python"]) >= FLOOR, (path.stem, gate.pool)
                seen.add((key, runs_python))
    assert seen == {("gate_keeper_python", True), ("dcgm", False), ("neuron_monitor", False)}


@pytest.mark.parametrize("key", sorted(key for key, image in IMAGES.items() if image["python"]))
def test_the_shipped_checker_parses_at_each_stated_python_and_imports_nothing_it_removed(key):
    version = _version(IMAGES[key]["python"])
    for name, source in package_sources().items():
        tree = ast.parse(source, filename=name, feature_version=version)
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        assert not imported & REMOVED_IN_3_13, name


def test_the_floor_is_3_11_because_the_checker_imports_datetime_utc():
    sources = package_sources()
    assert [name for name, source in sorted(sources.items()) if "from datetime import UTC" in source] == [
        "acceptance.kube.py",
        "acceptance.replace.py",
        "acceptance.sigv4.py",
    ]


def _interpreter(version: str) -> Path | None:
    """A CPython of this minor version installed by pyenv on this machine, if any."""
    found = sorted(Path("/root/.pyenv/versions").glob(f"{version}.*/bin/python{version}"))
    return found[-1] if found else None


def _run_shipped(python: Path, folder: Path) -> subprocess.CompletedProcess[str]:
    """The ConfigMap's modules alone (as the pod projects them), run with `python -S` on the real H100 capture."""
    for key, source in package_sources().items():
        target = folder / key.replace(".", "/", key.count(".") - 1)
        target.parent.mkdir(exist_ok=True)
        target.write_text(source, encoding="utf-8")
    argv = [str(python), "-S", "-m", "acceptance", "check", "--expect", str(EVIDENCE / "expectation.json"), "--from", str(EVIDENCE), "--json"]
    return subprocess.run(argv, cwd=folder, capture_output=True, text=True, check=False, timeout=120)


def test_the_shipped_checker_judges_the_real_capture_on_the_python_images_python(tmp_path):
    python = _interpreter(IMAGES["gate_keeper_python"]["python"])
    if python is None:
        pytest.skip("no CPython 3.13 under /root/.pyenv on this machine: the parse and import checks above still hold")
    run = _run_shipped(python, tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["passed"] is True


def test_below_its_floor_the_checker_cannot_start_which_is_why_no_image_without_a_stated_python_runs_it(tmp_path):
    python = _interpreter("3.10")
    if python is None:
        pytest.skip("no CPython 3.10 under /root/.pyenv on this machine")
    run = _run_shipped(python, tmp_path)
    assert run.returncode == 1
    assert "ImportError: cannot import name 'UTC' from 'datetime'" in run.stderr
