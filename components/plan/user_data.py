"""AL2023 user data: a MIME multi-part document with a nodeadm `NodeConfig` part and, on nodes
that mount an EFA-enabled FSx for Lustre tier, a shell part that sets up LNet over EFA
(`components.plan.lustre_efa`).

EKS merges its own bootstrap part (cluster name, endpoint, CA) into the user
data of a managed node group that uses an EKS AMI type, so ours carries only
what EKS doesn't. A custom AMI gets no such part (EKS user guide,
launch-templates: "Amazon EKS doesn't merge user data"), so for one the
NodeConfig also carries the cluster (name, endpoint, CA and service CIDR,
which nodeadm requires) and the node group's labels and taints as kubelet
flags (EKS would apply API taints only after the node joins). Beyond that: assembling the instance-store NVMe disks into one RAID0
volume at boot (`spec.instance.localStorage`; nodeadm mounts it at
`/mnt/k8s-disks` and moves containerd, kubelet and pod logs onto it). Launch
templates of a managed node group must use MIME multi-part for AL2023
(aws-facts.md 4.1 and 4.4).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping

from blueprints.records import record
from components.plan.lustre_efa import boot_part
from topology.cluster.labels import NodeTaint
from topology.cluster.node_groups import DEFAULT_LOCAL_MOUNT

BOUNDARY = "==RAILYARD-BOUNDARY=="


@record
class Bootstrap:
    """What nodeadm needs to join a custom-AMI node to the cluster (nodeadm `ValidateNodeConfig` requires all four)."""

    cluster_name: str
    endpoint: str
    certificate_authority: str  # base64, as DescribeCluster returns it
    service_cidr: str
    labels: Mapping[str, str]
    taints: tuple[NodeTaint, ...]

    def kubelet_flags(self) -> list[str]:
        """`--node-labels` and `--register-with-taints`, in the kubelet's `k=v,...` and `k=v:Effect,...` forms."""
        flags = []
        if self.labels:
            flags.append("--node-labels=" + ",".join(f"{key}={value}" for key, value in sorted(self.labels.items())))
        if self.taints:
            # `key=value:Effect`, or `key:Effect` for a taint without a value (kubelet --register-with-taints).
            taints = (f"{taint.key}={taint.value}:{taint.effect}" if taint.value else f"{taint.key}:{taint.effect}" for taint in self.taints)
            flags.append("--register-with-taints=" + ",".join(taints))
        return flags


def node_config(raid0: bool, mount_path: str = DEFAULT_LOCAL_MOUNT, max_pods: int | None = None, bootstrap: Bootstrap | None = None) -> str | None:
    """The nodeadm NodeConfig YAML, or None when there is nothing to configure.

    `max_pods` sets the kubelet's pod limit (`spec.kubelet.config.maxPods`):
    nodeadm otherwise derives it from the CNI's secondary-IP formula, which is
    too high under custom networking (the primary ENI carries no pods) and
    lower than a prefix-delegated node can hold. `bootstrap` (custom AMIs
    only) adds `spec.cluster` and the labels and taints as kubelet flags.
    """
    if not raid0 and max_pods is None and bootstrap is None:
        return None
    lines = ["apiVersion: node.eks.aws/v1alpha1", "kind: NodeConfig", "spec:"]
    if bootstrap is not None:
        lines += [
            "  cluster:",
            f"    name: {bootstrap.cluster_name}",
            f"    apiServerEndpoint: {bootstrap.endpoint}",
            f"    certificateAuthority: {bootstrap.certificate_authority}",
            f"    cidr: {bootstrap.service_cidr}",
        ]
    if raid0:
        lines += ["  instance:", "    localStorage:", "      strategy: RAID0"]
        if mount_path.rstrip("/") != DEFAULT_LOCAL_MOUNT:
            lines.append(f"      mountPath: {mount_path}")
    flags = bootstrap.kubelet_flags() if bootstrap is not None else []
    if max_pods is not None or flags:
        lines.append("  kubelet:")
        if max_pods is not None:
            lines += ["    config:", f"      maxPods: {max_pods}"]
        if flags:
            lines += ["    flags:", *(f"      - {flag}" for flag in flags)]
    return "\n".join(lines) + "\n"


def mime_user_data(config: str | None, script: str | None = None) -> str:
    """A MIME multi-part document: the nodeadm `NodeConfig` part (when given), then a shell part (when given)."""
    parts = []
    if config is not None:
        parts.append(f"--{BOUNDARY}\nContent-Type: application/node.eks.aws\n\n---\n{config}\n")
    if script is not None:
        parts.append(f'--{BOUNDARY}\nContent-Type: text/x-shellscript; charset="us-ascii"\n\n{script}\n')
    return f'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="{BOUNDARY}"\n\n' + "".join(parts) + f"--{BOUNDARY}--\n"


def encoded_user_data(
    raid0: bool,
    mount_path: str = DEFAULT_LOCAL_MOUNT,
    lustre_efa_interfaces: int = 0,
    max_pods: int | None = None,
    bootstrap: Bootstrap | None = None,
) -> str | None:
    """Base64 user data for a launch template, or None when the node needs none.

    `lustre_efa_interfaces` > 0 adds the FSx-for-Lustre-over-EFA client setup
    (`components.plan.lustre_efa`) on that many EFA devices.
    """
    config = node_config(raid0, mount_path, max_pods, bootstrap)
    script = boot_part(lustre_efa_interfaces) if lustre_efa_interfaces else None
    if config is None and script is None:
        return None
    return base64.b64encode(mime_user_data(config, script).encode()).decode()
