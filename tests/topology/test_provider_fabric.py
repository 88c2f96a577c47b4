"""A fabric of `kind: aws_efa`: AWS's EFA network, written with nothing invented.

The pools on it get every EFA interface their instance type carries (the
catalog, from DescribeInstanceTypes), exactly as a designed EFA fabric that
wires them all does; validate reports what EC2 publishes per instance type
and names the figures it can't compute without AWS's switch fan-out.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from railyard.mocked import run_preview
from railyard.pipeline import validate
from tests.preview.conftest import ROOT
from tests.yaml_text import edited_copy
from topology.provider_fabric import UNKNOWN

ADT = ROOT / "blueprints" / "examples" / "adt-eks-capacity-block.yaml"
DESIGNED = (
    "  - name: efa\n    kind: aws_efa             # EFA on every network card p5 has; AWS builds and sizes the network\n",
    "  - name: efa\n    kind: rail_optimized_clos\n    link_gbps: 100\n    switch_radix: 64\n    nics_per_accelerator: 4\n    tiers: 2\n",
)


def test_validate_reports_the_published_figures_and_names_the_ones_it_can_not_compute():
    validation = validate(str(ADT))
    assert validation.ok
    [note] = [f for f in validation.findings if f.code == "fabric.provider-managed"]
    assert (note.severity, note.path_text) == ("info", "fabrics[0].kind")
    assert note.certificate["pools"] == [
        {"pool": "p5", "instance_type": "p5.48xlarge", "efa_interfaces": 32, "network_gbps": 3200.0, "network_node_layers": 3}
    ]
    assert note.certificate["unknown"] == list(UNKNOWN)
    figures = validation.design.figures
    assert figures["fabrics"] == [] and [fabric["name"] for fabric in figures["provider_fabrics"]] == ["efa"]
    # A switch's reach is unknown, and so are the racks and feeds of a zone that states none: the blast radius names them
    # as such instead of reporting 0 or checking them, and with nothing left to check it names no worst element.
    [blast] = figures["blast_radius"]
    assert blast["unknown"] == ["switch", "rack", "feed"] and blast["checked"] == [] and blast["worst"] is None
    assert set(blast["by_kind"]) == {"block", "zone"}


def test_the_json_output_carries_the_provider_fabric():
    done = subprocess.run([sys.executable, "-m", "railyard", "validate", str(ADT), "--json"], capture_output=True, text=True, cwd=ROOT)
    document = json.loads(done.stdout)
    [fabric] = document["provider_fabrics"]
    assert fabric["unknown"] == list(UNKNOWN) and fabric["pools"][0]["efa_interfaces"] == 32


def test_nodes_get_the_same_efa_interfaces_as_a_designed_fabric_that_wires_every_card(tmp_path):
    def interfaces(path):
        result = run_preview(str(path), project_dir=ROOT)
        assert result.ok
        [template] = [item for item in result.of_type("aws:ec2/launchTemplate:LaunchTemplate") if item.name.endswith("-p5-az2-template")]
        return template.inputs["networkInterfaces"]

    provided = interfaces(ADT)
    assert provided == interfaces(edited_copy(ADT, tmp_path, DESIGNED))
    assert len(provided) == 33 and sum(item["interfaceType"] == "efa-only" for item in provided) == 32


@pytest.mark.parametrize("key", ["link_gbps: 100", "switch_radix: 64", "nics_per_accelerator: 4"])
def test_a_design_number_on_aws_efa_is_refused_as_unknown(tmp_path, key):
    path = edited_copy(ADT, tmp_path, (DESIGNED[0], DESIGNED[0] + f"    {key}\n"))
    validation = validate(str(path))
    assert not validation.ok
    assert [f.code for f in validation.findings if f.is_error] == ["schema.unknown-key"]
