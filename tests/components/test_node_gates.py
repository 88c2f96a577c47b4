"""The gate keeper lifts a gate's taint only on `ready`, puts it back otherwise, and is small, unprivileged and standalone.

`reconcile` is the keeper's whole decision, a pure function of the node as
the API returns it and the gate files it reads; the rest is one GET and one
JSON-patch PATCH a round.
"""

from __future__ import annotations

import ast
import json
import sys

import pytest

from components.kubernetes.gate_keeper import reconcile
from components.kubernetes.node_gates import NAME, cluster_role_rules, keeper_pod_spec, keeper_script
from tests.preview.conftest import preview_of
from topology.cluster.labels import LNET_GATE
from topology.cluster.node_gates import place_gate_keeper

GATES = [{"name": "lnet", "taint_key": "railyard.dev/lnet", "path": "/run/railyard/gates/lnet"}]
GPU = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
LNET = {"key": "railyard.dev/lnet", "value": "pending", "effect": "NoSchedule"}
NOTE = "/metadata/annotations/railyard.dev~1gate.lnet"


def _node(taints: list[dict] | None, note: str | None = None) -> dict:
    node: dict = {"metadata": {"name": "ip-10-0-0-5", "annotations": {"railyard.dev/gate.lnet": note} if note else {"other": "x"}}, "spec": {}}
    if taints is not None:
        node["spec"]["taints"] = taints
    return node


def test_a_ready_gate_lifts_only_its_taint_after_testing_what_it_read():
    patch = reconcile(_node([GPU, LNET]), GATES, lambda path: "ready")
    assert patch == [
        {"op": "test", "path": "/spec/taints", "value": [GPU, LNET]},
        {"op": "replace", "path": "/spec/taints", "value": [GPU]},
        {"op": "add", "path": NOTE, "value": "ready"},
    ]


def test_a_failed_gate_keeps_the_taint_and_says_why_on_the_node():
    why = "failed: LNet has 6 of 8 EFA interfaces up (lnetctl net show --net efa)"
    assert reconcile(_node([GPU, LNET]), GATES, lambda path: why) == [{"op": "add", "path": NOTE, "value": why}]


def test_a_node_without_its_verdict_after_a_reboot_is_held_again():
    """/run is emptied at boot: no file means pending, and a node whose taint was lifted gets it back."""
    assert reconcile(_node([GPU], note="ready"), GATES, lambda path: "") == [
        {"op": "test", "path": "/spec/taints", "value": [GPU]},
        {"op": "replace", "path": "/spec/taints", "value": [GPU, LNET]},
        {"op": "add", "path": NOTE, "value": "pending"},
    ]
    assert reconcile(_node(None, note="ready"), GATES, lambda path: "")[0] == {"op": "add", "path": "/spec/taints", "value": [LNET]}


def test_a_node_that_already_agrees_gets_no_patch():
    assert reconcile(_node([GPU], note="ready"), GATES, lambda path: "ready") == []
    assert reconcile(_node([GPU, LNET], note="pending"), GATES, lambda path: "") == []


def test_the_keeper_imports_nothing_but_the_standard_library():
    tree = ast.parse(keeper_script())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert imported == {"__future__", "collections", "json", "os", "ssl", "sys", "time", "urllib"}
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}


def test_the_keeper_may_read_and_patch_nodes_and_nothing_else():
    assert cluster_role_rules() == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]}]


def test_the_keeper_runs_unprivileged_on_every_gated_node_reading_the_gates_read_only():
    from tests.topology.cluster.test_node_gates import _layout

    spec = keeper_pod_spec(place_gate_keeper(_layout("p5-capacity-block").nodes))
    (container,) = spec["containers"]
    assert container["securityContext"] == {
        "runAsNonRoot": True,
        "runAsUser": 65534,
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }
    assert {"name": "gates", "mountPath": "/run/railyard/gates", "readOnly": True} in container["volumeMounts"]
    assert json.loads(container["env"][1]["value"]) == [{"name": "lnet", "path": LNET_GATE.path, "taint_key": "railyard.dev/lnet"}]
    assert spec["tolerations"] == [{"key": "", "operator": "Exists"}] and spec["serviceAccountName"] == NAME
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": "railyard.dev/pool", "operator": "In", "values": ["train"]}]}]


@pytest.mark.parametrize(("example", "emitted"), [("p5-capacity-block", True), ("heterogeneous", False)])
def test_the_keeper_is_emitted_only_where_a_pool_is_gated(example, emitted):
    kinds = {item.type for item in preview_of(example).resources if item.name.endswith(("-gates-keeper", "-gates-role", "-gates-script"))}
    expected = {"kubernetes:apps/v1:DaemonSet", "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "kubernetes:core/v1:ConfigMap"}
    assert kinds == (expected if emitted else set())


def test_a_gated_karpenter_pool_registers_behind_the_gate_as_a_startup_taint():
    """Karpenter's startupTaints are the ones it expects something else to lift; its `taints` stay the pool's own."""
    import dataclasses

    from blueprints.catalog import load_catalog
    from blueprints.loader import load_blueprint
    from components.kubernetes.karpenter import NodeClassPlan
    from tests.topology.cluster.test_node_gates import EXAMPLES
    from topology.cluster.node_groups import plan_node_groups

    blueprint = load_blueprint(str(EXAMPLES / "p5-capacity-block.yaml")).blueprint
    assert blueprint is not None
    (train,) = [group for group in plan_node_groups(blueprint, load_catalog()) if group.pool == "train"]
    karpenter = dataclasses.replace(train, provisioner="karpenter", capacity_type="ON_DEMAND")  # Karpenter pools are off reserved capacity
    plan = NodeClassPlan("train", karpenter, 192, "al2023@v20260724", {})
    spec = plan.node_pool()["template"]["spec"]
    assert (spec["taints"], spec["startupTaints"]) == ([GPU], [LNET])
