"""Pure planning: a validated blueprint in, frozen resource specs out, no Pulumi.

Each module decides one thing and is table-tested on its own:

* `efa` - the launch-template network interfaces of an instance type;
* `placement` - which placement group (if any) a pool gets in a zone, and why;
* `subnets` - how the VPC's address space is carved into subnets;
* `node_groups` - one managed node group per pool and failure domain;
* `user_data` - the AL2023 nodeadm user data;
* `storage` - FSx file systems and S3 buckets;
* `compile` - `plan_blueprint`, which joins them into one `CompilePlan`.

The ComponentResources in `components/` only turn these specs into resources.
"""

from components.plan.compile import CompilePlan, PlanError, plan_blueprint

__all__ = ["CompilePlan", "PlanError", "plan_blueprint"]
