"""Storage in Kubernetes: the FSx CSI driver, a bound PersistentVolume + claim per FSx tier, and the gp3 default class.

The storage component creates each FSx for Lustre file system; here each tier
some pool mounts becomes a static PersistentVolume naming that file system
(`volumeHandle` = its id, `dnsname`, `mountname`) and a PersistentVolumeClaim
bound to it by name, so no StorageClass can provision a second file system
behind the user's back. Static volumes need no AWS API calls from the driver,
so its controller needs no IAM role. The driver's node plugin, which does the
mounting, runs where `topology.cluster.mounts` placed it: on exactly the
pools that mount an FSx tier, tolerating their taints (aws-facts.md 3.8).
An `fsx_lustre_class` tier becomes a StorageClass the driver provisions
from: each claim gets its own file system, in the subnet and behind the
security group the storage component made for the class; the controller
then makes FSx calls, with the Pod Identity role the storage component bound
to its service account (named explicitly in the release for that reason).
With the EBS CSI driver add-on, `gp3` is the default StorageClass: encrypted
(with the account's AWS-managed EBS key, which the driver's managed policy may
use), bound when a pod is scheduled so the volume lands in the pod's zone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import pulumi
import pulumi_kubernetes as k8s

from blueprints.models import Blueprint
from blueprints.models.storage import FsxLustreClass
from blueprints.records import record
from blueprints.rules.names import cluster_name
from components.kubernetes import charts
from components.kubernetes.releases import ReleasePlan, emit_release
from components.plan.storage import FSX_CONTROLLER_ACCOUNT
from components.plan.tags import CLUSTER_NAME_TAG
from topology.cluster.mounts import AGENT_NOT_READY, MountPlacement


class FileSystemRef(Protocol):
    """What the layer needs of a file system the storage component made (strings or Outputs)."""

    @property
    def id(self) -> pulumi.Input[str]: ...
    @property
    def dns_name(self) -> pulumi.Input[str]: ...
    @property
    def mount_name(self) -> pulumi.Input[str]: ...


@record
class VolumePlan:
    """One FSx tier as a PersistentVolume (`fsx-<tier>`) and a claim (`<tier>`) in the workload namespace."""

    tier: str
    capacity_gib: int
    namespace: str

    @property
    def volume_name(self) -> str:
        """The cluster-scoped PersistentVolume's name."""
        return f"fsx-{self.tier}"

    @property
    def claim_name(self) -> str:
        """The PersistentVolumeClaim's name; pods mount the tier by it."""
        return self.tier


class ClassNetworkRef(Protocol):
    """Where an FSx StorageClass's file systems go (strings or Outputs): what the storage component made for it."""

    @property
    def subnet_id(self) -> pulumi.Input[str]: ...
    @property
    def security_group_id(self) -> pulumi.Input[str]: ...


@record
class FsxClassParameters:
    """One `fsx_lustre_class` tier as StorageClass parameters (the driver's names and string values), less its network."""

    name: str
    parameters: Mapping[str, str]
    reclaim_policy: str

    @staticmethod
    def of(tier: FsxLustreClass, cluster: str) -> FsxClassParameters:
        """The parameters aws-fsx-csi-driver v1.9.0 reads (pkg/driver/controller.go), all strings."""
        parameters = {
            "deploymentType": tier.deployment_type,
            "fileSystemTypeVersion": tier.file_system_type_version,
            "dataCompressionType": tier.data_compression,
            # Every file system the class makes carries the cluster's name and the class's, for cost and for finding them.
            "extraTags": f"{CLUSTER_NAME_TAG}={cluster},{CLASS_TAG}={tier.name}",
        }
        if tier.throughput_mbps_per_tib is not None:
            parameters["perUnitStorageThroughput"] = str(tier.throughput_mbps_per_tib)
        if tier.efa:
            # EFA needs a metadata configuration (rules/fsx.py); automatic sizes its IOPS from capacity.
            parameters |= {"efaEnabled": "true", "metadataConfigurationMode": "AUTOMATIC"}
        return FsxClassParameters(tier.name, dict(sorted(parameters.items())), tier.reclaim_policy)


@record
class StoragePlan:
    """The FSx CSI release (None without FSx mounts), the volumes, the FSx StorageClasses, and whether gp3 is the default."""

    release: ReleasePlan | None
    volumes: tuple[VolumePlan, ...]
    default_gp3: bool = False
    classes: tuple[FsxClassParameters, ...] = ()


# The EBS CSI driver's provisioner name (its CSIDriver object); EKS 1.30 and later no longer mark gp2 default.
EBS_CSI_PROVISIONER = "ebs.csi.aws.com"
GP3 = "gp3"
# Tags on the file systems an FSx StorageClass makes (the driver's `extraTags`: key=value pairs, comma-separated).
CLASS_TAG = "railyard:storage-class"


def plan_storage(blueprint: Blueprint, mounts: MountPlacement) -> StoragePlan:
    """Plan the driver where the mounts are placed, a volume for each FSx tier mounted, a class for each FSx class, gp3 with EBS CSI."""
    default_gp3 = blueprint.kubernetes.addons.ebs_csi_driver.enabled
    cluster = cluster_name(blueprint)
    classes = tuple(FsxClassParameters.of(tier, cluster) for tier in blueprint.storage if isinstance(tier, FsxLustreClass))
    if mounts.placement is None:
        return StoragePlan(None, (), default_gp3, classes)
    own = [toleration.as_k8s() for toleration in mounts.placement.tolerations if toleration != AGENT_NOT_READY]
    values: dict[str, Any] = {"node": {"affinity": mounts.placement.affinity(), "tolerateAllTaints": False, "tolerations": own}}
    if classes:
        values["controller"] = {"serviceAccount": {"create": True, "name": FSX_CONTROLLER_ACCOUNT[1]}}
    release = ReleasePlan("fsx-csi-driver", "aws-fsx-csi-driver", charts.FSX_CSI_DRIVER, values)
    capacity = {tier.name: tier.capacity_gib for tier in blueprint.storage if tier.kind == "fsx_lustre"}
    namespace = blueprint.kubernetes.workload_namespace
    return StoragePlan(release, tuple(VolumePlan(tier, capacity[tier], namespace) for tier in mounts.tiers), default_gp3, classes)


class ClusterStorage(pulumi.ComponentResource):
    """The FSx CSI driver and the tiers' volumes and claims (`railyard:kubernetes:ClusterStorage`)."""

    def __init__(
        self,
        name: str,
        plan: StoragePlan,
        file_systems: Mapping[str, FileSystemRef],
        provider: pulumi.ProviderResource,
        depends_on: Sequence[pulumi.Resource] = (),
        opts: pulumi.ResourceOptions | None = None,
        system_nodes: Sequence[pulumi.Resource] = (),
        class_networks: Mapping[str, ClassNetworkRef] | None = None,
    ):
        super().__init__("railyard:kubernetes:ClusterStorage", name, None, opts)
        missing = [volume.tier for volume in plan.volumes if volume.tier not in file_systems]
        if missing:
            raise ValueError(f"no file system handle for FSx tier(s) {missing}; pass the storage component's file systems")
        self.driver = emit_release(name, self, plan.release, provider, system_nodes) if plan.release else None
        self.claims = {}
        depends = [*depends_on, *([self.driver] if self.driver else [])]
        for volume in plan.volumes:
            self.claims[volume.tier] = self._volume(name, volume, file_systems[volume.tier], provider, depends)
        self.default_class = self._gp3(name, provider, depends_on) if plan.default_gp3 else None
        networks = class_networks or {}
        unplaced = [fsx_class.name for fsx_class in plan.classes if fsx_class.name not in networks]
        if unplaced:
            raise ValueError(f"no subnet and security group for FSx StorageClass(es) {unplaced}; pass the storage component's class networks")
        self.classes = {fsx_class.name: self._fsx_class(name, fsx_class, networks[fsx_class.name], provider, depends) for fsx_class in plan.classes}
        self.register_outputs({"claims": {tier: claim.metadata.name for tier, claim in self.claims.items()}})

    def _gp3(self, name: str, provider: pulumi.ProviderResource, depends_on: Sequence[pulumi.Resource]) -> k8s.storage.v1.StorageClass:
        """The cluster's default StorageClass: encrypted gp3 EBS volumes, made in the zone of the pod that claims them."""
        return k8s.storage.v1.StorageClass(
            f"{name}-{GP3}",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=GP3, annotations={"storageclass.kubernetes.io/is-default-class": "true"}),
            provisioner=EBS_CSI_PROVISIONER,
            parameters={"type": GP3, "encrypted": "true"},
            volume_binding_mode="WaitForFirstConsumer",
            allow_volume_expansion=True,
            reclaim_policy="Delete",
            opts=pulumi.ResourceOptions(parent=self, provider=provider, depends_on=list(depends_on)),
        )

    def _fsx_class(
        self, name: str, fsx_class: FsxClassParameters, network: ClassNetworkRef, provider: pulumi.ProviderResource, depends_on
    ) -> k8s.storage.v1.StorageClass:
        """A StorageClass whose claims each get a new FSx for Lustre file system (mounted with flock, like the static volumes)."""
        parameters = {**fsx_class.parameters, "subnetId": network.subnet_id, "securityGroupIds": network.security_group_id}
        return k8s.storage.v1.StorageClass(
            f"{name}-class-{fsx_class.name}",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=fsx_class.name),
            provisioner=charts.FSX_CSI_DRIVER_NAME,
            parameters=parameters,
            mount_options=["flock"],
            reclaim_policy=fsx_class.reclaim_policy,
            volume_binding_mode="Immediate",
            opts=pulumi.ResourceOptions(parent=self, provider=provider, depends_on=list(depends_on)),
        )

    def _volume(self, name: str, volume: VolumePlan, file_system: FileSystemRef, provider, depends_on):
        """A static PersistentVolume for the file system and the claim bound to it."""
        options = pulumi.ResourceOptions(parent=self, provider=provider, depends_on=depends_on)
        size = f"{volume.capacity_gib}Gi"
        persistent_volume = k8s.core.v1.PersistentVolume(
            f"{name}-{volume.tier}-volume",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=volume.volume_name),
            spec=k8s.core.v1.PersistentVolumeSpecArgs(
                capacity={"storage": size},
                volume_mode="Filesystem",
                access_modes=["ReadWriteMany"],
                persistent_volume_reclaim_policy="Retain",
                storage_class_name="",
                mount_options=["flock"],
                csi=k8s.core.v1.CSIPersistentVolumeSourceArgs(
                    driver=charts.FSX_CSI_DRIVER_NAME,
                    volume_handle=file_system.id,
                    volume_attributes={"dnsname": file_system.dns_name, "mountname": file_system.mount_name},
                ),
            ),
            opts=options,
        )
        return k8s.core.v1.PersistentVolumeClaim(
            f"{name}-{volume.tier}-claim",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=volume.claim_name, namespace=volume.namespace),
            spec=k8s.core.v1.PersistentVolumeClaimSpecArgs(
                access_modes=["ReadWriteMany"],
                storage_class_name="",
                volume_name=persistent_volume.metadata.name,
                resources=k8s.core.v1.VolumeResourceRequirementsArgs(requests={"storage": size}),
            ),
            opts=options,
        )
