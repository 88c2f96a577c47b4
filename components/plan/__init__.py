"""Pure planning: a validated blueprint in, frozen resource specs out, no Pulumi.

Each module decides one thing and is table-tested on its own:

* `efa` - the launch-template network interfaces of an instance type;
* `placement` - which placement group (if any) a pool gets in a zone, and why;
* `subnets` - how the VPC's address space is carved into subnets;
* `node_groups` - managed node groups per pool and failure domain (`splitting`: under
  EKS's nodes-per-group quota; `addresses`: what each node takes from its subnets);
* `user_data` - the AL2023 nodeadm user data (`lustre_efa`: LNet over EFA);
* `storage` - FSx file systems and S3 buckets;
* `keys`, `kubeconfig`, `cni` - the volume key policy, the kubeconfig, the vpc-cni add-on's configuration;
* `compile` - `plan_blueprint`, which joins them into one `CompilePlan`;
* `quotas`, `scale` - the quota plan and one cluster's limits, which `validate` reports.

The ComponentResources in `components/` only turn these specs into resources.
"""

from components.plan.compile import CompilePlan, PlanError, plan_blueprint

__all__ = ["CompilePlan", "PlanError", "plan_blueprint"]
