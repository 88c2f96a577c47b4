"""Pure compile planning: a validated blueprint and its cluster plan in, frozen resource specs out, no Pulumi.

The cluster's shape - node groups, subnets, placement groups, the Kubernetes
layout - is decided by the check stage (`topology.cluster`); these modules
add what the resources need beyond it, each table-tested on its own:

* `user_data` - the AL2023 nodeadm user data (`lustre_efa`: LNet over EFA);
* `storage` - FSx file systems and S3 buckets;
* `keys`, `kubeconfig`, `cni` - the volume key policy, the kubeconfig, the vpc-cni add-on's configuration;
* `compile` - `plan_blueprint`, which joins them with the cluster plan into one `CompilePlan`.

The ComponentResources in `components/` only turn these specs into resources.
The package imports nothing itself: the Kubernetes layer uses `tags`,
`storage` and `user_data`, and `compile` uses the Kubernetes layer's plan.
"""
