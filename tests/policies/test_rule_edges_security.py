"""The security rules with logic of their own (SEC001, SEC006, SEC009-SEC011, SEC015-SEC020) on small built stacks:
each condition on its own, each threshold at its limit and one past, each message in full."""

from __future__ import annotations

import json

import pytest

from policies.registry import rule
from policies.resource_types import (
    BUCKET,
    BUCKET_ENCRYPTION,
    BUCKET_V2,
    BUCKET_VERSIONING,
    BUCKET_VERSIONING_V2,
    CLUSTER,
    DEFAULT_SECURITY_GROUP,
    EGRESS_RULE,
    FLOW_LOG,
    IAM_POLICY,
    IAM_ROLE,
    INGRESS_RULE,
    LAUNCH_TEMPLATE,
    PUBLIC_ACCESS_BLOCK,
    ROLE_POLICY_ATTACHMENT,
    SECURITY_GROUP,
    VPC,
)
from policies.rule import NotApplicable
from tests.policies.built import made, messages, report, urn, violated

ADMIN_ARN = "arn:aws:iam::aws:policy/AdministratorAccess"


# SEC016: no broad AWS managed policy attached


def test_sec016_an_attachment_of_a_forbidden_aws_managed_policy():
    assert messages("SEC016", made(ROLE_POLICY_ATTACHMENT, "admin", {"policyArn": ADMIN_ARN})) == [
        "RolePolicyAttachment 'admin': attaches the AWS managed policy AdministratorAccess"
    ]


def test_sec016_reads_each_managed_arn_of_a_role_by_its_last_segment():
    role = made(
        IAM_ROLE, "node", {"managedPolicyArns": ["arn:aws:iam::aws:policy/ReadOnlyAccess", "arn:aws:iam::aws:policy/job/PowerUserAccess", ADMIN_ARN]}
    )
    assert messages("SEC016", role) == [
        "Role 'node': attaches the AWS managed policy PowerUserAccess",
        "Role 'node': attaches the AWS managed policy AdministratorAccess",
    ]


def test_sec016_a_customer_policy_of_the_same_name_is_not_the_aws_one():
    assert messages("SEC016", made(ROLE_POLICY_ATTACHMENT, "mine", {"policyArn": "arn:aws:iam::123456789012:policy/AdministratorAccess"})) == []
    assert messages("SEC016", made(IAM_ROLE, "bare", {})) == []


def test_sec016_the_forbidden_names_come_from_the_config():
    config = {"no-broad-managed-policy": {"forbiddenManagedPolicies": ["ReadOnlyAccess"]}}
    role = made(IAM_ROLE, "node", {"managedPolicyArns": ["arn:aws:iam::aws:policy/ReadOnlyAccess", ADMIN_ARN]})
    assert messages("SEC016", role, config=config) == ["Role 'node': attaches the AWS managed policy ReadOnlyAccess"]


# SEC018: security groups and their rules have descriptions


def test_sec018_a_group_without_a_description_and_its_blank_rules():
    group = made(
        SECURITY_GROUP,
        "sg",
        {"description": "  ", "ingress": [{"description": "from the pods"}, {"description": ""}], "egress": [{}, {"description": "to the world"}]},
    )
    assert messages("SEC018", group) == [
        "SecurityGroup 'sg': description is not set",
        "SecurityGroup 'sg': ingress[1].description is not set",
        "SecurityGroup 'sg': egress[0].description is not set",
    ]


def test_sec018_a_described_group_and_standalone_rules():
    assert messages("SEC018", made(SECURITY_GROUP, "sg", {"description": "EFA"})) == []
    assert messages("SEC018", made(INGRESS_RULE, "in", {"description": "x"}), made(EGRESS_RULE, "out", {})) == [
        "SecurityGroupEgressRule 'out': description is not set"
    ]
    assert messages("SEC018", made(INGRESS_RULE, "in", {"description": 7})) == ["SecurityGroupIngressRule 'in': description is not set"]


# SEC015: no role trusts every principal without a condition


def trusting(*statements, raw=None) -> object:
    document = raw if raw is not None else json.dumps({"Version": "2012-10-17", "Statement": list(statements)})
    return made(IAM_ROLE, "role", {"assumeRolePolicy": document})


ANYONE = {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"}
SERVICE = {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}


@pytest.mark.parametrize("principal", ["*", {"AWS": "*"}, {"AWS": ["arn:aws:iam::123456789012:root", "*"]}])
def test_sec015_every_way_of_writing_everyone(principal):
    assert messages("SEC015", trusting(SERVICE, {**ANYONE, "Principal": principal})) == [
        "Role 'role': assumeRolePolicy statement 1 lets any principal assume the role, with no condition"
    ]


def test_sec015_a_condition_a_deny_or_named_principals_are_scoped():
    condition = {"StringEquals": {"aws:PrincipalOrgID": "o-1"}}
    assert messages("SEC015", trusting({**ANYONE, "Condition": condition}, {**ANYONE, "Effect": "Deny"}, SERVICE)) == []
    assert messages("SEC015", trusting({**SERVICE, "Principal": {"AWS": ["arn:aws:iam::123456789012:root"]}})) == []
    # A principal written as one string other than "*", or none at all, is not everyone.
    assert (
        messages("SEC015", trusting({**ANYONE, "Principal": "arn:aws:iam::123456789012:root"}, {"Effect": "Allow", "Action": "sts:AssumeRole"})) == []
    )


def test_sec015_a_single_statement_object():
    role = made(IAM_ROLE, "role", {"assumeRolePolicy": json.dumps({"Statement": ANYONE})})
    assert messages("SEC015", role) == ["Role 'role': assumeRolePolicy statement 0 lets any principal assume the role, with no condition"]


def test_sec015_does_not_apply_to_a_document_it_cannot_read():
    for role in (trusting(raw="{not json"), made(IAM_ROLE, "role", {"assumeRolePolicy": 5})):
        result = report("SEC015", role)
        assert result.violations == [] and result.not_applicable == 1
    assert messages("SEC015", made(IAM_ROLE, "role", {"assumeRolePolicy": {"Statement": [ANYONE]}})) == [
        "Role 'role': assumeRolePolicy statement 0 lets any principal assume the role, with no condition"
    ]


def test_sec015_says_why_it_does_not_apply():
    # The reason is what `pulumi preview` shows for a policy that did not apply; the offline runner only counts them.
    trust = rule("SEC015")
    with pytest.raises(NotApplicable, match=r"^the trust policy is not JSON$"):
        trust.problems(IAM_ROLE, {"assumeRolePolicy": "{not json"}, {})
    with pytest.raises(NotApplicable, match=r"^the trust policy is not known yet$"):
        trust.problems(IAM_ROLE, {"assumeRolePolicy": 5}, {})
    assert trust.problems(IAM_ROLE, {"assumeRolePolicy": "{}"}, {}) == []


# SEC010: no IAM policy allows every action on every resource


def policy_document(*statements) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


ADMIN = {"Effect": "Allow", "Action": "*", "Resource": "*"}


def test_sec010_every_spelling_of_everything():
    statements = [
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"},
        {"Effect": "Allow", "Action": ["s3:GetObject", "*:*"], "Resource": ["arn:aws:s3:::data", "*"]},
        {"Effect": "Deny", "Action": "*", "Resource": "*"},
        {"Effect": "Allow", "Action": "*", "Resource": "arn:aws:s3:::data/*"},
        "not a statement",
        ADMIN,
    ]
    assert messages("SEC010", made(IAM_POLICY, "p", {"policy": policy_document(*statements)})) == [
        "Policy 'p': policy Statement[1] allows action '*' on resource '*'",
        "Policy 'p': policy Statement[5] allows action '*' on resource '*'",
    ]


def test_sec010_a_single_statement_object_and_a_document_given_as_an_object():
    assert messages("SEC010", made(IAM_POLICY, "p", {"policy": json.dumps({"Statement": ADMIN})})) == [
        "Policy 'p': policy Statement[0] allows action '*' on resource '*'"
    ]
    assert messages("SEC010", made(IAM_POLICY, "p", {"policy": {"Statement": [ADMIN]}})) == [
        "Policy 'p': policy Statement[0] allows action '*' on resource '*'"
    ]
    assert messages("SEC010", made(IAM_POLICY, "p", {"policy": json.dumps({"Statement": [{"Effect": "Allow"}]})})) == []


def test_sec010_a_json_document_that_is_not_an_object_allows_nothing():
    assert messages("SEC010", made(IAM_POLICY, "p", {"policy": "[5]"}), made(IAM_POLICY, "q", {"policy": "5"})) == []


def test_sec010_a_document_that_is_not_json_says_where_it_broke():
    role = made(
        IAM_ROLE,
        "r",
        {"inlinePolicies": [{"name": "empty"}, {"name": "bad", "policy": "{oops"}, {"name": "admin", "policy": policy_document(ADMIN)}]},
    )
    assert messages("SEC010", role) == [
        "Role 'r': inlinePolicies[1].policy is not a JSON policy document (Expecting property name enclosed in double quotes at character 1)",
        "Role 'r': inlinePolicies[2].policy Statement[0] allows action '*' on resource '*'",
    ]


# SEC017: every bucket versioned and encrypted by resources that name it


def bucket(name: str, id: str = "", bucket_name: str | None = None, kind: str = BUCKET) -> object:
    return made(kind, name, {"bucket": bucket_name} if bucket_name else {}, id=id)


def versioning(name: str, target: str | None, status: str = "Enabled", kind: str = BUCKET_VERSIONING) -> object:
    inputs = {"versioningConfiguration": {"status": status}} | ({"bucket": target} if target else {})
    return made(kind, name, inputs)


def encryption(name: str, target: str | None, *algorithms: str) -> object:
    rules = [{"applyServerSideEncryptionByDefault": {"sseAlgorithm": algorithm}} for algorithm in algorithms]
    return made(BUCKET_ENCRYPTION, name, {"rules": rules} | ({"bucket": target} if target else {}))


UNVERSIONED = "has no aws.s3.BucketVersioning with status Enabled"
UNENCRYPTED = "has no aws.s3.BucketServerSideEncryptionConfiguration with an algorithm of aws:kms, aws:kms:dsse, AES256"


def test_sec017_configurations_name_their_bucket_by_id_or_by_name():
    stack = [bucket("data", id="b-1", bucket_name="data-bucket"), versioning("v", "b-1"), encryption("e", "data-bucket", "aws:kms")]
    assert messages("SEC017", *stack) == []


def test_sec017_each_algorithm_it_accepts_and_one_it_does_not():
    for algorithm in ("aws:kms", "aws:kms:dsse", "AES256"):
        assert messages("SEC017", bucket("data", id="b-1"), versioning("v", "b-1"), encryption("e", "b-1", algorithm)) == [], algorithm
    assert messages("SEC017", bucket("data", id="b-1"), versioning("v", "b-1"), encryption("e", "b-1", "none", "AES512")) == [
        f"Bucket 'data': {UNENCRYPTED}"
    ]


def test_sec017_suspended_versioning_and_a_later_enabled_one():
    assert violated("SEC017", bucket("data", id="b-1"), versioning("v", "b-1", "Suspended"), encryption("e", "b-1", "AES256")) == [
        (urn(BUCKET, "data"), f"Bucket 'data': {UNVERSIONED}")
    ]
    v2 = versioning("v2", "b-1", kind=BUCKET_VERSIONING_V2)
    assert messages("SEC017", bucket("data", id="b-1"), versioning("v", "b-1", "Suspended"), v2, encryption("e", "b-1", "AES256")) == []


def test_sec017_a_nameless_configuration_covers_no_nameless_bucket():
    assert messages("SEC017", bucket("data", kind=BUCKET_V2), versioning("v", None), encryption("e", None, "aws:kms")) == [
        f"BucketV2 'data': {UNVERSIONED}",
        f"BucketV2 'data': {UNENCRYPTED}",
    ]


def test_sec017_v2_buckets_named_by_id_and_each_bucket_by_its_own_configurations():
    stack = [
        bucket("a", id="b-1", kind=BUCKET_V2),
        bucket("b", id="b-2"),
        versioning("va", "b-1", kind=BUCKET_VERSIONING_V2),
        versioning("vb", "b-2"),
        encryption("ea", "b-1", "aws:kms"),
        encryption("eb", "b-2", "AES256"),
    ]
    assert messages("SEC017", *stack) == []


def test_sec017_each_bucket_on_its_own():
    stack = [bucket("a", id="b-1"), bucket("b", id="b-2"), versioning("v", "b-1"), encryption("e", "b-2", "aws:kms")]
    assert messages("SEC017", *stack) == [f"Bucket 'a': {UNENCRYPTED}", f"Bucket 'b': {UNVERSIONED}"]


# SEC009: every bucket has a public access block that names it


def block(name: str, target: str | None) -> object:
    return made(PUBLIC_ACCESS_BLOCK, name, {"bucket": target} if target else {})


def test_sec009_a_block_names_its_bucket_by_id_or_by_name():
    stack = [
        bucket("a", id="b-1"),
        bucket("b", bucket_name="b-bucket", kind=BUCKET_V2),
        bucket("c", id="b-3"),
        block("pa", "b-1"),
        block("pb", "b-bucket"),
    ]
    assert violated("SEC009", *stack) == [(urn(BUCKET, "c"), "Bucket 'c': has no aws.s3.BucketPublicAccessBlock")]


def test_sec009_holds_v2_buckets_too():
    assert messages("SEC009", bucket("a", id="b-1", kind=BUCKET_V2), bucket("b", id="b-2", kind=BUCKET_V2), block("pa", "b-1")) == [
        "BucketV2 'b': has no aws.s3.BucketPublicAccessBlock"
    ]


def test_sec009_a_nameless_block_covers_no_nameless_bucket():
    assert messages("SEC009", bucket("a"), block("pa", None)) == ["Bucket 'a': has no aws.s3.BucketPublicAccessBlock"]


# SEC019 and SEC020: every VPC has a flow log and a closed default security group


def test_sec019_each_vpc_needs_a_flow_log_that_names_it():
    stack = [
        made(VPC, "a", id="vpc-1"),
        made(VPC, "b", id="vpc-2"),
        made(FLOW_LOG, "log", {"vpcId": "vpc-1"}),
        made(FLOW_LOG, "stray", {"vpcId": "vpc-9"}),
    ]
    assert violated("SEC019", *stack) == [(urn(VPC, "b"), "Vpc 'b': has no aws.ec2.FlowLog")]


def test_sec020_a_managed_default_group_must_allow_nothing():
    stack = [
        made(VPC, "a", id="vpc-1"),
        made(VPC, "b", id="vpc-2"),
        made(
            DEFAULT_SECURITY_GROUP,
            "default-a",
            {"vpcId": "vpc-1", "ingress": [{"protocol": "-1"}, {"protocol": "tcp"}], "egress": [{"protocol": "-1"}]},
        ),
    ]
    assert messages("SEC020", *stack) == [
        "DefaultSecurityGroup 'default-a': ingress has 2 rule(s); the default group must allow nothing",
        "DefaultSecurityGroup 'default-a': egress has 1 rule(s); the default group must allow nothing",
        "Vpc 'b': has no aws.ec2.DefaultSecurityGroup emptying its default security group",
    ]
    assert messages("SEC020", made(VPC, "a", id="vpc-1"), made(DEFAULT_SECURITY_GROUP, "d", {"vpcId": "vpc-1", "ingress": [], "egress": []})) == []


def test_sec020_each_default_group_manages_its_own_vpc():
    stack = [made(VPC, name, id=f"vpc-{name}") for name in "ab"] + [
        made(DEFAULT_SECURITY_GROUP, f"d{name}", {"vpcId": f"vpc-{name}"}) for name in "ab"
    ]
    assert messages("SEC020", *stack) == []


# SEC001, SEC006, SEC011: the schema rules whose schema follows the config


def test_sec001_the_hop_limit_at_the_maximum_and_one_past():
    def lt(hops: int) -> object:
        return made(LAUNCH_TEMPLATE, "lt", {"metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": hops}})

    assert messages("SEC001", lt(2)) == []
    assert messages("SEC001", lt(3)) == ["LaunchTemplate 'lt': metadataOptions.httpPutResponseHopLimit is 3; maximum 2"]
    assert messages("SEC001", lt(2), config={"imdsv2-required": {"maxMetadataHopLimit": 1}}) == [
        "LaunchTemplate 'lt': metadataOptions.httpPutResponseHopLimit is 2; maximum 1"
    ]
    assert messages("SEC001", made(LAUNCH_TEMPLATE, "lt", {"metadataOptions": {"httpPutResponseHopLimit": 1}})) == [
        "LaunchTemplate 'lt': metadataOptions.httpTokens is not set"
    ]


def endpoint(**vpc_config) -> object:
    return made(CLUSTER, "eks", {"vpcConfig": vpc_config})


def test_sec006_private_access_must_be_on_and_public_cidrs_stated_and_allowed():
    allowed = {"eks-endpoint-restricted": {"eksPublicAccessCidrs": ["203.0.113.0/24"]}}
    assert messages("SEC006", endpoint(endpointPrivateAccess=True, publicAccessCidrs=["203.0.113.0/24"]), config=allowed) == []
    assert messages("SEC006", endpoint(endpointPrivateAccess=False, publicAccessCidrs=["203.0.113.0/24"]), config=allowed) == [
        "Cluster 'eks': vpcConfig.endpointPrivateAccess is False; allowed: True"
    ]
    assert messages("SEC006", endpoint(endpointPrivateAccess=True, publicAccessCidrs=[]), config=allowed) == [
        "Cluster 'eks': vpcConfig.publicAccessCidrs has 0 item(s); minimum 1"
    ]
    assert messages(
        "SEC006", endpoint(endpointPublicAccess=True, endpointPrivateAccess=True, publicAccessCidrs=["198.51.100.0/24"]), config=allowed
    ) == ["Cluster 'eks': vpcConfig.publicAccessCidrs has '198.51.100.0/24'; allowed: '203.0.113.0/24'"]
    assert messages("SEC006", made(CLUSTER, "eks", {})) == ["Cluster 'eks': vpcConfig is not set"]
    assert messages("SEC006", endpoint(publicAccessCidrs=["203.0.113.0/24"]), config=allowed) == [
        "Cluster 'eks': vpcConfig.endpointPrivateAccess is not set"
    ]


def test_sec006_does_not_apply_to_a_private_endpoint():
    result = report("SEC006", endpoint(endpointPublicAccess=False))
    assert result.violations == [] and result.not_applicable == 1


def test_sec011_the_required_log_types_follow_the_config():
    def cluster(*types: str) -> object:
        return made(CLUSTER, "eks", {"enabledClusterLogTypes": list(types)} if types else {})

    assert messages("SEC011", cluster("api", "audit", "authenticator")) == []
    assert messages("SEC011", cluster("api", "audit")) == ["Cluster 'eks': enabledClusterLogTypes is ['api', 'audit'] and lacks 'authenticator'"]
    assert messages("SEC011", cluster()) == ["Cluster 'eks': enabledClusterLogTypes is not set"]
    # None required (the config schema allows an empty list): nothing asked, and no crash (Cerberus refuses an empty `contains`).
    for nothing_required in (cluster(), cluster("api"), made(CLUSTER, "eks", {"enabledClusterLogTypes": "api"})):
        assert messages("SEC011", nothing_required, config={"eks-control-plane-logging": {"requiredClusterLogTypes": []}}) == []
    assert messages("SEC011", cluster("api"), config={"eks-control-plane-logging": {"requiredClusterLogTypes": ["api"]}}) == []
