"""`NodeGates`: the railyard-node-gates DaemonSet that lifts a gate's taint once the node says the gate is ready.

The layout (`topology.cluster.node_gates.GateLayout`) says which pools are
gated and where the keeper runs; this module renders it: the keeper's
script (`components.kubernetes.gate_keeper`, standard library only) in a
ConfigMap, run by a pinned Python image; a ServiceAccount whose ClusterRole
allows `get` and `patch` on nodes and nothing else (RBAC can't narrow a
DaemonSet's rights to its own node); and the DaemonSet, which reads the
gates' files from the node's `/run/railyard/gates` read-only, as an
unprivileged user with a read-only root file system. Its pods tolerate every
taint, like EKS's aws-node, since they must run on nodes the gates hold.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from blueprints.catalog.pins import load_pins
from topology.cluster.labels import GATE_DIRECTORY
from topology.cluster.node_gates import GateLayout

NAME = "railyard-node-gates"
NAMESPACE = "kube-system"
SCRIPT = "keeper.py"  # the ConfigMap key and the file the pod runs
SOURCE = "gate_keeper.py"  # the module it is read from
SCRIPT_DIRECTORY = "/opt/railyard"
LABELS = {"app.kubernetes.io/name": NAME}
NOBODY = 65534


def keeper_script() -> str:
    """The keeper's source, as the ConfigMap carries it (the module file itself, shipped in the wheel)."""
    return (Path(__file__).parent / SOURCE).read_text(encoding="utf-8")


def cluster_role_rules() -> list[dict[str, Any]]:
    """Read a node and patch its taints and annotations: all the keeper does."""
    return [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]}]


def keeper_pod_spec(layout: GateLayout) -> dict[str, Any]:
    """The DaemonSet's pod template spec: the pinned Python running the keeper on every gated node."""
    assert layout.placement is not None, "a gate layout without gated pools emits no keeper"
    gates = [{"name": gate.name, "taint_key": gate.taint_key, "path": gate.path} for gate in layout.gates]
    spec: dict[str, Any] = {
        "serviceAccountName": NAME,
        "priorityClassName": "system-node-critical",
        "containers": [
            {
                "name": "keeper",
                "image": load_pins().image("gate_keeper_python").reference,
                "command": ["python3", f"{SCRIPT_DIRECTORY}/{SCRIPT}"],
                "env": [
                    {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
                    {"name": "RAILYARD_GATES", "value": json.dumps(gates, sort_keys=True)},
                ],
                "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"cpu": "100m", "memory": "64Mi"}},
                "securityContext": {
                    "runAsNonRoot": True,
                    "runAsUser": NOBODY,
                    "allowPrivilegeEscalation": False,
                    "readOnlyRootFilesystem": True,
                    "capabilities": {"drop": ["ALL"]},
                },
                "volumeMounts": [
                    {"name": "gates", "mountPath": GATE_DIRECTORY, "readOnly": True},
                    {"name": "script", "mountPath": SCRIPT_DIRECTORY, "readOnly": True},
                ],
            }
        ],
        "volumes": [
            {"name": "gates", "hostPath": {"path": GATE_DIRECTORY, "type": "DirectoryOrCreate"}},
            {"name": "script", "configMap": {"name": NAME}},
        ],
        "tolerations": layout.placement.tolerations_k8s(),
    }
    affinity = layout.placement.affinity()
    if affinity is not None:
        spec["affinity"] = affinity
    return spec


class NodeGates(pulumi.ComponentResource):
    """The gate keeper of one cluster (`railyard:kubernetes:NodeGates`): its RBAC, its script and its DaemonSet."""

    def __init__(self, name: str, layout: GateLayout, provider: pulumi.ProviderResource, opts: pulumi.ResourceOptions | None = None):
        super().__init__("railyard:kubernetes:NodeGates", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, provider=provider)
        metadata = k8s.meta.v1.ObjectMetaArgs(name=NAME, namespace=NAMESPACE, labels=LABELS)
        account = k8s.core.v1.ServiceAccount(f"{name}-account", metadata=metadata, opts=child)
        role = k8s.rbac.v1.ClusterRole(
            f"{name}-role", metadata=k8s.meta.v1.ObjectMetaArgs(name=NAME, labels=LABELS), rules=cluster_role_rules(), opts=child
        )
        binding = k8s.rbac.v1.ClusterRoleBinding(
            f"{name}-binding",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=NAME, labels=LABELS),
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": NAME},
            subjects=[{"kind": "ServiceAccount", "name": NAME, "namespace": NAMESPACE}],
            opts=child,
        )
        script = k8s.core.v1.ConfigMap(f"{name}-script", metadata=metadata, data={SCRIPT: keeper_script()}, opts=child)
        self.daemon_set = k8s.apps.v1.DaemonSet(
            f"{name}-keeper",
            metadata=metadata,
            spec={"selector": {"matchLabels": LABELS}, "template": {"metadata": {"labels": LABELS}, "spec": keeper_pod_spec(layout)}},
            opts=pulumi.ResourceOptions(parent=self, provider=provider, depends_on=[account, role, binding, script]),
        )
        self.register_outputs({"gatedPools": list(layout.pools)})
