"""The Kubernetes layer: device plugins, FSx storage and Kueue, planned from the blueprint.

Public API:
- `KubernetesLayer(name, KubernetesLayerArgs(...))`: the ComponentResource the Pulumi program makes;
- `plan_kubernetes(blueprint, catalog)`: the pure plan it emits (node groups, plugins, storage, Kueue);
- `check_kubernetes(blueprint, catalog)`: the cross-layer findings, computed from that same plan.
See docs/kubernetes.md for what is generated and why.
"""

from components.kubernetes.checks import CODES, RULES, check_kubernetes
from components.kubernetes.layer import KubernetesLayer, KubernetesLayerArgs
from components.kubernetes.plan import KubernetesPlan, plan_kubernetes

__all__ = ["CODES", "RULES", "KubernetesLayer", "KubernetesLayerArgs", "KubernetesPlan", "check_kubernetes", "plan_kubernetes"]
