"""The VPC: subnets per zone and per EFA fabric domain, NAT egress, the S3 endpoint, the EFA security group, the flow log.

Nodes live only in private subnets. Public subnets exist for the NAT gateways
(one per zone, so losing a zone doesn't cut the others' egress) and for
internet-facing load balancers. Each EFA fabric domain has a private subnet of
its own. A failure domain in a Local Zone has its subnets there, behind the
zone group's opt-in and routed through an Availability Zone's private route
table (topology/cluster/local_zones.py). The EFA security group allows all traffic to and from itself, in and
out, which EFA's OS-bypass traffic needs (aws-facts.md 2.2); it is attached to
every interface of an EFA node next to the EKS cluster security group.

The VPC's default security group is taken over with no rules at all, so
nothing placed in it by mistake can talk (Checkov CKV2_AWS_12). The flow log
records every accepted and rejected flow to a CloudWatch Logs group kept for
the blueprint's `cloud.flow_logs.retention_days`, delivered by a role only the
VPC Flow Logs service can assume, allowed to write to that group alone (AWS's
EKS best-practices guide, network security; Checkov CKV2_AWS_11, cfn-nag W60).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import field
from typing import Any

import pulumi
import pulumi_aws as aws

from blueprints.models.base import is_zone_id
from blueprints.records import record
from components.common import child_of, named_tags
from topology.cluster.subnets import SubnetPlan

ANYWHERE = "0.0.0.0/0"


@record
class NetworkArgs:
    """What the network is made from: the VPC block, the carved subnets and the tags."""

    region: str
    vpc_cidr: str
    availability_zones: tuple[str, ...]
    subnets: tuple[SubnetPlan, ...]
    efa_security_group: bool
    tags: Mapping[str, str]
    pod_cidrs: tuple[str, ...] = ()
    flow_log_retention_days: int | None = None
    # cloud.existing_vpc: place nodes in its subnets (each plan's `existing_id`) and create no network.
    existing_vpc_id: str | None = None
    # cloud.secondary_cidrs: more blocks for node subnets.
    secondary_cidrs: tuple[str, ...] = ()
    # Each Local Zone a subnet is in: its zone group (opted into), and the zone whose private route table it uses.
    zone_groups: Mapping[str, str] = field(default_factory=dict)
    route_zones: Mapping[str, str] = field(default_factory=dict)


class Network(pulumi.ComponentResource):
    """The cluster's VPC. `subnet_ids` maps each planned subnet key to its id."""

    vpc_id: pulumi.Output[str]
    subnet_ids: dict[str, pulumi.Output[str]]
    efa_security_group_id: pulumi.Output[str] | None

    def __init__(self, name: str, args: NetworkArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("railyard:network:Network", name, None, opts)
        self._name, self._args = name, args
        if args.existing_vpc_id is not None:
            # Someone else's VPC: its subnets, routes, egress, endpoints and flow logs are theirs; railyard adds only
            # the EFA security group its nodes need.
            self.vpc_id = pulumi.Output.from_input(args.existing_vpc_id)
            self.subnet_ids = {plan.key: pulumi.Output.from_input(plan.existing_id or "") for plan in args.subnets}
            self.efa_security_group_id = self._efa_security_group() if args.efa_security_group else None
        else:
            self._create()
        self.register_outputs({"vpcId": self.vpc_id, "subnetIds": self.subnet_ids, "efaSecurityGroupId": self.efa_security_group_id})

    def _create(self) -> None:
        """The VPC, its subnets, egress, private routes, the S3 endpoint, the EFA group, the default group and the flow log."""
        name, args = self._name, self._args
        vpc = aws.ec2.Vpc(
            f"{name}-vpc",
            cidr_block=args.vpc_cidr,
            enable_dns_hostnames=True,
            enable_dns_support=True,
            tags=named_tags(args.tags, name),
            opts=child_of(self),
        )
        self.vpc_id = vpc.id
        # Secondary blocks: node subnets past the primary block's room, and CNI custom networking's pod subnets.
        blocks = [("block", cidr) for cidr in args.secondary_cidrs] + [("pods", cidr) for cidr in args.pod_cidrs]
        self._blocks = {
            cidr: aws.ec2.VpcIpv4CidrBlockAssociation(
                f"{name}-{role}-{cidr.replace('.', '-').replace('/', '-')}", vpc_id=vpc.id, cidr_block=cidr, opts=child_of(self)
            )
            for role, cidr in blocks
        }
        self._opt_ins = {
            group: aws.ec2.AvailabilityZoneGroup(f"{name}-zone-group-{group}", group_name=group, opt_in_status="opted-in", opts=child_of(self))
            for group in dict.fromkeys(args.zone_groups.values())
        }
        self.subnet_ids = {plan.key: self._subnet(plan) for plan in args.subnets}
        nat_ids = self._egress()
        private_tables = self._private_routes(nat_ids)
        aws.ec2.VpcEndpoint(
            f"{name}-s3",
            vpc_id=vpc.id,
            service_name=f"com.amazonaws.{args.region}.s3",
            vpc_endpoint_type="Gateway",
            route_table_ids=private_tables,
            tags=named_tags(args.tags, f"{name}-s3"),
            opts=child_of(self),
        )
        self.efa_security_group_id = self._efa_security_group() if args.efa_security_group else None
        aws.ec2.DefaultSecurityGroup(f"{name}-default-sg", vpc_id=vpc.id, tags=named_tags(args.tags, f"{name}-default-sg"), opts=child_of(self))
        if args.flow_log_retention_days is not None:
            self._flow_log(args.flow_log_retention_days)

    def _subnet(self, plan: SubnetPlan) -> pulumi.Output[str]:
        name = f"{self._name}-{plan.key}"
        # The tags tell the AWS load balancer controller which subnets face the internet.
        role = {"kubernetes.io/role/elb": "1"} if plan.public else {"kubernetes.io/role/internal-elb": "1"}
        block = self._blocks.get(plan.block or "")
        opt_in = self._opt_ins.get(self._args.zone_groups.get(plan.availability_zone, ""))
        after = [resource for resource in (block, opt_in) if resource is not None]
        if plan.kind == "pods":
            role = {}
        # CreateSubnet takes the zone by name or by id (AvailabilityZoneId); the blueprint's form is passed through.
        zone_key = "availability_zone_id" if is_zone_id(plan.availability_zone) else "availability_zone"
        subnet = aws.ec2.Subnet(
            name,
            vpc_id=self.vpc_id,
            cidr_block=plan.cidr,
            **{zone_key: plan.availability_zone},
            map_public_ip_on_launch=plan.public,
            tags={**named_tags(self._args.tags, name), **role},
            opts=child_of(self, depends_on=after or None),
        )
        return subnet.id

    def _egress(self) -> dict[str, pulumi.Output[str]]:
        """Internet gateway, the public route table, and a NAT gateway per zone; returns NAT ids by zone."""
        name, args = self._name, self._args
        gateway = aws.ec2.InternetGateway(f"{name}-igw", vpc_id=self.vpc_id, tags=named_tags(args.tags, f"{name}-igw"), opts=child_of(self))
        public = aws.ec2.RouteTable(
            f"{name}-public",
            vpc_id=self.vpc_id,
            routes=[aws.ec2.RouteTableRouteArgs(cidr_block=ANYWHERE, gateway_id=gateway.id)],
            tags=named_tags(args.tags, f"{name}-public"),
            opts=child_of(self),
        )
        nat_ids = {}
        for zone in args.availability_zones:
            key = f"public-{zone}"
            aws.ec2.RouteTableAssociation(f"{name}-{key}", subnet_id=self.subnet_ids[key], route_table_id=public.id, opts=child_of(self))
            address = aws.ec2.Eip(f"{name}-nat-{zone}", domain="vpc", tags=named_tags(args.tags, f"{name}-nat-{zone}"), opts=child_of(self))
            nat = aws.ec2.NatGateway(
                f"{name}-nat-{zone}",
                allocation_id=address.id,
                subnet_id=self.subnet_ids[key],
                tags=named_tags(args.tags, f"{name}-nat-{zone}"),
                opts=child_of(self, depends_on=[gateway]),
            )
            nat_ids[zone] = nat.id
        return nat_ids

    def _private_routes(self, nat_ids: dict[str, pulumi.Output[str]]) -> list[pulumi.Output[str]]:
        """A private route table per zone (default route to that zone's NAT); returns their ids."""
        name, args = self._name, self._args
        tables = {}
        for zone in args.availability_zones:
            table = aws.ec2.RouteTable(
                f"{name}-private-{zone}",
                vpc_id=self.vpc_id,
                routes=[aws.ec2.RouteTableRouteArgs(cidr_block=ANYWHERE, nat_gateway_id=nat_ids[zone])],
                tags=named_tags(args.tags, f"{name}-private-{zone}"),
                opts=child_of(self),
            )
            tables[zone] = table.id
        for plan in args.subnets:
            if not plan.public:
                aws.ec2.RouteTableAssociation(
                    f"{name}-{plan.key}",
                    subnet_id=self.subnet_ids[plan.key],
                    route_table_id=tables[args.route_zones.get(plan.availability_zone, plan.availability_zone)],
                    opts=child_of(self),
                )
        return list(tables.values())

    def _efa_security_group(self) -> pulumi.Output[str]:
        name = f"{self._name}-efa"
        everything_from_itself: dict[str, Any] = dict(
            protocol="-1", from_port=0, to_port=0, self=True, description="EFA OS-bypass traffic needs all traffic within this group"
        )
        group = aws.ec2.SecurityGroup(
            name,
            vpc_id=self.vpc_id,
            description="EFA: all traffic to and from itself",
            ingress=[aws.ec2.SecurityGroupIngressArgs(**everything_from_itself)],
            egress=[aws.ec2.SecurityGroupEgressArgs(**everything_from_itself)],
            tags=named_tags(self._args.tags, name),
            opts=child_of(self),
        )
        return group.id

    def _flow_log(self, retention_days: int) -> None:
        """The VPC flow log (all traffic) to a log group of its own, through a delivery role scoped to that group."""
        name, args = self._name, self._args
        group = aws.cloudwatch.LogGroup(
            f"{name}-flow-logs", retention_in_days=retention_days, tags=named_tags(args.tags, f"{name}-flow-logs"), opts=child_of(self)
        )
        trust = {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"Service": "vpc-flow-logs.amazonaws.com"}, "Action": "sts:AssumeRole"}],
        }
        role = aws.iam.Role(
            f"{name}-flow-logs", assume_role_policy=json.dumps(trust), tags=named_tags(args.tags, f"{name}-flow-logs"), opts=child_of(self)
        )
        actions = ["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogGroups", "logs:DescribeLogStreams"]
        aws.iam.RolePolicy(
            f"{name}-flow-logs",
            role=role.id,
            opts=child_of(self),
            policy=group.arn.apply(
                lambda arn: json.dumps(
                    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": [arn, f"{arn}:*"]}]}
                )
            ),
        )
        aws.ec2.FlowLog(
            f"{name}-flow-log",
            vpc_id=self.vpc_id,
            traffic_type="ALL",
            log_destination_type="cloud-watch-logs",
            log_destination=group.arn,
            iam_role_arn=role.arn,
            max_aggregation_interval=600,
            tags=named_tags(args.tags, f"{name}-flow-log"),
            opts=child_of(self),
        )
