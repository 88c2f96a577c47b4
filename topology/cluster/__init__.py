"""How a design lands on one EKS cluster: decided once, checked here, emitted by the compiler.

The check stage's second half. The topology checker proves the fabric and
facility; this package decides and proves the cluster that runs on them,
as pure functions of the blueprint and catalog (no Pulumi):

* `labels` - the node labels and taints railyard sets: the contract every layer selects on;
* `interfaces` - the network interfaces (ENA, EFA, EFA-only) of an instance type;
* `node_groups` - managed node groups per pool and failure domain (`splitting`: under
  EKS's nodes-per-group quota; `addresses`: what each node takes from its subnets);
* `subnets` - how the VPC's address space is carved to hold them;
* `placement_groups` - which placement group (if any) a pool gets in a zone, and why;
* `scheduling`, `device_plugins`, `mounts`, `kueue`, `kubernetes` - the Kubernetes layer's
  layout: node groups as Kubernetes sees them, where each plugin runs, Kueue's flavors;
* `plan` - `plan_cluster`, which joins them into one `ClusterPlan`;
* `kubernetes_checks`, `quotas`, `scale` - the findings: the cross-layer check, the quota
  plan and one cluster's limits.

The compiler (`components/`) takes a `ClusterPlan` as decided and emits it.
"""

from topology.cluster.errors import PlanError
from topology.cluster.plan import ClusterPlan, plan_cluster

__all__ = ["ClusterPlan", "PlanError", "plan_cluster"]
