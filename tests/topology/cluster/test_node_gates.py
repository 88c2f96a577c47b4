"""Nodes that mount Lustre over EFA register behind the LNet gate: held from jobs, open to what must run first.

The probe is the deploy audit's (deploy-realism-v3 finding 7): p5-capacity-block,
whose `train` pool mounts the EFA-enabled `lustre` tier. Its nodes used to be
kept out by a kubelet held down until LNet came up; now they register with
`railyard.dev/lnet=pending:NoSchedule`, which Kueue's flavor never tolerates
and every railyard DaemonSet that must run before it does.
"""

from __future__ import annotations

from pathlib import Path

from blueprints.catalog import load_catalog
from blueprints.loader import load_blueprint
from railyard.pipeline import validate
from tests.yaml_text import edited_copy
from topology.cluster.kubernetes import lay_out_kubernetes
from topology.cluster.labels import LNET_GATE, NodeTaint
from topology.cluster.node_gates import EVERY_TAINT
from topology.cluster.node_groups import plan_node_groups

EXAMPLES = Path(__file__).resolve().parents[3] / "blueprints" / "examples"
LNET = NodeTaint("railyard.dev/lnet", "pending", "NoSchedule")


def _layout(name: str):
    blueprint = load_blueprint(str(EXAMPLES / f"{name}.yaml")).blueprint
    assert blueprint is not None
    return lay_out_kubernetes(blueprint, load_catalog())


def test_nodes_mounting_lustre_over_efa_register_behind_the_lnet_gate_and_others_do_not():
    blueprint = load_blueprint(str(EXAMPLES / "p5-capacity-block.yaml")).blueprint
    assert blueprint is not None
    groups = {group.pool: group for group in plan_node_groups(blueprint, load_catalog())}
    assert groups["train"].taints == (NodeTaint("nvidia.com/gpu", "true", "NoSchedule"), LNET)
    assert groups["train"].gates == (LNET_GATE,) and LNET_GATE.path == "/run/railyard/gates/lnet"
    assert LNET not in groups["system"].taints
    # heterogeneous's Lustre tier is not EFA-enabled: no LNet setup, so no gate and no keeper.
    assert _layout("heterogeneous").gates.placement is None


def test_kueue_flavors_leave_the_gate_out_so_no_job_lands_on_a_held_node():
    layout = _layout("p5-capacity-block")
    assert layout.kueue is not None
    (flavor,) = layout.kueue.flavors
    assert [toleration.describe() for toleration in flavor.tolerations] == ["nvidia.com/gpu=true:NoSchedule"]


def test_what_must_run_before_the_gate_opens_tolerates_it_and_the_keeper_tolerates_everything():
    layout = _layout("p5-capacity-block")
    (train,) = [view for view in layout.nodes if view.pool == "train"]
    first = {plugin.kind: plugin.placement for plugin in layout.plugins}
    first["fsx-csi-node"] = layout.mounts.placement
    first |= {exporter.exporter: exporter.placement for exporter in layout.exporters}
    assert set(first) == {"nvidia_device_plugin", "efa_device_plugin", "fsx-csi-node", "dcgm_exporter"}
    assert {kind: placement is not None and placement.lands_on(train) for kind, placement in first.items()} == dict.fromkeys(first, True)
    gates = layout.gates
    assert (gates.pools, gates.gates, gates.placement.tolerations if gates.placement else None) == (("train",), (LNET_GATE,), (EVERY_TAINT,))
    assert gates.placement is not None and gates.placement.lands_on(train)


def test_a_device_plugin_whose_tolerations_miss_the_gate_is_refused_naming_the_taint(tmp_path):
    only_gpu = "    - kind: nvidia_device_plugin\n      tolerations:\n        - {key: nvidia.com/gpu, operator: Exists}\n"
    path = edited_copy(EXAMPLES / "p5-capacity-block.yaml", tmp_path, ("    - kind: nvidia_device_plugin\n", only_gpu))
    found = [finding for finding in validate(str(path)).findings if finding.code in ("k8s.gate-untolerated", "k8s.untolerated-taint")]
    assert [(finding.code, finding.severity, finding.path_text, finding.certificate["taint"]) for finding in found] == [
        ("k8s.gate-untolerated", "error", "kubernetes.device_plugins[0].tolerations", "railyard.dev/lnet=pending:NoSchedule")
    ]
    assert "nvidia_device_plugin doesn't tolerate the gate taint railyard.dev/lnet=pending:NoSchedule" in found[0].message
    assert "{key: railyard.dev/lnet, operator: Exists, effect: NoSchedule}" in found[0].hint
