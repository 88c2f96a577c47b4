"""Scheduler exports say what the design graph says: every host once, under the leaf position the graph puts it at,
pods and roots as the fabric's tiers have them, blocks as the scale-up domains (or leaf positions) in fabric order.

Each test parses the export back (Slurm hostlists expanded here, independently of the exporter) and compares it with
the merged fabric graph's endpoint groups, not with the exporter's own data.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml

from blueprints.catalog import load_catalog
from railyard.pipeline import validate
from tests.preview.conftest import ROOT
from topology import build_design
from topology.design import Design
from topology.exports import block_sizes, hostlist, slurm_block, slurm_tree, topograph_model

EXAMPLES = ROOT / "blueprints" / "examples"
DESIGNED = ("dgx-h100-superpod", "alibaba-hpn-pod", "p5-capacity-block", "heterogeneous", "rail-131k")


def _design(name: str) -> Design:
    validation = validate(str(EXAMPLES / f"{name}.yaml"))
    assert validation.ok and validation.load.blueprint is not None
    return build_design(validation.load.blueprint, load_catalog())


def expand(hosts: str) -> list[str]:
    """Slurm hostlist expansion, written from the man page's grammar: `a-[000-002,007],b-3` -> a-000 a-001 a-002 a-007 b-3."""
    names: list[str] = []
    for prefix, ranges, single in re.findall(r"([^,\[]+?)\[([^\]]+)\]|([^,\[\]]+)", hosts):
        if single:
            names.append(single)
            continue
        for part in ranges.split(","):
            first, _, last = part.partition("-")
            width = len(first)
            names += [f"{prefix}{index:0{width}d}" for index in range(int(first), int(last or first) + 1)]
    return names


def _graph_hosts(design: Design) -> dict[tuple[str, int], dict[str, int]]:
    """(fabric, position) -> {pool: hosts} from the merged graphs' endpoint groups (part 0: one per host)."""
    found: dict[tuple[str, int], dict[str, int]] = {}
    for fabric in design.fabrics:
        for _, data in fabric.graph.nodes(data=True):
            if data["kind"] == "endpoint" and data["part"] == 0:
                found.setdefault((fabric.plan.name, data["position"]), {})[data["pool"]] = data["count"]
    return found


def _parse_tree(text: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    switches: dict[str, list[str]] = {}
    leaves: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        fields = dict(item.split("=", 1) for item in line.split())
        assert ("Switches" in fields) != ("Nodes" in fields), line  # slurmctld: "has both child switches and nodes"
        if "Switches" in fields:
            switches[fields["SwitchName"]] = fields["Switches"].split(",")
        else:
            leaves[fields["SwitchName"]] = expand(fields["Nodes"])
    return switches, leaves


@pytest.mark.parametrize("name", DESIGNED)
def test_the_tree_puts_every_host_once_under_the_leaf_position_the_graph_has(name):
    design = _design(name)
    switches, leaves = _parse_tree(slurm_tree(design))
    every = [host for hosts in leaves.values() for host in hosts]
    assert len(every) == len(set(every))  # no host under two leaves (slurmctld warns "Multiple leaf switches contain nodes")
    expected = _graph_hosts(design)
    assert len(leaves) == len(expected)
    for (fabric, position), pools in expected.items():
        hosts = leaves[f"{fabric}-leaf-{position:05d}"]
        counted: dict[str, int] = {}
        for host in hosts:
            pool = host.rpartition("-")[0]
            counted[pool] = counted.get(pool, 0) + 1
        assert counted == pools
    # A tree: every switch but one root per fabric has exactly one parent, and every leaf has one.
    parents: dict[str, list[str]] = {}
    for switch, children in switches.items():
        for child in children:
            parents.setdefault(child, []).append(switch)
    assert all(len(found) == 1 for found in parents.values())
    assert set(leaves) <= set(parents) or not switches


def test_the_superpod_tree_has_a_leaf_per_scalable_unit_under_one_spine():
    switches, leaves = _parse_tree(slurm_tree(_design("dgx-h100-superpod")))
    assert switches == {"compute-spine": [f"compute-leaf-{index:05d}" for index in range(4)]}
    assert [len(hosts) for hosts in leaves.values()] == [32, 32, 32, 31]


def test_the_hpn_tree_has_its_segments_under_one_pod():
    design = _design("alibaba-hpn-pod")
    switches, leaves = _parse_tree(slurm_tree(design))
    assert switches["backend-core"] == ["backend-pod-0000"] and len(switches["backend-pod-0000"]) == 15
    assert {len(hosts) for hosts in leaves.values()} == {136}  # 128 active and 8 backup hosts a segment


def test_blocks_are_the_ultraservers_in_order_with_power_of_two_sizes():
    text = slurm_block(_design("trn2-ultraserver"))
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert lines == ["BlockName=ultra-domain-0 Nodes=ultra-[0-3]", "BlockName=ultra-domain-1 Nodes=ultra-[4-7]", "BlockSizes=4,8"]


def test_without_multi_host_domains_the_blocks_are_the_leaf_positions():
    design = _design("dgx-h100-superpod")
    lines = [line for line in slurm_block(design).splitlines() if not line.startswith("#")]
    blocks = {fields["BlockName"]: expand(fields["Nodes"]) for fields in (dict(item.split("=", 1) for item in line.split()) for line in lines[:-1])}
    _, leaves = _parse_tree(slurm_tree(design))
    assert blocks == leaves
    assert lines[-1] == "BlockSizes=31,62,124"


def test_block_sizes_start_at_the_smallest_block_and_double_while_blocks_last():
    assert block_sizes([18, 18, 18, 18, 18]) == [18, 36, 72]
    assert block_sizes([4]) == [4]


@pytest.mark.parametrize("name", ("alibaba-hpn-pod", "trn2-ultraserver", "heterogeneous"))
def test_the_topograph_model_has_every_host_on_one_leaf_and_a_tree_of_switches(name):
    design = _design(name)
    model = yaml.safe_load(topograph_model(design))
    assert set(model) == {"switches", "blocks"}
    children = [child for switch in model["switches"].values() for child in switch["switches"]]
    assert len(children) == len(set(children))  # topograph: "switch has two parent switches"
    hosts = [host for block in model["blocks"] for entry in block["nodes"] for host in expand(entry)]
    assert len(hosts) == len(set(hosts))  # topograph: "node belongs to more than one capacity block"
    for block in model["blocks"]:
        if "switch" in block:
            assert block["switch"] in children or block["switch"] in model["switches"]
    tree_hosts = [host for hosts in _parse_tree(slurm_tree(design))[1].values() for host in hosts]
    assert set(tree_hosts) <= set(hosts)


def test_hostlist_compacts_runs_and_keeps_widths():
    names = ["a-000", "a-001", "a-002", "a-007", "b-3"]
    assert hostlist(names) == "a-[000-002,007],b-3"
    assert expand(hostlist(names)) == names


def test_export_refuses_a_blueprint_with_errors(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text((EXAMPLES / "dgx-h100-superpod.yaml").read_text().replace("nodes: 127", "nodes: 0"))
    done = subprocess.run(
        [sys.executable, "-m", "railyard", "export", str(broken), "--format", "slurm-tree"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 1 and done.stdout == "" and "nothing exported" in done.stderr


def test_export_writes_the_file_and_names_the_pools_it_leaves_out(tmp_path):
    out = tmp_path / "topology.conf"
    done = subprocess.run(
        [sys.executable, "-m", "railyard", "export", str(EXAMPLES / "ai-on-eks.yaml"), "--format", "slurm-tree", "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0 and out.read_text().startswith("# railyard: Slurm tree topology")
    assert "are left out" in done.stderr and "'train'" in done.stderr


def test_the_same_blueprint_exports_the_same_bytes():
    assert slurm_tree(_design("heterogeneous")) == slurm_tree(_design("heterogeneous"))
    assert topograph_model(_design("alibaba-hpn-pod")) == topograph_model(_design("alibaba-hpn-pod"))
