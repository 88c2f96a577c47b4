"""A pool's managed node groups, each with its own launch template.

What the launch template carries, and why (aws-facts.md 2.1, 4.1, 4.3):

* the network interfaces planned by `topology.cluster.interfaces`, each with the
  cluster security group (EKS doesn't add it when a template names interface
  security groups) and, on EFA nodes, the EFA group; none at template level;
* no public IP: a single interface says so explicitly, and several interfaces
  must leave `associatePublicIpAddress` unset (EC2 rejects it there) - the
  private subnets assign none;
* IMDSv2 required, with a hop limit of 2 so pods can still reach it;
* the instance type, the reservation target and, for a Capacity Block, the
  `capacity-block` market type; the node group's capacity type matches;
* the AL2023 user data that assembles local NVMe into RAID0 and, on nodes
  that mount an EFA-enabled FSx tier, sets up LNet over EFA;
* for a pool on a custom AMI, its image id, and user data that also joins the
  node to the cluster (the node group then names no AMI type: EKS rejects
  one beside an image id);
* a gp3 root volume encrypted with the cluster's node-volume KMS key (a node group with a template can't set `diskSize`).

It never carries what a managed node group forbids in a custom template:
subnets, an IAM instance profile, spot market options, hibernation or
shutdown behaviour, or (unless the pool names a custom AMI) an image id: the
node group's AMI type picks the EKS AMI, so EKS keeps bootstrapping the node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pulumi
import pulumi_aws as aws

from blueprints.records import record
from components.common import child_of, named_tags
from components.plan.user_data import Bootstrap, encoded_user_data
from topology.cluster.node_groups import MAX_UNAVAILABLE_PERCENT, ROOT_DEVICE, NodeGroupPlan

# Says on a launch template that its placement group is the one its reservation was created in (COR004 reads it).
RESERVATION_PLACEMENT_TAG = "railyard:reservation-placement-group"


def reservation_placement_tag(placement_group: str | None) -> dict[str, str]:
    """The tag naming a reservation's own placement group, or none."""
    return {RESERVATION_PLACEMENT_TAG: placement_group} if placement_group else {}


# the root device of the EKS AL2023 AMIs
TAGGED_AT_LAUNCH = ("instance", "volume", "network-interface")


@record
class NodePoolArgs:
    """A pool's planned node groups and the cluster resources they attach to."""

    cluster_name: pulumi.Input[str]
    node_role_arn: pulumi.Input[str]
    groups: tuple[NodeGroupPlan, ...]
    subnet_ids: Mapping[str, pulumi.Input[str]]
    cluster_security_group_id: pulumi.Input[str]
    efa_security_group_id: pulumi.Input[str] | None
    placement_group_names: Mapping[str, pulumi.Input[str]]
    tags: Mapping[str, str]
    volume_key_arn: pulumi.Input[str]
    after: Sequence[pulumi.Resource] = ()
    # EKS node auto repair (kubernetes.node_auto_repair): replaces or reboots nodes whose kubelet, GPU or Neuron fails.
    auto_repair: bool = False
    # The cluster's endpoint, CA and service CIDR, which a custom-AMI node's NodeConfig carries.
    endpoint: pulumi.Input[str] | None = None
    certificate_authority: pulumi.Input[str] | None = None
    service_cidr: pulumi.Input[str] | None = None
    # Where the pool's reservations live, for the ARNs of a reservation group railyard makes.
    region: str = ""
    partition: str = "aws"


class NodePool(pulumi.ComponentResource):
    """One pool: a launch template and a managed node group per failure domain."""

    node_group_names: dict[str, pulumi.Output[str]]
    node_groups: dict[str, aws.eks.NodeGroup]

    def __init__(self, name: str, args: NodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("railyard:compute:NodePool", name, None, opts)
        self._args = args
        self.node_group_names = {}
        self.node_groups = {}
        self._reservation_group = self._group_reservations(name)
        for group in args.groups:
            child = f"{name}-{group.child_suffix}"
            template = self._launch_template(child, group)
            node_group = aws.eks.NodeGroup(
                child,
                cluster_name=args.cluster_name,
                node_group_name=group.name,
                node_role_arn=args.node_role_arn,
                subnet_ids=[args.subnet_ids[key] for key in group.subnet_keys],
                # A launch template with an image id takes no AMI type (CreateNodegroup `amiType`: "don't specify").
                ami_type=None if group.ami_id else group.ami_type,
                # The nodes follow the control plane (or the pool's held version); EKS takes none beside a custom AMI.
                version=group.kubernetes_version,
                capacity_type=group.capacity_type,
                scaling_config=aws.eks.NodeGroupScalingConfigArgs(min_size=group.min_size, desired_size=group.desired_size, max_size=group.max_size),
                update_config=aws.eks.NodeGroupUpdateConfigArgs(
                    max_unavailable_percentage=MAX_UNAVAILABLE_PERCENT, update_strategy=group.update_strategy
                ),
                launch_template=aws.eks.NodeGroupLaunchTemplateArgs(id=template.id, version=template.latest_version.apply(str)),
                labels=dict(group.labels),
                # Sent either way: the input is optional and computed, so leaving it out keeps what EKS has (repair on).
                node_repair_config=aws.eks.NodeGroupNodeRepairConfigArgs(enabled=args.auto_repair),
                taints=[aws.eks.NodeGroupTaintArgs(key=taint.key, value=taint.value or None, effect=taint.eks_effect) for taint in group.taints]
                or None,
                tags=named_tags(args.tags, group.name),
                # A node group keeps its name, and a reservation has no room for a second copy. EKS's scheduled
                # actions own a Capacity Block group's desired size; Pulumi must not set it back. A large group rolls
                # for longer than the provider's 60-minute wait: wait for its waves (topology.cluster.update_time).
                opts=child_of(
                    self,
                    delete_before_replace=True,
                    custom_timeouts=pulumi.CustomTimeouts(**group.update_time.custom_timeouts()),
                    depends_on=list(args.after) or None,
                    ignore_changes=["scalingConfig.desiredSize"] if group.desired_owned_by_eks else None,
                ),
            )
            if group.scale_up_at is not None:
                self._block_start(child, group, node_group)
            self.node_group_names[group.name] = node_group.node_group_name
            self.node_groups[group.name] = node_group
        self.register_outputs({"nodeGroupNames": self.node_group_names})

    def _group_reservations(self, name: str) -> pulumi.Output[str] | None:
        """The pool's capacity reservation group, when it names reservations for railyard to group: the group's ARN.

        An AWS Resource Group with the `AWS::EC2::CapacityReservationPool` configuration, accepting only
        capacity reservations (EC2 user guide, "Create a Capacity Reservation group"), plus one membership per
        reservation. The ARNs are the account's own reservations': a shared reservation belongs to another
        account, so a group of those is made by its owner and named by `group_arn`.
        """
        members = next((group.reservation_members for group in self._args.groups if group.reservation_members), ())
        if not members:
            return None
        args = self._args
        blocks = any(group.capacity_type == "CAPACITY_BLOCK" for group in args.groups)
        pool = args.groups[0].pool
        pool_parameters = (
            [
                aws.resourcegroups.GroupConfigurationParameterArgs(name="instance-type", values=[args.groups[0].instance_type]),
                aws.resourcegroups.GroupConfigurationParameterArgs(name="reservation-type", values=["capacity-block"]),
            ]
            if blocks
            else None
        )
        group = aws.resourcegroups.Group(
            f"{name}-reservations",
            # Resource Groups names: letters, digits and _.- only, never starting with "aws" (botocore CreateGroup Name).
            name=f"railyard-{name}",
            description=f"Capacity reservations of pool {pool}",
            configurations=[
                aws.resourcegroups.GroupConfigurationArgs(type="AWS::EC2::CapacityReservationPool", parameters=pool_parameters),
                aws.resourcegroups.GroupConfigurationArgs(
                    type="AWS::ResourceGroups::Generic",
                    parameters=[
                        aws.resourcegroups.GroupConfigurationParameterArgs(name="allowed-resource-types", values=["AWS::EC2::CapacityReservation"])
                    ],
                ),
            ],
            tags=named_tags(args.tags, f"railyard-{name}"),
            opts=child_of(self),
        )
        account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self)).account_id
        memberships = [
            aws.resourcegroups.Resource(
                f"{name}-reservations-{reservation}",
                group_arn=group.arn,
                resource_arn=pulumi.Output.concat(f"arn:{args.partition}:ec2:{args.region}:", account, f":capacity-reservation/{reservation}"),
                opts=child_of(self),
            )
            for reservation in members
        ]
        # Launch templates name the group once every reservation is in it.
        return pulumi.Output.all(group.arn, *(member.id for member in memberships)).apply(lambda values: str(values[0]))

    def _block_start(self, name: str, group: NodeGroupPlan, node_group: aws.eks.NodeGroup) -> None:
        """The scheduled action that scales a Capacity Block group up when its block starts (EKS does only the scale-down)."""
        assert group.scale_up_at is not None
        aws.autoscaling.Schedule(
            f"{name}-block-start",
            scheduled_action_name="railyard-capacity-block-start",
            # EKS sets a created node group's resources and ASGs (pulumi-aws types the output Optional).
            autoscaling_group_name=node_group.resources.apply(lambda resources: resources[0].autoscaling_groups[0].name),
            start_time=group.scale_up_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            min_size=0,
            max_size=group.max_size,
            desired_capacity=group.max_size,
            opts=child_of(self),
        )

    def _interfaces(self, group: NodeGroupPlan) -> list[aws.ec2.LaunchTemplateNetworkInterfaceArgs]:
        groups: Sequence[pulumi.Input[str]] = [self._args.cluster_security_group_id]
        if group.efa_interfaces:
            efa = self._args.efa_security_group_id
            assert efa is not None, "the network makes the EFA security group when the plan needs EFA"
            groups = [*groups, efa]
        single = len(group.interfaces) == 1
        return [
            aws.ec2.LaunchTemplateNetworkInterfaceArgs(
                network_card_index=interface.network_card_index,
                device_index=interface.device_index,
                interface_type=interface.interface_type,
                security_groups=list(groups),
                delete_on_termination="true",
                associate_public_ip_address="false" if single else None,
            )
            for interface in group.interfaces
        ]

    def _user_data(self, group: NodeGroupPlan) -> pulumi.Input[str] | None:
        """The node's user data: EKS adds the bootstrap to an EKS AMI's; a custom AMI's carries its own."""
        if group.ami_id is None:
            return encoded_user_data(group.raid0, group.local_mount_path, group.lustre_efa_interfaces, group.max_pods)
        args = self._args
        assert args.endpoint is not None and args.certificate_authority is not None and args.service_cidr is not None, (
            "a custom AMI's node group needs the cluster's endpoint, CA and service CIDR"
        )

        def rendered(cluster: list[str]) -> str:
            bootstrap = Bootstrap(cluster[0], cluster[1], cluster[2], cluster[3], group.labels, group.taints)
            user_data = encoded_user_data(group.raid0, group.local_mount_path, group.lustre_efa_interfaces, group.max_pods, bootstrap)
            assert user_data is not None, "a bootstrap NodeConfig is never empty"
            return user_data

        return pulumi.Output.all(args.cluster_name, args.endpoint, args.certificate_authority, args.service_cidr).apply(rendered)

    def _launch_template(self, name: str, group: NodeGroupPlan) -> aws.ec2.LaunchTemplate:
        args = self._args
        reservation = market = placement = None
        group_arn = group.reservation_group_arn or (self._reservation_group if group.reservation_members else None)
        if group.reservation_id is not None or group_arn is not None:
            reservation = aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(
                capacity_reservation_target=aws.ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
                    capacity_reservation_id=group.reservation_id, capacity_reservation_resource_group_arn=group_arn
                )
            )
        if group.market_type is not None:
            market = aws.ec2.LaunchTemplateInstanceMarketOptionsArgs(market_type=group.market_type)
        if group.reservation_placement_group is not None:
            # The reservation was created in this cluster placement group: only instances launched into it match.
            placement = aws.ec2.LaunchTemplatePlacementArgs(group_name=group.reservation_placement_group)
        elif group.placement_key is not None and group.placement_key in args.placement_group_names:
            placement = aws.ec2.LaunchTemplatePlacementArgs(group_name=args.placement_group_names[group.placement_key])
        return aws.ec2.LaunchTemplate(
            f"{name}-template",
            description=f"{group.instance_type} nodes of node group {group.name}",
            instance_type=group.instance_type,
            network_interfaces=self._interfaces(group),
            metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
                http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=2
            ),
            block_device_mappings=[
                aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
                    device_name=ROOT_DEVICE,
                    ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                        volume_size=group.root_volume_gib,
                        volume_type="gp3",
                        iops=group.root_volume_iops,
                        throughput=group.root_volume_throughput,
                        encrypted="true",
                        kms_key_id=args.volume_key_arn,
                        delete_on_termination="true",
                    ),
                )
            ],
            image_id=group.ami_id,
            user_data=self._user_data(group),
            capacity_reservation_specification=reservation,
            instance_market_options=market,
            placement=placement,
            update_default_version=True,
            tag_specifications=[
                aws.ec2.LaunchTemplateTagSpecificationArgs(resource_type=kind, tags=named_tags(args.tags, group.name)) for kind in TAGGED_AT_LAUNCH
            ],
            tags={**named_tags(args.tags, name), **reservation_placement_tag(group.reservation_placement_group)},
            opts=child_of(self),
        )
