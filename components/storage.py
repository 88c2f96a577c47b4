"""Storage: S3 buckets and, per FSx tier, a Lustre file system with its security group and S3 links.

Buckets block every kind of public access, keep versions when the tier asks,
and encrypt with S3-managed keys (FSx data-repository associations read and
write them without a KMS key grant). Each Lustre file system sits in the one
subnet its plan chose, is encrypted with a customer-managed KMS key when
persistent, and has its own security group: LNET (TCP 988 and 1018-1023) from
itself and from the cluster's nodes, and - EFA-enabled - all traffic to and
from itself and the nodes (aws-facts.md 3.4, 3.5). The nodes' side, the EKS
cluster security group, gets the matching ingress rules.
"""

from __future__ import annotations

from collections.abc import Mapping

import pulumi
import pulumi_aws as aws

from blueprints.records import record
from components.common import child_of, named_tags, pod_identity_role
from components.plan.storage import FSX_CONTROLLER_ACCOUNT, BucketPlan, FileSystemPlan, FsxClassPlan

LNET_PORTS = ((988, 988), (1018, 1023))
# What the controller needs to make and delete file systems (EKS user guide, "Amazon FSx for Lustre CSI driver").
FSX_PROVISIONER_POLICY = "AmazonFSxFullAccess"


@record
class StorageArgs:
    """The planned file systems and buckets, and what they attach to."""

    file_systems: tuple[FileSystemPlan, ...]
    buckets: tuple[BucketPlan, ...]
    vpc_id: pulumi.Input[str]
    subnet_ids: Mapping[str, pulumi.Input[str]]
    client_security_group_id: pulumi.Input[str]
    tags: Mapping[str, str]
    fsx_classes: tuple[FsxClassPlan, ...] = ()
    # The cluster (for the FSx CSI controller's Pod Identity association) and the IAM partition.
    cluster_name: pulumi.Input[str] | None = None
    partition: str = "aws"
    # cloud.protect_stateful: file systems, buckets and their KMS key refuse deletion until unprotected.
    protect: bool = True


@record
class ClassNetwork:
    """Where one FSx StorageClass's file systems go: the subnet and the security group the driver passes to FSx."""

    subnet_id: pulumi.Output[str]
    security_group_id: pulumi.Output[str]


@record
class FileSystemHandle:
    """What a Lustre client (the FSx CSI driver's static volumes) needs to mount one tier."""

    tier: str
    id: pulumi.Output[str]
    dns_name: pulumi.Output[str]
    mount_name: pulumi.Output[str]
    mount_path: str
    availability_zone: str
    efa: bool


def _path_slug(path: str) -> str:
    return path.strip("/").replace("/", "-").replace(".", "-").replace("_", "-") or "root"


class Storage(pulumi.ComponentResource):
    """Buckets by tier name (`bucket_names`) and file systems by tier name (`file_systems`)."""

    bucket_names: dict[str, pulumi.Output[str]]
    file_systems: dict[str, FileSystemHandle]

    def __init__(self, name: str, args: StorageArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("railyard:storage:Storage", name, None, opts)
        self._name, self._args = name, args
        self.bucket_names = {plan.tier: self._bucket(plan) for plan in args.buckets}
        key_arn = None
        served = [plan for plan in args.file_systems if plan.persistent and not plan.existing]
        if served:
            key = aws.kms.Key(
                f"{name}-fsx",
                description="Encryption at rest of the cluster's FSx for Lustre file systems",
                enable_key_rotation=True,
                tags=named_tags(args.tags, f"{name}-fsx"),
                # Unprotected once every tier it serves is (`protect: false`): the key goes with the last of them.
                opts=child_of(self, protect=args.protect and any(plan.tier.protect for plan in served)),
            )
            key_arn = key.arn
        self.file_systems = {plan.name: self._file_system(plan, key_arn) for plan in args.file_systems}
        self.class_networks = {
            plan.name: ClassNetwork(
                pulumi.Output.from_input(args.subnet_ids[plan.subnet_key]),
                self._security_group(f"{name}-class-{plan.name}", f"StorageClass {plan.name}", plan.tier.efa),
            )
            for plan in args.fsx_classes
        }
        if args.fsx_classes:
            self._provisioner_identity(name)
        self.register_outputs(
            {
                "bucketNames": self.bucket_names,
                "fileSystems": {
                    tier: {"id": handle.id, "dnsName": handle.dns_name, "mountName": handle.mount_name} for tier, handle in self.file_systems.items()
                },
            }
        )

    def _bucket(self, plan: BucketPlan) -> pulumi.Output[str]:
        if plan.existing:
            return pulumi.Output.from_input(plan.bucket_name)  # the team's bucket: linked by name, never created
        name = f"{self._name}-{plan.tier}"
        bucket = aws.s3.Bucket(
            name,
            bucket=plan.bucket_name,
            tags=named_tags(self._args.tags, plan.bucket_name),
            opts=child_of(self, protect=self._args.protect and plan.protect),
        )
        aws.s3.BucketPublicAccessBlock(
            f"{name}-public-access",
            bucket=bucket.id,
            block_public_acls=True,
            block_public_policy=True,
            ignore_public_acls=True,
            restrict_public_buckets=True,
            opts=child_of(self),
        )
        aws.s3.BucketServerSideEncryptionConfiguration(
            f"{name}-encryption",
            bucket=bucket.id,
            rules=[
                aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                    apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                        sse_algorithm="AES256"
                    )
                )
            ],
            opts=child_of(self),
        )
        if plan.versioning:
            aws.s3.BucketVersioning(
                f"{name}-versioning",
                bucket=bucket.id,
                versioning_configuration=aws.s3.BucketVersioningVersioningConfigurationArgs(status="Enabled"),
                opts=child_of(self),
            )
        return bucket.bucket

    def _provisioner_identity(self, name: str) -> None:
        """The FSx CSI controller's IAM role, which only EKS Pod Identity may assume, bound to its service account."""
        args = self._args
        assert args.cluster_name is not None, "StorageClasses need the cluster, for the controller's Pod Identity association"
        arn = pod_identity_role(
            self,
            f"{name}-fsx-csi-role",
            f"EKS Pod Identity role of the FSx CSI controller ({FSX_CONTROLLER_ACCOUNT[0]}/{FSX_CONTROLLER_ACCOUNT[1]})",
            f"arn:{args.partition}:iam::aws:policy/{FSX_PROVISIONER_POLICY}",
            args.tags,
        )
        aws.eks.PodIdentityAssociation(
            f"{name}-fsx-csi",
            cluster_name=args.cluster_name,
            namespace=FSX_CONTROLLER_ACCOUNT[0],
            service_account=FSX_CONTROLLER_ACCOUNT[1],
            role_arn=arn,
            tags=named_tags(args.tags, f"{name}-fsx-csi"),
            opts=child_of(self),
        )

    def _security_group(self, name: str, label: str, efa: bool) -> pulumi.Output[str]:
        """A file system's group (LNET in, everything to itself and the nodes out), and the nodes' matching rules."""
        args = self._args
        clients = [args.client_security_group_id]
        ingress = [
            aws.ec2.SecurityGroupIngressArgs(
                protocol="tcp",
                from_port=low,
                to_port=high,
                self=True,
                security_groups=clients,
                description="Lustre LNET from the file system and its clients",
            )
            for low, high in LNET_PORTS
        ]
        if efa:
            ingress.append(
                aws.ec2.SecurityGroupIngressArgs(
                    protocol="-1",
                    from_port=0,
                    to_port=0,
                    self=True,
                    security_groups=clients,
                    description="EFA-enabled FSx: all traffic from itself and its clients",
                )
            )
        egress = [
            aws.ec2.SecurityGroupEgressArgs(
                protocol="-1", from_port=0, to_port=0, self=True, security_groups=clients, description="To itself and its clients"
            )
        ]
        group = aws.ec2.SecurityGroup(
            f"{name}-sg",
            vpc_id=args.vpc_id,
            description=f"FSx for Lustre {label}",
            ingress=ingress,
            egress=egress,
            tags=named_tags(args.tags, f"{name}-sg"),
            opts=child_of(self),
        )
        self._client_rules(name, label, group.id, efa)
        return group.id

    @staticmethod
    def _lustre_rules(efa: bool) -> list[tuple[str, int | None, int | None, str]]:
        """(protocol, from, to, name suffix) of the Lustre path: LNET's ports, and all traffic for an EFA-enabled file system."""
        return [("tcp", low, high, f"lnet-{low}") for low, high in LNET_PORTS] + ([("-1", None, None, "efa")] if efa else [])

    def _client_rules(self, name: str, label: str, file_system_group: pulumi.Input[str], efa: bool) -> None:
        """The nodes' side of the path: the cluster security group admits the file system's group on the Lustre ports."""
        args = self._args
        for protocol, low, high, suffix in self._lustre_rules(efa):
            aws.vpc.SecurityGroupIngressRule(
                f"{name}-clients-{suffix}",
                security_group_id=args.client_security_group_id,
                referenced_security_group_id=file_system_group,
                ip_protocol=protocol,
                from_port=low,
                to_port=high,
                description=f"From FSx for Lustre {label}",
                tags=named_tags(args.tags, f"{name}-clients-{suffix}"),
                opts=child_of(self),
            )

    def _existing_path(self, name: str, label: str, file_system_group: str, efa: bool) -> None:
        """The same path to a team's file system: its group admits the nodes (and may reach them), and the nodes admit it."""
        args = self._args
        directions = (
            (aws.vpc.SecurityGroupIngressRule, "from-clients", f"Lustre clients of FSx for Lustre {label} (nodes of the EKS cluster)"),
            (aws.vpc.SecurityGroupEgressRule, "to-clients", f"FSx for Lustre {label} to its clients (nodes of the EKS cluster)"),
        )
        for protocol, low, high, suffix in self._lustre_rules(efa):
            for rule_type, direction, description in directions:
                rule_type(
                    f"{name}-{direction}-{suffix}",
                    security_group_id=file_system_group,
                    referenced_security_group_id=args.client_security_group_id,
                    ip_protocol=protocol,
                    from_port=low,
                    to_port=high,
                    description=description,
                    tags=named_tags(args.tags, f"{name}-{direction}-{suffix}"),
                    opts=child_of(self),
                )
        self._client_rules(name, label, file_system_group, efa)

    def _file_system(self, plan: FileSystemPlan, key_arn: pulumi.Output[str] | None) -> FileSystemHandle:
        name, tier = f"{self._name}-{plan.name}", plan.tier
        if tier.existing is not None:
            # The team's file system: a static volume names it; railyard creates only the network path to it.
            found = tier.existing
            self._existing_path(name, plan.name, found.security_group_id, tier.efa)
            ids = (pulumi.Output.from_input(found.id), pulumi.Output.from_input(found.dns_name), pulumi.Output.from_input(found.mount_name))
            return FileSystemHandle(plan.name, *ids, tier.mount_path, plan.availability_zone, tier.efa)
        metadata = None
        if tier.metadata is not None:
            metadata = aws.fsx.LustreFileSystemMetadataConfigurationArgs(mode=tier.metadata.mode.upper(), iops=tier.metadata.iops)
        file_system = aws.fsx.LustreFileSystem(
            name,
            # pulumi-aws 7 flattens the one-subnet list to a single id (still `subnetIds` on the wire).
            subnet_ids=self._args.subnet_ids[plan.subnet_key],
            security_group_ids=[self._security_group(name, plan.name, tier.efa)],
            deployment_type=tier.deployment_type,
            storage_type=tier.storage_type,
            storage_capacity=tier.capacity_gib,
            per_unit_storage_throughput=tier.throughput_mbps_per_tib,
            efa_enabled=True if tier.efa else None,
            metadata_configuration=metadata,
            file_system_type_version=tier.file_system_type_version,
            data_compression_type="LZ4",
            kms_key_id=key_arn if plan.persistent else None,
            tags={**named_tags(self._args.tags, name), **plan.tags},
            # A tier that accepts replacement is left unprotected, or the engine would refuse the delete it implies; one that
            # says `protect: false` is about to be removed (the engine deletes only what its last `up` left unprotected).
            opts=child_of(self, protect=self._args.protect and tier.protect and not tier.accept_replacement),
        )
        for repository in plan.data_repositories:
            self._data_repository(name, file_system, repository)
        return FileSystemHandle(
            plan.name, file_system.id, file_system.dns_name, file_system.mount_name, tier.mount_path, plan.availability_zone, tier.efa
        )

    def _data_repository(self, name: str, file_system: aws.fsx.LustreFileSystem, repository) -> None:
        bucket = self.bucket_names[repository.bucket]
        s3 = aws.fsx.DataRepositoryAssociationS3Args(
            auto_import_policy=aws.fsx.DataRepositoryAssociationS3AutoImportPolicyArgs(events=list(repository.import_events))
            if repository.import_events
            else None,
            auto_export_policy=aws.fsx.DataRepositoryAssociationS3AutoExportPolicyArgs(events=list(repository.export_events))
            if repository.export_events
            else None,
        )
        aws.fsx.DataRepositoryAssociation(
            f"{name}-{_path_slug(repository.file_system_path)}",
            file_system_id=file_system.id,
            file_system_path=repository.file_system_path,
            data_repository_path=pulumi.Output.concat("s3://", bucket, "/", repository.prefix),
            batch_import_meta_data_on_create=True,
            s3=s3,
            tags=named_tags(self._args.tags, f"{name}-{_path_slug(repository.file_system_path)}"),
            opts=child_of(self),
        )
