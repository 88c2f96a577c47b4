"""The EKS control plane: IAM roles, secrets encryption, the cluster itself and its OIDC provider.

The API endpoint is private by default; it is public only when the blueprint
lists `kubernetes.endpoint.public_access_cidrs`, and then only to those CIDRs.
`private_access_cidrs` become TCP 443 ingress rules on the cluster security
group, for a runner inside the VPC or a connected network.
Kubernetes secrets are envelope-encrypted with a KMS key that rotates yearly.
Node volumes are encrypted with a second key whose policy names EC2 Auto
Scaling's service-linked role; KMS refuses a policy naming a role that does
not exist (MalformedPolicyDocumentException), and Auto Scaling creates that
role only with an account's first Auto Scaling group. So the component looks
the role up (`iam:ListRoles`, read-only) and, in an account that lacks it,
creates it before the key; the role is account-wide and kept when the stack
goes (`retain_on_delete`), so a later run that finds it simply stops managing
it.
The cluster's subnets are the private subnets of every zone (EKS needs at
least two zones). The node role is shared by every managed node group; its
ARN resolves only once its policies are attached, so no node group can start
before its nodes could join.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

import pulumi
import pulumi_aws as aws

from blueprints.records import record
from components.common import child_of, computed, named_tags
from components.plan.keys import volume_key_policy
from components.plan.kubeconfig import DeployerIdentity, render_kubeconfig

AUTOSCALING_SERVICE = "autoscaling.amazonaws.com"
AUTOSCALING_ROLE = "AWSServiceRoleForAutoScaling"
AUTOSCALING_ROLE_PATH = f"/aws-service-role/{AUTOSCALING_SERVICE}/"
CONTROL_PLANE_LOGS = ["api", "audit", "authenticator"]
CLUSTER_POLICIES = ("AmazonEKSClusterPolicy",)
NODE_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryReadOnly", "AmazonEKS_CNI_Policy")


@record
class ClusterArgs:
    """The control plane as planned: names, version, endpoint access and the subnets it spans."""

    cluster_name: str
    kubernetes_version: str
    region: str
    partition: str
    subnet_ids: Sequence[pulumi.Input[str]]
    endpoint_private: bool
    public_access_cidrs: tuple[str, ...]
    tags: Mapping[str, str]
    private_access_cidrs: tuple[str, ...] = ()
    identity: DeployerIdentity = DeployerIdentity()
    control_plane_tier: str = "standard"
    # kubernetes.node_iam_policies: attached to the node role next to railyard's own.
    node_policy_arns: tuple[str, ...] = ()
    # cloud.protect_stateful: the control plane and its KMS keys refuse deletion until unprotected.
    protect: bool = True


def _assume_role_policy(service: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}]})


class Cluster(pulumi.ComponentResource):
    """An EKS cluster. Exposes its name, endpoint, CA, security group, node role, OIDC provider and kubeconfig."""

    def __init__(self, name: str, args: ClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("railyard:cluster:Cluster", name, None, opts)
        self._name, self._args = name, args
        cluster_role_arn, _ = self._role("control-plane-role", "eks.amazonaws.com", CLUSTER_POLICIES)
        self.node_role_arn, self.node_role_name = self._role("node-role", "ec2.amazonaws.com", NODE_POLICIES, args.node_policy_arns)
        key = aws.kms.Key(
            f"{name}-secrets",
            description=f"Envelope encryption of {args.cluster_name}'s Kubernetes secrets",
            enable_key_rotation=True,
            tags=named_tags(args.tags, f"{name}-secrets"),
            opts=child_of(self, protect=args.protect),
        )
        aws.kms.Alias(f"{name}-secrets", name=f"alias/{args.cluster_name}-secrets", target_key_id=key.key_id, opts=child_of(self))
        # Node root volumes get their own customer-managed key; Auto Scaling's service role must be able to use it.
        account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self))
        volumes = aws.kms.Key(
            f"{name}-volumes",
            description=f"Encryption of {args.cluster_name}'s node volumes",
            enable_key_rotation=True,
            policy=account.account_id.apply(lambda account_id: volume_key_policy(args.partition, account_id)),
            tags=named_tags(args.tags, f"{name}-volumes"),
            opts=child_of(self, depends_on=self._autoscaling_role(), protect=args.protect),
        )
        self.volume_key_arn = volumes.arn
        public = bool(args.public_access_cidrs)
        eks = aws.eks.Cluster(
            f"{name}-control-plane",
            name=args.cluster_name,
            version=args.kubernetes_version,
            role_arn=cluster_role_arn,
            vpc_config=aws.eks.ClusterVpcConfigArgs(
                subnet_ids=list(args.subnet_ids),
                endpoint_private_access=args.endpoint_private,
                endpoint_public_access=public,
                public_access_cidrs=list(args.public_access_cidrs) or None,
            ),
            encryption_config=aws.eks.ClusterEncryptionConfigArgs(
                resources=["secrets"], provider=aws.eks.ClusterEncryptionConfigProviderArgs(key_arn=key.arn)
            ),
            access_config=aws.eks.ClusterAccessConfigArgs(authentication_mode="API", bootstrap_cluster_creator_admin_permissions=True),
            enabled_cluster_log_types=CONTROL_PLANE_LOGS,
            # Only a provisioned tier is stated, so small clusters' inputs don't change.
            control_plane_scaling_config=aws.eks.ClusterControlPlaneScalingConfigArgs(tier=args.control_plane_tier)
            if args.control_plane_tier != "standard"
            else None,
            tags=named_tags(args.tags, args.cluster_name),
            opts=child_of(self, protect=args.protect),
        )
        self.cluster_name = eks.name
        self.endpoint = eks.endpoint
        self.certificate_authority = eks.certificate_authority.apply(lambda authority: computed(authority.data, "cluster certificate authority"))
        self.security_group_id = eks.vpc_config.apply(lambda config: computed(config.cluster_security_group_id, "cluster security group"))
        # EKS picks the service CIDR (10.100.0.0/16 or 172.20.0.0/16) when none is set; a custom AMI's NodeConfig needs it.
        self.service_cidr = eks.kubernetes_network_config.apply(
            lambda config: computed(config.service_ipv4_cidr if config else None, "cluster service CIDR")
        )
        for cidr in args.private_access_cidrs:
            # The runner that applies the Kubernetes layer from inside the VPC or a connected network.
            aws.vpc.SecurityGroupIngressRule(
                f"{name}-api-from-{cidr.replace('.', '-').replace('/', '-')}",
                security_group_id=self.security_group_id,
                cidr_ipv4=cidr,
                ip_protocol="tcp",
                from_port=443,
                to_port=443,
                description=f"Kubernetes API from {cidr} (kubernetes.endpoint.private_access_cidrs)",
                tags=named_tags(args.tags, f"{name}-api-from-{cidr}"),
                opts=child_of(self),
            )
        # EKS sets a created cluster's identity and OIDC issuer (pulumi-aws types the output Optional).
        self.oidc_issuer_url = eks.identities.apply(lambda identities: identities[0].oidcs[0].issuer)
        oidc = aws.iam.OpenIdConnectProvider(
            f"{name}-oidc",
            url=self.oidc_issuer_url,
            client_id_lists=["sts.amazonaws.com"],
            tags=named_tags(args.tags, f"{name}-oidc"),
            opts=child_of(self),
        )
        self.oidc_provider_arn = oidc.arn
        self.kubeconfig: pulumi.Output[str] = pulumi.Output.secret(
            pulumi.Output.all(eks.name, eks.endpoint, self.certificate_authority).apply(
                lambda values: render_kubeconfig(values[0], values[1], values[2], args.region, args.identity)
            )
        )
        self.register_outputs(
            {
                "clusterName": self.cluster_name,
                "endpoint": self.endpoint,
                "certificateAuthority": self.certificate_authority,
                "kubeconfig": self.kubeconfig,
                "nodeRoleArn": self.node_role_arn,
                "volumeKeyArn": self.volume_key_arn,
                "oidcProviderArn": self.oidc_provider_arn,
            }
        )

    def _autoscaling_role(self) -> list[pulumi.Resource]:
        """EC2 Auto Scaling's service-linked role, created when the account lacks it; [] when it exists.

        The lookup runs at program time (a plain invoke), because whether a
        resource is registered can't depend on an Output.
        """
        found = aws.iam.get_roles(path_prefix=AUTOSCALING_ROLE_PATH, name_regex=f"^{AUTOSCALING_ROLE}$", opts=pulumi.InvokeOptions(parent=self))
        if AUTOSCALING_ROLE in (found.names or []):
            return []
        role = aws.iam.ServiceLinkedRole(
            f"{self._name}-autoscaling-role",
            aws_service_name=AUTOSCALING_SERVICE,
            description="EC2 Auto Scaling, created by railyard for the node-volume key policy",
            tags=named_tags(self._args.tags, AUTOSCALING_ROLE),
            opts=child_of(self, retain_on_delete=True),
        )
        return [role]

    def _role(
        self, suffix: str, service: str, policies: tuple[str, ...], extra_arns: Sequence[str] = ()
    ) -> tuple[pulumi.Output[str], pulumi.Output[str]]:
        """An IAM role `service` may assume, with AWS managed `policies` and any `extra_arns`: (ARN, name), resolved after they are attached."""
        name, args = f"{self._name}-{suffix}", self._args
        role = aws.iam.Role(name, assume_role_policy=_assume_role_policy(service), tags=named_tags(args.tags, name), opts=child_of(self))
        arns = {policy: f"arn:{args.partition}:iam::aws:policy/{policy}" for policy in policies}
        # The blueprint's own ARNs: named by policy name and a digest of the ARN, so two accounts' same-named policies differ.
        arns.update({f"{arn.rsplit('/', 1)[-1]}-{hashlib.sha256(arn.encode()).hexdigest()[:8]}": arn for arn in extra_arns})
        attachments = [
            aws.iam.RolePolicyAttachment(f"{name}-{key}", role=role.name, policy_arn=arn, opts=child_of(self)) for key, arn in arns.items()
        ]
        attached = pulumi.Output.all(role.arn, role.name, *(attachment.id for attachment in attachments))
        return attached.apply(lambda values: values[0]), attached.apply(lambda values: values[1])
