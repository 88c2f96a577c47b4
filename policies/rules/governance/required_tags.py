"""GOV003: every taggable resource carries the required tags, each non-empty.

Cost reports and ownership lookups group by tags; a resource without
`owner`, `cost-center` and `environment` (the default `requiredTags`) is
spend nobody answers for. The rule reads a resource's own `tags` input:
provider-level default tags are not visible to a policy at preview time.
`TAGGABLE_TYPES` lists the pulumi-aws types that take `tags` among those an
accelerator cluster uses; tests/policies check the list against pulumi-aws
and against every type the examples compile to.
"""

from policies.config import REQUIRED_TAGS
from policies.rule import SchemaRule

TAGGABLE_TYPES = (
    "aws:cloudwatch/eventRule:EventRule",
    "aws:cloudwatch/logGroup:LogGroup",
    "aws:ebs/volume:Volume",
    "aws:ec2/capacityBlockReservation:CapacityBlockReservation",
    "aws:ec2/capacityReservation:CapacityReservation",
    "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup",
    "aws:ec2/eip:Eip",
    "aws:ec2/flowLog:FlowLog",
    "aws:ec2/internetGateway:InternetGateway",
    "aws:ec2/launchTemplate:LaunchTemplate",
    "aws:ec2/natGateway:NatGateway",
    "aws:ec2/placementGroup:PlacementGroup",
    "aws:ec2/routeTable:RouteTable",
    "aws:ec2/securityGroup:SecurityGroup",
    "aws:ec2/subnet:Subnet",
    "aws:ec2/vpc:Vpc",
    "aws:ec2/vpcEndpoint:VpcEndpoint",
    "aws:eks/accessEntry:AccessEntry",
    "aws:eks/addon:Addon",
    "aws:eks/cluster:Cluster",
    "aws:eks/nodeGroup:NodeGroup",
    "aws:eks/podIdentityAssociation:PodIdentityAssociation",
    "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation",
    "aws:fsx/lustreFileSystem:LustreFileSystem",
    "aws:iam/instanceProfile:InstanceProfile",
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider",
    "aws:iam/policy:Policy",
    "aws:iam/role:Role",
    "aws:iam/serviceLinkedRole:ServiceLinkedRole",
    "aws:kms/key:Key",
    "aws:resourcegroups/group:Group",
    "aws:s3/bucket:Bucket",
    "aws:s3/bucketV2:BucketV2",
    "aws:sqs/queue:Queue",
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
)


def tags_schema(settings):
    """`tags` must exist and hold every required key with a non-empty string."""
    required = {key: {"required": True, "type": "string", "empty": False} for key in settings[REQUIRED_TAGS.key]}
    return {"tags": {"type": "dict", "required": True, "schema": required}}


RULE = SchemaRule(
    id="GOV003",
    name="required-tags",
    title="Taggable resources carry the required tags (owner, cost-center, environment)",
    domain="governance",
    severity="low",
    knobs=(REQUIRED_TAGS,),
    schemas={resource_type: tags_schema for resource_type in TAGGABLE_TYPES},
    fix="pass the blueprint's tags (metadata owner, cost_center, environment) to this resource's tags",
)
