"""The Kubernetes layer: device plugins, FSx storage and Kueue, emitted from the check stage's layout.

Public API:
- `KubernetesLayer(name, KubernetesLayerArgs(...))`: the ComponentResource the Pulumi program makes;
- `plan_kubernetes(blueprint, catalog)`: the pure plan it emits: the layout that
  `topology.cluster.kubernetes_checks` proved, plus each chart's release.
See docs/kubernetes.md for what is generated and why.
"""

from components.kubernetes.layer import KubernetesLayer, KubernetesLayerArgs
from components.kubernetes.plan import KubernetesPlan, plan_kubernetes

__all__ = ["KubernetesLayer", "KubernetesLayerArgs", "KubernetesPlan", "plan_kubernetes"]
