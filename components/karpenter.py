"""Karpenter's AWS side: the controller's IAM role (through EKS Pod Identity) and its interruption queue.

What Karpenter 1.14.1's getting-started CloudFormation template makes
(aws/karpenter-provider-aws, website/.../getting-started-with-karpenter/cloudformation.yaml
at v1.14.1), made here by railyard, least privilege kept:

* a role only EKS Pod Identity may assume, bound to `kube-system/karpenter`
  (the chart's service account, named explicitly in the release), with one
  policy per concern of the template: launching nodes (EC2 actions scoped to
  resources tagged for this cluster and a NodePool), passing the node role
  and managing the instance profiles Karpenter makes for it, reading the
  cluster, reading the interruption queue, and the region-scoped reads it
  discovers instance types, subnets and prices with. The zonal-shift policy
  is left out: railyard doesn't turn `enableZonalShift` on;
* an SQS queue (5-minute retention, SQS-managed encryption, TLS only) that
  EventBridge feeds with the five events Karpenter drains nodes on: health
  events, spot interruptions, rebalance recommendations, instance state
  changes and capacity reservation interruptions.

The nodes use the cluster's node role, which the system managed node group
already holds an EC2_LINUX access entry for (EKS makes it), so Karpenter's
nodes join with no entry of their own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_aws as aws

from blueprints.records import record
from components.common import child_of, named_tags, pod_identity_trust

# The chart's service account, named explicitly in the release (values.yaml `serviceAccount.name`).
CONTROLLER_ACCOUNT = ("kube-system", "karpenter")
# Seconds SQS keeps an interruption message: Karpenter acts within the two-minute spot warning.
QUEUE_RETENTION_SECONDS = 300
# (rule key, source, detail-type): the events Karpenter's interruption controller handles.
INTERRUPTION_EVENTS = (
    ("health", "aws.health", "AWS Health Event"),
    ("spot", "aws.ec2", "EC2 Spot Instance Interruption Warning"),
    ("rebalance", "aws.ec2", "EC2 Instance Rebalance Recommendation"),
    ("state", "aws.ec2", "EC2 Instance State-change Notification"),
    ("reservation", "aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"),
)
REGIONAL_READS = (
    "ec2:DescribeCapacityReservations",
    "ec2:DescribeImages",
    "ec2:DescribeInstances",
    "ec2:DescribeInstanceStatus",
    "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplates",
    "ec2:DescribePlacementGroups",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSpotPriceHistory",
    "ec2:DescribeSubnets",
)
LAUNCHED = ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")


@record
class KarpenterAccessArgs:
    """The cluster Karpenter serves, the node role it passes, and where."""

    cluster_name: pulumi.Input[str]
    node_role_arn: pulumi.Input[str]
    region: str
    partition: str
    tags: Mapping[str, str]
    # The customer-managed key the nodes' root volumes are encrypted with: EC2 uses it on the controller's behalf.
    volume_key_arn: pulumi.Input[str]


def _statement(sid: str, actions: list[str], resources: list[str], condition: dict[str, Any] | None = None) -> dict[str, Any]:
    statement: dict[str, Any] = {"Sid": sid, "Effect": "Allow", "Action": actions, "Resource": resources}
    if condition:
        statement["Condition"] = condition
    return statement


def controller_policies(
    partition: str, region: str, account: str, cluster: str, node_role_arn: str, queue_arn: str, volume_key_arn: str
) -> dict[str, dict[str, Any]]:
    """The controller's policy documents by concern, scoped to this cluster, its node role, its queue and the volume key."""
    ec2 = f"arn:{partition}:ec2:{region}"
    owned = {f"aws:ResourceTag/kubernetes.io/cluster/{cluster}": "owned"}
    requested = {f"aws:RequestTag/kubernetes.io/cluster/{cluster}": "owned", "aws:RequestTag/eks:eks-cluster-name": cluster}
    profiles = f"arn:{partition}:iam::{account}:instance-profile/*"
    profile_tags = {**owned, "aws:ResourceTag/topology.kubernetes.io/region": region}
    launched = [f"{ec2}:*:{kind}/*" for kind in LAUNCHED]
    documents = {
        "node-lifecycle": [
            _statement(
                "LaunchFromSharedResources",
                ["ec2:RunInstances", "ec2:CreateFleet"],
                [f"{ec2}::image/*", f"{ec2}::snapshot/*"]
                + [f"{ec2}:*:{kind}/*" for kind in ("security-group", "subnet", "capacity-reservation", "placement-group")],
            ),
            _statement(
                "LaunchFromOwnTemplates",
                ["ec2:RunInstances", "ec2:CreateFleet"],
                [f"{ec2}:*:launch-template/*"],
                {"StringEquals": owned, "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"}},
            ),
            _statement(
                "CreateTaggedForThisCluster",
                ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
                launched,
                {"StringEquals": requested, "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"}},
            ),
            _statement(
                "TagWhatItCreates",
                ["ec2:CreateTags"],
                launched,
                {
                    "StringEquals": {**requested, "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"]},
                    "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"},
                },
            ),
            _statement(
                "TagOwnInstances",
                ["ec2:CreateTags"],
                [f"{ec2}:*:instance/*"],
                {
                    "StringEquals": owned,
                    "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
                    "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": cluster},
                    "ForAllValues:StringEquals": {"aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]},
                },
            ),
            # Launching with an encrypted root volume under a customer-managed key: EC2 uses the key as the caller
            # (AWS KMS developer guide, "How Amazon EBS uses AWS KMS").
            _statement(
                "UseVolumeKey",
                ["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey", "kms:CreateGrant"],
                [volume_key_arn],
                {"StringEquals": {"kms:ViaService": f"ec2.{region}.amazonaws.com"}},
            ),
            _statement(
                "DeleteOwn",
                ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
                [f"{ec2}:*:instance/*", f"{ec2}:*:launch-template/*"],
                {"StringEquals": owned, "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"}},
            ),
        ],
        "iam-integration": [
            _statement(
                "PassNodeRole",
                ["iam:PassRole"],
                [node_role_arn],
                {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}},
            ),
            _statement(
                "CreateInstanceProfiles",
                ["iam:CreateInstanceProfile"],
                [profiles],
                {
                    "StringEquals": {**requested, "aws:RequestTag/topology.kubernetes.io/region": region},
                    "StringLike": {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"},
                },
            ),
            _statement(
                "TagInstanceProfiles",
                ["iam:TagInstanceProfile"],
                [profiles],
                {
                    "StringEquals": {**profile_tags, **requested, "aws:RequestTag/topology.kubernetes.io/region": region},
                    "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*", "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"},
                },
            ),
            _statement(
                "ManageInstanceProfiles",
                ["iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"],
                [profiles],
                {"StringEquals": profile_tags, "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"}},
            ),
        ],
        # DescribeCluster finds the endpoint and the service CIDR (launchtemplate.go ResolveClusterCIDR).
        "eks-integration": [
            _statement("DescribeThisCluster", ["eks:DescribeCluster"], [f"arn:{partition}:eks:{region}:{account}:cluster/{cluster}"])
        ],
        "interruption": [_statement("ReadInterruptionQueue", ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"], [queue_arn])],
        "resource-discovery": [
            _statement("RegionalReads", list(REGIONAL_READS), ["*"], {"StringEquals": {"aws:RequestedRegion": region}}),
            _statement("PublicAmiParameters", ["ssm:GetParameter"], [f"arn:{partition}:ssm:{region}::parameter/aws/service/*"]),
            _statement("Prices", ["pricing:GetProducts"], ["*"]),
            _statement("ListInstanceProfiles", ["iam:ListInstanceProfiles"], ["*"]),
            _statement("ReadInstanceProfiles", ["iam:GetInstanceProfile"], [profiles]),
        ],
    }
    return {concern: {"Version": "2012-10-17", "Statement": statements} for concern, statements in documents.items()}


class KarpenterAccess(pulumi.ComponentResource):
    """The controller's role and Pod Identity association, and the interruption queue (`queue_name`)."""

    queue_name: pulumi.Output[str]

    def __init__(self, name: str, args: KarpenterAccessArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("railyard:compute:KarpenterAccess", name, None, opts)
        tags = args.tags
        queue = aws.sqs.Queue(
            f"{name}-interruptions",
            message_retention_seconds=QUEUE_RETENTION_SECONDS,
            sqs_managed_sse_enabled=True,
            tags=named_tags(tags, f"{name}-interruptions"),
            opts=child_of(self),
        )
        aws.sqs.QueuePolicy(f"{name}-interruptions-policy", queue_url=queue.url, policy=queue.arn.apply(_queue_policy), opts=child_of(self))
        for key, source, detail in INTERRUPTION_EVENTS:
            rule = aws.cloudwatch.EventRule(
                f"{name}-{key}",
                description=f"Karpenter interruption handling: {detail}",
                event_pattern=json.dumps({"source": [source], "detail-type": [detail]}),
                tags=named_tags(tags, f"{name}-{key}"),
                opts=child_of(self),
            )
            aws.cloudwatch.EventTarget(f"{name}-{key}-target", rule=rule.name, arn=queue.arn, opts=child_of(self))
        role = aws.iam.Role(
            f"{name}-controller",
            assume_role_policy=pod_identity_trust(),
            description="EKS Pod Identity role of the Karpenter controller (kube-system/karpenter)",
            tags=named_tags(tags, f"{name}-controller"),
            opts=child_of(self),
        )
        account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self)).account_id
        documents = pulumi.Output.all(account, args.cluster_name, args.node_role_arn, queue.arn, args.volume_key_arn).apply(
            lambda values: controller_policies(args.partition, args.region, *values)
        )
        attached = []
        for concern in ("node-lifecycle", "iam-integration", "eks-integration", "interruption", "resource-discovery"):
            policy = aws.iam.Policy(
                f"{name}-{concern}",
                description=f"Karpenter controller: {concern.replace('-', ' ')}",
                policy=documents.apply(_document(concern)),
                tags=named_tags(tags, f"{name}-{concern}"),
                opts=child_of(self),
            )
            attached.append(aws.iam.RolePolicyAttachment(f"{name}-{concern}", role=role.name, policy_arn=policy.arn, opts=child_of(self)))
        association = aws.eks.PodIdentityAssociation(
            f"{name}-controller",
            cluster_name=args.cluster_name,
            namespace=CONTROLLER_ACCOUNT[0],
            service_account=CONTROLLER_ACCOUNT[1],
            role_arn=role.arn,
            tags=named_tags(tags, f"{name}-controller"),
            opts=child_of(self, depends_on=attached),
        )
        self.queue_name = queue.name
        self.association = association
        self.register_outputs({"queueName": queue.name})


def _document(concern: str):
    """A function picking one concern's policy document, as JSON, out of all of them."""

    def pick(documents: dict[str, dict[str, Any]]) -> str:
        return json.dumps(documents[concern], sort_keys=True)

    return pick


def _queue_policy(queue_arn: str) -> str:
    """EventBridge (and SQS) may send to the queue; nothing may use it without TLS."""
    send = {"Sid": "EventBridgeSends", "Effect": "Allow", "Principal": {"Service": ["events.amazonaws.com", "sqs.amazonaws.com"]}}
    deny = {"Sid": "DenyHTTP", "Effect": "Deny", "Principal": "*", "Action": "sqs:*", "Resource": queue_arn}
    statements = [{**send, "Action": "sqs:SendMessage", "Resource": queue_arn}, {**deny, "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]
    return json.dumps({"Version": "2012-10-17", "Id": "EC2InterruptionPolicy", "Statement": statements}, sort_keys=True)
