"""Where a pool's storage is mounted: no two tiers at one path, none inside another, none over the system's own.

A pool mounts its FSx tiers into pods (`mount_path`, under the container's
root) and its local NVMe tier on the node. Two tiers at the same path hide
one another, and a tier mounted inside another's directory shadows part of
it; both fail silently at run time. Some paths belong to the system:

* in a container, the runtime mounts `/proc`, `/sys` and `/dev`, and
  Kubernetes the service-account token under `/var/run/secrets`
  (Kubernetes documentation, "Configure Service Accounts for Pods");
* on the node, the OS lives under `/`, `/boot`, `/usr`, `/etc`, `/proc`,
  `/sys`, `/dev` and `/run`, and the kubelet and containerd keep their state
  in `/var/lib/kubelet` and `/var/lib/containerd` (EKS AMI nodeadm);
* in either, a top-level system directory itself (`/usr`, `/etc`, `/bin`,
  `/lib`, `/var`, ...): a file system mounted there hides the image's or the
  OS's own files. The list is AWS ParallelCluster's, which refuses the same
  directories as shared-storage mount points (aws-parallelcluster
  `cli/src/pcluster/validators/cluster_validators.py`,
  `SharedStorageMountDirValidator`); a directory under one (`/mnt/data`,
  `/opt/ml`) is fine.
"""

from __future__ import annotations

from collections.abc import Iterable

from blueprints.findings import Finding, error, warning
from blueprints.models.storage import FsxLustre, FsxLustreClass, LocalNvme
from blueprints.rules.context import Context

CODES = ("storage.mount-path", "storage.tier-unmounted")
POD_RESERVED = ("/", "/proc", "/sys", "/dev", "/var/run/secrets")
NODE_RESERVED = ("/", "/boot", "/usr", "/etc", "/proc", "/sys", "/dev", "/run", "/var/lib/kubelet", "/var/lib/containerd")
# Reserved as themselves only (ParallelCluster's list; see the module docstring).
SYSTEM_DIRECTORIES = (
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/media", "/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys",
    "/tmp", "/usr", "/var",
)  # fmt: skip


def _inside(path: str, other: str) -> bool:
    """True when `path` is `other` or lies under it."""
    other = other.rstrip("/") or "/"
    return path == other or path.startswith(other.rstrip("/") + "/")


def _reserved(path: str, reserved: tuple[str, ...]) -> str | None:
    """The system path `path` would sit on: one of `reserved` or under it, or a top-level system directory itself."""
    normalized = path.rstrip("/") or "/"
    found = next((system for system in reserved if normalized == system or (system != "/" and _inside(normalized, system))), None)
    return found or (normalized if normalized in SYSTEM_DIRECTORIES else None)


def check(ctx: Context) -> Iterable[Finding]:
    """Each pool's mounted tiers: reserved paths, and duplicate or nested pod mount paths; file-system tiers no pool mounts."""
    yield from _unmounted(ctx)
    tiers = {tier.name: (index, tier) for index, tier in enumerate(ctx.blueprint.storage)}
    reported: set[int] = set()
    pairs: set[tuple[int, int]] = set()
    for pool in ctx.blueprint.pools:
        mounted: list[tuple[int, str, str]] = []  # (tier index, tier name, mount path) into pods
        for use in pool.storage:
            if use.tier not in tiers:
                continue  # an unknown tier is the references rule's finding
            index, tier = tiers[use.tier]
            if isinstance(tier, (FsxLustre, LocalNvme)):
                where = "pods" if isinstance(tier, FsxLustre) else "the node"
                system = _reserved(tier.mount_path, POD_RESERVED if isinstance(tier, FsxLustre) else NODE_RESERVED)
                if system is not None and index not in reported:
                    reported.add(index)
                    yield error(
                        "storage.mount-path",
                        ("storage", index, "mount_path"),
                        f"'{tier.name}' mounts at {tier.mount_path} in {where}, which the system keeps for itself ({system})",
                        "mount it under a directory of its own, such as /fsx/<tier> or /mnt/<tier>",
                    )
            if isinstance(tier, FsxLustre):
                mounted.append((index, tier.name, tier.mount_path.rstrip("/") or "/"))
        for position, (index, name, path) in enumerate(mounted):
            for other_index, other_name, other_path in mounted[:position]:
                if other_index == index or (other_index, index) in pairs:
                    continue  # the same tier listed twice is the references rule's; two tiers are reported once
                if _inside(path, other_path) or _inside(other_path, path):
                    pairs.add((other_index, index))
                    how = "at the same path as" if path == other_path else "inside" if _inside(path, other_path) else "around"
                    yield error(
                        "storage.mount-path",
                        ("storage", index, "mount_path"),
                        f"pool '{pool.name}' mounts '{name}' at {path}, {how} '{other_name}' at {other_path}; one hides the other",
                        "give each tier a mount path of its own, side by side (/fsx/train, /fsx/ckpt)",
                    )


def _unmounted(ctx: Context) -> Iterable[Finding]:
    """FSx tiers (and StorageClasses) that no pool lists: created and paid for, or declared, and mounted nowhere."""
    listed = {use.tier for pool in ctx.blueprint.pools for use in pool.storage}
    for index, tier in enumerate(ctx.blueprint.storage):
        if not isinstance(tier, (FsxLustre, FsxLustreClass)) or tier.name in listed:
            continue
        if isinstance(tier, FsxLustre) and tier.existing is not None:
            what = f"it names the team's file system {tier.existing.id}"
        elif isinstance(tier, FsxLustre):
            what = f"railyard creates its {tier.capacity_gib:,} GiB {tier.deployment_type} file system"
        else:
            what = "railyard creates its StorageClass"
        yield warning(
            "storage.tier-unmounted",
            ("storage", index, "name"),
            f"no pool mounts storage tier '{tier.name}', but {what}",
            f"list it in the pools that need it (storage: [{{tier: {tier.name}}}]), or remove the tier",
        )
