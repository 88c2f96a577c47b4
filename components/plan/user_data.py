"""AL2023 user data: a MIME multi-part document with a nodeadm `NodeConfig` part and, on nodes
that mount an EFA-enabled FSx for Lustre tier, a shell part that sets up LNet over EFA
(`components.plan.lustre_efa`).

EKS merges its own bootstrap part (cluster name, endpoint, CA) into the user
data of a managed node group that uses an EKS AMI type, so ours carries only
what EKS doesn't: assembling the instance-store NVMe disks into one RAID0
volume at boot (`spec.instance.localStorage`; nodeadm mounts it at
`/mnt/k8s-disks` and moves containerd, kubelet and pod logs onto it). Launch
templates of a managed node group must use MIME multi-part for AL2023
(aws-facts.md 4.1 and 4.4).
"""

from __future__ import annotations

import base64

from components.plan.lustre_efa import boot_part
from topology.cluster.node_groups import DEFAULT_LOCAL_MOUNT

BOUNDARY = "==RAILYARD-BOUNDARY=="


def node_config(raid0: bool, mount_path: str = DEFAULT_LOCAL_MOUNT, max_pods: int | None = None) -> str | None:
    """The nodeadm NodeConfig YAML, or None when there is nothing to configure.

    `max_pods` sets the kubelet's pod limit (`spec.kubelet.config.maxPods`):
    nodeadm otherwise derives it from the CNI's secondary-IP formula, which is
    too high under custom networking (the primary ENI carries no pods) and
    lower than a prefix-delegated node can hold.
    """
    if not raid0 and max_pods is None:
        return None
    lines = ["apiVersion: node.eks.aws/v1alpha1", "kind: NodeConfig", "spec:"]
    if raid0:
        lines += ["  instance:", "    localStorage:", "      strategy: RAID0"]
        if mount_path.rstrip("/") != DEFAULT_LOCAL_MOUNT:
            lines.append(f"      mountPath: {mount_path}")
    if max_pods is not None:
        lines += ["  kubelet:", "    config:", f"      maxPods: {max_pods}"]
    return "\n".join(lines) + "\n"


def mime_user_data(config: str | None, script: str | None = None) -> str:
    """A MIME multi-part document: the nodeadm `NodeConfig` part (when given), then a shell part (when given)."""
    parts = []
    if config is not None:
        parts.append(f"--{BOUNDARY}\nContent-Type: application/node.eks.aws\n\n---\n{config}\n")
    if script is not None:
        parts.append(f'--{BOUNDARY}\nContent-Type: text/x-shellscript; charset="us-ascii"\n\n{script}\n')
    return f'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="{BOUNDARY}"\n\n' + "".join(parts) + f"--{BOUNDARY}--\n"


def encoded_user_data(raid0: bool, mount_path: str = DEFAULT_LOCAL_MOUNT, lustre_efa_interfaces: int = 0, max_pods: int | None = None) -> str | None:
    """Base64 user data for a launch template, or None when the node needs none.

    `lustre_efa_interfaces` > 0 adds the FSx-for-Lustre-over-EFA client setup
    (`components.plan.lustre_efa`) on that many EFA devices.
    """
    config = node_config(raid0, mount_path, max_pods)
    script = boot_part(lustre_efa_interfaces) if lustre_efa_interfaces else None
    if config is None and script is None:
        return None
    return base64.b64encode(mime_user_data(config, script).encode()).decode()
