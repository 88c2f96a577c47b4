"""Firing and passing cases of the rules that cover the security benchmarks (CIS EKS, EKS best practices, Checkov, cfn-nag).

Each passing case is a compiled example as it is; each firing case breaks one
property of one compiled resource, the way a user's extra configuration (or a
regression in the compiler) would. `tests/policies/test_rules.py` runs them.
"""

from __future__ import annotations

import json

from policies.resource_types import (
    BUCKET_ENCRYPTION,
    BUCKET_VERSIONING,
    CLUSTER,
    DEFAULT_SECURITY_GROUP,
    FLOW_LOG,
    IAM_ROLE,
    INGRESS_RULE,
    KMS_KEY,
    LAUNCH_TEMPLATE,
    NODE_GROUP,
    ROLE_POLICY_ATTACHMENT,
    SECURITY_GROUP,
)
from tests.policies.cases import Case
from tests.policies.previews import deleter, edit, example, setter, without

OPEN_TRUST = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]})
CONDITIONED_TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"AWS": "*"},
                "Action": "sts:AssumeRole",
                "Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-example"}},
            }
        ],
    }
)
ADMIN_ARN = "arn:aws:iam::aws:policy/AdministratorAccess"


def p5():
    return example("p5-capacity-block")


def _remote_access(inputs: dict) -> None:
    inputs["remoteAccess"] = {"ec2SshKey": "ops-key"}


def _unlabelled_rule(inputs: dict) -> None:
    inputs["ingress"][0]["description"] = " "


BENCHMARK_CASES = [
    # SEC001 (extended): the hop limit
    Case(
        "SEC001",
        "fires-on-a-hop-limit-over-the-bound",
        lambda: edit(p5(), LAUNCH_TEMPLATE, "train-use1a", setter("metadataOptions.httpPutResponseHopLimit", 3)),
        True,
        "metadataOptions.httpPutResponseHopLimit is 3; maximum 2",
    ),
    Case(
        "SEC001",
        "fires-on-hop-limit-2-when-the-pack-asks-1",
        p5,
        True,
        "metadataOptions.httpPutResponseHopLimit is 2; maximum 1",
        config={"imdsv2-required": {"maxMetadataHopLimit": 1}},
    ),
    # SEC006 (extended): a public endpoint keeps private access on
    Case(
        "SEC006",
        "fires-on-a-public-only-endpoint",
        lambda: edit(
            example("insecure"),
            CLUSTER,
            "control-plane",
            lambda inputs: inputs["vpcConfig"].update(publicAccessCidrs=["203.0.113.0/24"], endpointPrivateAccess=False),
        ),
        True,
        "vpcConfig.endpointPrivateAccess is False; allowed: True",
        config={"eks-endpoint-restricted": {"eksPublicAccessCidrs": ["203.0.113.0/24"]}},
    ),
    # SEC011 control-plane logging
    Case("SEC011", "passes-compiled-cluster", p5, False),
    Case(
        "SEC011",
        "fires-without-audit-logs",
        lambda: edit(p5(), CLUSTER, "control-plane", setter("enabledClusterLogTypes", ["api", "authenticator"])),
        True,
        "enabledClusterLogTypes is ['api', 'authenticator'] and lacks 'audit'",
    ),
    Case(
        "SEC011",
        "fires-without-any-logs",
        lambda: edit(p5(), CLUSTER, "control-plane", deleter("enabledClusterLogTypes")),
        True,
        "enabledClusterLogTypes is not set",
    ),
    Case(
        "SEC011",
        "fires-when-the-pack-asks-all-five",
        p5,
        True,
        "lacks 'controllerManager', 'scheduler'",
        config={"eks-control-plane-logging": {"requiredClusterLogTypes": ["api", "audit", "authenticator", "controllerManager", "scheduler"]}},
    ),
    # SEC012 access entries
    Case("SEC012", "passes-api-mode", p5, False),
    Case(
        "SEC012",
        "fires-on-the-aws-auth-config-map",
        lambda: edit(p5(), CLUSTER, "control-plane", setter("accessConfig.authenticationMode", "CONFIG_MAP")),
        True,
        "accessConfig.authenticationMode is 'CONFIG_MAP'; allowed: 'API'",
    ),
    Case(
        "SEC012",
        "fires-without-access-config",
        lambda: edit(p5(), CLUSTER, "control-plane", deleter("accessConfig")),
        True,
        "accessConfig is not set",
    ),
    # SEC013 no SSH on node groups
    Case("SEC013", "passes-compiled-node-groups", p5, False),
    Case("SEC013", "fires-on-remote-access", lambda: edit(p5(), NODE_GROUP, "train-use1a", _remote_access), True, "remoteAccess is set"),
    # SEC014 KMS rotation
    Case("SEC014", "passes-compiled-keys", p5, False),
    Case(
        "SEC014",
        "fires-on-a-key-that-never-rotates",
        lambda: edit(p5(), KMS_KEY, "eks-volumes", setter("enableKeyRotation", False)),
        True,
        "enableKeyRotation is False; allowed: True",
    ),
    # SEC015 trust policies
    Case("SEC015", "passes-service-principals", p5, False),
    Case(
        "SEC015",
        "passes-a-wildcard-narrowed-by-a-condition",
        lambda: edit(p5(), IAM_ROLE, "node-role", setter("assumeRolePolicy", CONDITIONED_TRUST)),
        False,
    ),
    Case(
        "SEC015",
        "fires-on-a-role-anyone-may-assume",
        lambda: edit(p5(), IAM_ROLE, "node-role", setter("assumeRolePolicy", OPEN_TRUST)),
        True,
        "assumeRolePolicy statement 0 lets any principal assume the role, with no condition",
    ),
    # SEC016 broad managed policies
    Case("SEC016", "passes-compiled-attachments", p5, False),
    Case(
        "SEC016",
        "fires-on-administrator-access",
        lambda: edit(p5(), ROLE_POLICY_ATTACHMENT, "node-role-AmazonEKS_CNI_Policy", setter("policyArn", ADMIN_ARN)),
        True,
        "attaches the AWS managed policy AdministratorAccess",
    ),
    Case(
        "SEC016",
        "fires-on-a-role-listing-it",
        lambda: edit(p5(), IAM_ROLE, "node-role", setter("managedPolicyArns", [ADMIN_ARN])),
        True,
        "attaches the AWS managed policy AdministratorAccess",
    ),
    # SEC017 S3 versioning and encryption
    Case("SEC017", "passes-compiled-buckets", p5, False),
    Case(
        "SEC017",
        "fires-without-versioning",
        lambda: without(p5(), lambda resource: resource.type == BUCKET_VERSIONING and "datasets" in resource.name),
        True,
        "Bucket 'p5-train-prod-storage-datasets': has no aws.s3.BucketVersioning with status Enabled",
    ),
    Case(
        "SEC017",
        "fires-on-suspended-versioning",
        lambda: edit(p5(), BUCKET_VERSIONING, "checkpoints", setter("versioningConfiguration.status", "Suspended")),
        True,
        "Bucket 'p5-train-prod-storage-checkpoints': has no aws.s3.BucketVersioning with status Enabled",
    ),
    Case(
        "SEC017",
        "fires-without-default-encryption",
        lambda: without(p5(), lambda resource: resource.type == BUCKET_ENCRYPTION and "datasets" in resource.name),
        True,
        "has no aws.s3.BucketServerSideEncryptionConfiguration",
    ),
    # SEC018 descriptions
    Case("SEC018", "passes-compiled-groups-and-rules", p5, False),
    Case(
        "SEC018",
        "fires-on-a-group-without-description",
        lambda: edit(p5(), SECURITY_GROUP, "network-efa", deleter("description")),
        True,
        "description is not set",
    ),
    Case(
        "SEC018",
        "fires-on-a-blank-inline-rule",
        lambda: edit(p5(), SECURITY_GROUP, "lustre-sg", _unlabelled_rule),
        True,
        "ingress[0].description is not set",
    ),
    Case(
        "SEC018",
        "fires-on-a-standalone-rule-without-description",
        lambda: edit(p5(), INGRESS_RULE, "clients-efa", deleter("description")),
        True,
        "description is not set",
    ),
    # SEC019 flow logs
    Case("SEC019", "passes-compiled-vpc", p5, False),
    Case(
        "SEC019",
        "fires-without-a-flow-log",
        lambda: without(p5(), lambda resource: resource.type == FLOW_LOG),
        True,
        "Vpc 'p5-train-prod-network-vpc': has no aws.ec2.FlowLog",
    ),
    # SEC020 default security group
    Case("SEC020", "passes-compiled-vpc", p5, False),
    Case(
        "SEC020",
        "fires-when-the-default-group-is-left-alone",
        lambda: without(p5(), lambda resource: resource.type == DEFAULT_SECURITY_GROUP),
        True,
        "has no aws.ec2.DefaultSecurityGroup emptying its default security group",
    ),
    Case(
        "SEC020",
        "fires-on-a-default-group-that-allows-traffic",
        lambda: edit(p5(), DEFAULT_SECURITY_GROUP, "default-sg", setter("ingress", [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}])),
        True,
        "ingress has 1 rule(s); the default group must allow nothing",
    ),
]
