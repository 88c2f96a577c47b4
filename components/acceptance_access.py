"""The acceptance checker's AWS side, made only where a pool has `acceptance.on_failure: replace`.

A failed node of such a pool has its instance marked Unhealthy by its checker (acceptance/replace.py), so
the node group's Auto Scaling group replaces it. The checker gets exactly that right:

* a role only EKS Pod Identity may assume: `pods.eks.amazonaws.com` with `sts:AssumeRole` and
  `sts:TagSession` (EKS user guide, "Create IAM role with trust policy required by EKS Pod Identity",
  https://docs.aws.amazon.com/eks/latest/userguide/pod-id-role.html);
* one policy, one statement: `autoscaling:SetInstanceHealth`, nothing else. The Service Authorization
  Reference gives the action the resource type `autoScalingGroup` (required) and the condition keys
  `autoscaling:ResourceTag/${TagKey}` and `aws:ResourceTag/${TagKey}`, the group's ARN being
  `arn:${Partition}:autoscaling:${Region}:${Account}:autoScalingGroup:${GroupId}:autoScalingGroupName/${GroupFriendlyName}`
  (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2autoscaling.html, as
  iann0036/iam-dataset aws/iam_definition.json @ 08eff2d7 records it). So the statement names this
  region and account, groups named `eks-*` (EKS's own service-linked policy, AWSServiceRoleForAmazonEKSNodegroup
  v11, acts on `autoScalingGroupName/eks-*`), and holds them to the tags EKS creates its groups with
  (the same policy's `AllowASGCreationByEKS`: `eks:cluster-name`, `eks:nodegroup-name`): this
  cluster's name, and the managed node groups of the pools that replace. A group of another pool,
  another cluster or no EKS at all is out of reach;
* an EKS Pod Identity association binding the role to the checker's service account
  (`kube-system/railyard-acceptance`, components/kubernetes/acceptance.py), which the Pod Identity
  agent serves on every node (an EKS add-on railyard installs unless turned off, which `validate`
  refuses beside a replace pool: `acceptance.replace-without-pod-identity`).

It lives in the cluster's stack, as Karpenter's role does: the association needs only the cluster's
name, and a layer stack's identity need hold no IAM rights. The pod must be created after the
association for EKS's webhook to give it credentials, so a layer in the same stack waits for this.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_aws as aws

from blueprints.records import record
from components.common import child_of, named_tags, pod_identity_trust
from components.kubernetes.acceptance import NAME, NAMESPACE
from topology.cluster.acceptance import AcceptanceGate
from topology.cluster.node_groups import NodeGroupPlan

ACTION = "autoscaling:SetInstanceHealth"
# The names EKS gives a managed node group's Auto Scaling group (AWSServiceRoleForAmazonEKSNodegroup's resource).
EKS_GROUPS = "eks-*"


@record
class AcceptanceAccessPlan:
    """What the replace pools' checker may touch: the cluster's groups that hold those pools' nodes, in one region."""

    cluster_name: str
    region: str
    partition: str
    node_groups: tuple[str, ...]
    tags: Mapping[str, str]


def plan_acceptance_access(
    cluster_name: str,
    region: str,
    partition: str,
    gates: Sequence[AcceptanceGate],
    node_groups: Sequence[NodeGroupPlan],
    tags: Mapping[str, str],
) -> AcceptanceAccessPlan | None:
    """The access of the checkers of pools with `on_failure: replace`; None (nothing is made) when no pool replaces."""
    pools = {gate.pool for gate in gates if gate.replaces}
    groups = tuple(sorted(group.name for group in node_groups if group.pool in pools and group.managed))
    if not groups:
        return None
    return AcceptanceAccessPlan(cluster_name, region, partition, groups, tags)


def replacement_policy(plan: AcceptanceAccessPlan, account: str) -> dict[str, Any]:
    """The policy document: SetInstanceHealth on this cluster's replace pools' EKS groups, in this region and account, only."""
    groups = f"arn:{plan.partition}:autoscaling:{plan.region}:{account}:autoScalingGroup:*:autoScalingGroupName/{EKS_GROUPS}"
    owned = {"aws:ResourceTag/eks:cluster-name": plan.cluster_name, "aws:ResourceTag/eks:nodegroup-name": list(plan.node_groups)}
    statement: dict[str, Any] = {"Sid": "ReplaceNodesThatFailAcceptance", "Effect": "Allow", "Action": ACTION, "Resource": groups}
    statement["Condition"] = {"StringEquals": owned}
    return {"Version": "2012-10-17", "Statement": [statement]}


class AcceptanceAccess(pulumi.ComponentResource):
    """The checker's Pod Identity role, policy and association (`railyard:compute:AcceptanceAccess`)."""

    role_arn: pulumi.Output[str]
    association: aws.eks.PodIdentityAssociation

    def __init__(self, name: str, plan: AcceptanceAccessPlan, cluster_name: pulumi.Input[str], opts: pulumi.ResourceOptions | None = None):
        super().__init__("railyard:compute:AcceptanceAccess", name, None, opts)
        tags = plan.tags
        # `<cluster>-acceptance-role` plus Pulumi's 8: within IAM's 64 for the 33-character cluster names allows.
        role = aws.iam.Role(
            f"{name}-role",
            assume_role_policy=pod_identity_trust(),
            description=f"EKS Pod Identity role of the acceptance checker ({NAMESPACE}/{NAME}): replaces nodes that fail acceptance",
            tags=named_tags(tags, f"{name}-role"),
            opts=child_of(self),
        )
        account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self)).account_id
        policy = aws.iam.Policy(
            f"{name}-replace",
            description="Acceptance checker: mark a failed node's instance Unhealthy in its EKS node group's Auto Scaling group",
            policy=account.apply(lambda account_id: json.dumps(replacement_policy(plan, account_id))),
            tags=named_tags(tags, f"{name}-replace"),
            opts=child_of(self),
        )
        attached = aws.iam.RolePolicyAttachment(f"{name}-replace", role=role.name, policy_arn=policy.arn, opts=child_of(self))
        self.association = aws.eks.PodIdentityAssociation(
            f"{name}-checker",
            cluster_name=cluster_name,
            namespace=NAMESPACE,
            service_account=NAME,
            role_arn=role.arn,
            tags=named_tags(tags, f"{name}-checker"),
            opts=child_of(self, depends_on=[attached]),
        )
        self.role_arn = role.arn
        self.register_outputs({"roleArn": role.arn, "nodeGroups": list(plan.node_groups)})
