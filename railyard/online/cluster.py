"""`railyard conform`'s live read: the running cluster into an evidence folder, read-only.

AWS is read through `validate --online`'s `Account` (one credentials path, one read-only table, one
error classification), every listing through botocore's own paginators, joined as the AWS CLI joins
them. DescribeInstanceTopology takes at most 100 instance ids a call, so the ids go in batches of
100 (each batch paged too); it gives no network nodes for an instance that isn't running yet, which
the judge reads as "not placed yet", not as a mismatch.

Kubernetes is read by running `kubectl get ... -o json`, not through the `kubernetes` Python
package. Weighed: the package would add a pinned dependency (and its own kubeconfig and auth-plugin
handling) to every install of railyard for one read-only command, and what it returns are Python
objects whose JSON is not what kubectl prints. kubectl is already on every machine that runs
`pulumi up` against EKS, it follows the user's kubeconfig and `aws eks get-token` exactly as they
use it, and its output is stored byte for byte, so a folder recorded by hand with kubectl is the
same evidence. The price is a subprocess per kind; the reads are few.

The cluster's instances are found by the tag EKS puts on a managed node group's Auto Scaling group,
`eks:cluster-name`, propagated to the instances at launch (with `eks:nodegroup-name`; the
AWSServiceRoleForAmazonEKSNodegroup managed policy conditions its Auto Scaling calls on these tag
keys), by the tag Karpenter v1 puts on the instances it launches, `eks:eks-cluster-name` (so an
instance that never became a node is still found), and by the instance ids the nodes' providerIDs
name, which catches any instance neither tag finds.

A call that fails leaves its file out, and the judge reports the checks it feeds as not run.
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from blueprints.catalog import load_catalog
from blueprints.models import Blueprint
from blueprints.rules.names import cluster_name
from railyard.online import evidence
from railyard.online.account import READ_ONLY_CALLS, Account, AccountError, AccountUnreachable, open_account
from topology.cluster import plan_cluster

# DescribeInstanceTopology's InstanceIds holds at most 100 ids (botocore's model: DescribeInstanceTopologyInstanceIdSet).
TOPOLOGY_BATCH = 100
# The file -> kubectl's arguments; each is a `get ... -o json` of one kind (docs/conform.md).
KUBECTL: dict[str, tuple[str, ...]] = {
    evidence.NODES: ("get", "nodes", "-o", "json"),
    evidence.DAEMONSETS: ("get", "daemonsets", "--all-namespaces", "-o", "json"),
    evidence.DEPLOYMENTS: ("get", "deployments", "--all-namespaces", "-o", "json"),
    evidence.PODS: ("get", "pods", "--all-namespaces", "-o", "json"),
    evidence.VOLUMES: ("get", "persistentvolumes", "-o", "json"),
    evidence.CLAIMS: ("get", "persistentvolumeclaims", "--all-namespaces", "-o", "json"),
    evidence.KUEUE_TOPOLOGIES: ("get", "topologies.kueue.x-k8s.io", "-o", "json"),
    evidence.KUEUE_FLAVORS: ("get", "resourceflavors.kueue.x-k8s.io", "-o", "json"),
    evidence.COMPUTE_DOMAINS: ("get", "computedomains.resource.nvidia.com", "--all-namespaces", "-o", "json"),
}
# The API group -> resources the reads above need, all get/list only (`cluster_role`).
RBAC_READS = {
    "": ("nodes", "pods", "persistentvolumes", "persistentvolumeclaims"),
    "apps": ("daemonsets", "deployments"),
    "kueue.x-k8s.io": ("topologies", "resourceflavors"),
    "resource.nvidia.com": ("computedomains",),
}
CONFORM_CALLS = (
    ("ec2", "DescribeInstances"),
    ("ec2", "DescribeInstanceTopology"),
    ("ec2", "DescribeCapacityReservations"),
    ("ec2", "DescribeCapacityBlockStatus"),
    ("eks", "DescribeCluster"),
    ("eks", "DescribeNodegroup"),
    ("fsx", "DescribeFileSystems"),
)
Runner = Callable[..., subprocess.CompletedProcess]


def iam_policy() -> dict[str, Any]:
    """The IAM policy `conform` needs: the read-only actions of its calls, on `*`."""
    actions = sorted({READ_ONLY_CALLS[call] for call in CONFORM_CALLS})
    return {"Version": "2012-10-17", "Statement": [{"Sid": "RailyardConform", "Effect": "Allow", "Action": actions, "Resource": "*"}]}


def cluster_role(name: str = "railyard-conform") -> dict[str, Any]:
    """The ClusterRole `conform` needs: get and list on exactly the kinds it reads."""
    rules = [{"apiGroups": [group], "resources": list(resources), "verbs": ["get", "list"]} for group, resources in RBAC_READS.items()]
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": name}, "rules": rules}


def record_kubernetes(folder: str | Path, kubectl: str = "kubectl", run: Runner = subprocess.run) -> list[str]:
    """Run each `kubectl get` and store what it prints, byte for byte; returns what failed (their files are left out)."""
    failed = []
    Path(folder).mkdir(parents=True, exist_ok=True)
    for name, arguments in KUBECTL.items():
        try:
            done = run([kubectl, *arguments], capture_output=True, timeout=120, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            failed.append(f"{kubectl} {' '.join(arguments)}: {exc}")
            continue
        if done.returncode != 0:
            # kubectl retries and logs each try; its last line is the reason.
            reason = (done.stderr.decode(errors="replace").strip().splitlines() or [f"exit status {done.returncode}"])[-1]
            failed.append(f"{kubectl} {' '.join(arguments)}: {reason}")
            continue
        (Path(folder) / name).write_bytes(done.stdout)
    return failed


def _batches(ids: Sequence[str], size: int = TOPOLOGY_BATCH) -> list[list[str]]:
    return [list(ids[start : start + size]) for start in range(0, len(ids), size)]


def _node_instances(folder: Path) -> list[str]:
    """The instance ids of the nodes kubectl listed (the last part of an `aws:///zone/i-...` providerID), for instances no tag finds."""
    listed = evidence.read_evidence(folder).get(evidence.NODES) or {}
    ids = {str((item.get("spec") or {}).get("providerID") or "").rsplit("/", 1)[-1] for item in listed.get("items") or []}
    return sorted(instance for instance in ids if instance.startswith("i-"))


# The tags that name an instance's cluster: EKS's on a managed node group's instances, and Karpenter v1's
# (its v1 upgrade guide: `karpenter.sh/managed-by` "is replaced by `eks:eks-cluster-name`"). EC2 ANDs filters
# of different names, so each tag is its own listing.
CLUSTER_TAGS = ("eks:cluster-name", "eks:eks-cluster-name")


def _instances(account: Account, cluster: str, also: list[str]) -> dict[str, Any]:
    """DescribeInstances of the cluster's instances, found by either cluster tag, plus the nodes' instances no tag found."""
    reservations: list[dict[str, Any]] = []
    known: set[str] = set()
    for tag in CLUSTER_TAGS:
        running = {"Name": "instance-state-name", "Values": ["pending", "running"]}
        answer = account.pages("ec2", "DescribeInstances", Filters=[{"Name": f"tag:{tag}", "Values": [cluster]}, running])
        for reservation in answer.get("Reservations") or []:
            fresh = [item for item in reservation.get("Instances") or [] if item["InstanceId"] not in known]
            if fresh:
                reservations.append({**reservation, "Instances": fresh})
                known.update(item["InstanceId"] for item in fresh)
    missed = [instance for instance in also if instance not in known]
    if missed:
        reservations += account.pages("ec2", "DescribeInstances", InstanceIds=missed).get("Reservations") or []
    return {"Reservations": reservations}


def _topology(account: Account, instance_ids: list[str]) -> dict[str, Any]:
    """DescribeInstanceTopology of every instance, 100 ids a call."""
    found: list[dict[str, Any]] = []
    for batch in _batches(instance_ids):
        found += account.pages("ec2", "DescribeInstanceTopology", InstanceIds=batch).get("Instances") or []
    return {"Instances": found}


def record_aws(blueprint: Blueprint, account: Account, folder: str | Path) -> list[str]:
    """Every AWS answer the judge reads, into `folder`; returns the calls that failed (their files are left out).

    Raises `AccountUnreachable` when no call can succeed.
    """
    plan = plan_cluster(blueprint, load_catalog())
    cluster = cluster_name(blueprint)
    groups = [group for group in plan.node_groups if not group.system]
    reservations = sorted(
        {group.reservation_id for group in groups if group.reservation_id} | {member for group in groups for member in group.reservation_members}
    )
    failed: list[str] = []

    def keep(name: str, read: Callable[[], dict[str, Any]]) -> dict[str, Any] | None:
        try:
            answer = read()
        except AccountError as exc:
            failed.append(str(exc))
            return None
        evidence.write_document(folder, name, _without_metadata(answer))
        return answer

    instances = keep(evidence.INSTANCES, lambda: _instances(account, cluster, _node_instances(Path(folder)))) or {}
    ids = sorted(item["InstanceId"] for reservation in instances.get("Reservations") or [] for item in reservation.get("Instances") or [])
    placed = keep(evidence.TOPOLOGY, lambda: _topology(account, ids)) or {}
    blocks = sorted({item["CapacityBlockId"] for item in placed.get("Instances") or [] if item.get("CapacityBlockId")})
    if reservations:
        keep(evidence.RESERVATIONS, lambda: account.pages("ec2", "DescribeCapacityReservations", CapacityReservationIds=reservations))
    keep(
        evidence.BLOCK_STATUS,
        lambda: account.pages("ec2", "DescribeCapacityBlockStatus", CapacityBlockIds=blocks) if blocks else {"CapacityBlockStatuses": []},
    )
    keep(evidence.CLUSTER, lambda: account.call("eks", "DescribeCluster", name=cluster))
    for group in groups:
        if group.managed:
            keep(
                evidence.nodegroup_file(group.name),
                functools.partial(account.call, "eks", "DescribeNodegroup", clusterName=cluster, nodegroupName=group.name),
            )
    keep(evidence.FILE_SYSTEMS, lambda: account.pages("fsx", "DescribeFileSystems"))
    return failed


def _without_metadata(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer as the AWS CLI prints it: without botocore's ResponseMetadata (request ids change every call)."""
    return {key: value for key, value in answer.items() if key != "ResponseMetadata"}


def record_cluster(
    blueprint: Blueprint, folder: str | Path, profile: str | None = None, kubectl: str = "kubectl", session: Any = None, run: Runner = subprocess.run
) -> list[str]:
    """Read the live cluster (Kubernetes first: its nodes name instances the EC2 tags may miss) into `folder`; returns what failed."""
    failed = record_kubernetes(folder, kubectl, run)
    try:
        account = open_account(blueprint.cloud.region, profile, session)
        failed += record_aws(blueprint, account, folder)
    except AccountUnreachable as exc:
        failed.append(f"the account could not be reached in {blueprint.cloud.region} ({exc}); no AWS file was recorded")
    return failed
